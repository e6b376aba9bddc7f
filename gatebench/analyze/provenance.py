"""What produced the numbers: per config, the worker, model, CLI, sealing, gatebench and task versions.

A report must say up front whether a model or gatebench's scripted sim agent played the cells: a sim
matrix's rates and dollars describe the simulator's policy, and its dollars were never paid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from gatebench.models.analysis import ConfigProvenance

PLUGIN_EVAL = "claude plugin eval"  # == gatebench.analyze.plugineval.ORIGIN (that module imports load, which imports this)

if TYPE_CHECKING:  # load imports this module's record readers
    from gatebench.analyze.runs import Run


def reviewer_models(d: dict) -> tuple[str, ...]:
    """Models the record's review gates ran (finalize keeps them per gate verdict), read tolerantly."""
    found: set[str] = set()
    for s in d.get("stops") or ():
        for g in (s.get("gates") or ()) if isinstance(s, dict) else ():
            models = g.get("models") if isinstance(g, dict) else None
            found.update(m for m in models or () if isinstance(m, str))
    return tuple(sorted(found))


def record_fields(d: dict) -> tuple[str, str | None, bool | None]:
    """(worker, sim policy, sealed) of one ledger record, read tolerantly (older records lack some)."""
    worker_in, sim_in = d.get("worker"), d.get("sim")
    worker = worker_in if isinstance(worker_in, str) else ""
    sim = sim_in if isinstance(sim_in, dict) else {}
    policy_in = sim.get("policy")
    policy = policy_in if isinstance(policy_in, str) else None
    sealed = d.get("sealed")
    if sealed is None and isinstance(d.get("versions"), dict):
        sealed = d["versions"].get("sealed")
    return worker, policy, sealed if isinstance(sealed, bool) else None


def _natural(name: str) -> tuple:
    # T2 before T10, as metrics.natural_key (not imported: metrics -> load -> this module).
    digits = name[len(name.rstrip("0123456789")):]
    return (name[: len(name) - len(digits)], int(digits) if digits else -1, name)


def _values(runs: list[Run], key: str) -> list[str]:
    return sorted({str(r.versions[key]) for r in runs if r.versions.get(key) is not None})


def _gatebench(r: Run) -> str:
    v = r.versions
    commit = v.get("git_commit")
    extra = ", ".join(x for x in (str(commit)[:12] if commit else "", "dirty" if v.get("git_dirty") else "") if x)
    return f"{v.get('gatebench', '?')}" + (f" ({extra})" if extra else "")


def _one_of(values: set[Literal["yes", "no", "unknown"]]) -> Literal["yes", "no", "mixed", "unknown"]:
    if not values:
        return "unknown"
    if len(values) > 1:
        return "mixed"
    return next(iter(values))


def config_provenance(config: str, runs: list[Run]) -> ConfigProvenance:
    workers = sorted({r.worker or "unknown" for r in runs})
    sim = [r for r in runs if r.worker == "sim"]
    sealed: set[Literal["yes", "no", "unknown"]] = {"unknown" if r.sealed is None else ("yes" if r.sealed else "no") for r in runs}
    tasks: dict[str, set[str]] = {}
    for r in runs:
        tasks.setdefault(r.task, set()).add(str(r.versions.get("task_hash") or "unknown"))
    return ConfigProvenance(
        config=config,
        records=len(runs),
        workers=workers,
        simulated="yes" if len(sim) == len(runs) else ("no" if not sim else "mixed"),
        sim_policies=sorted({r.sim_policy or "unknown" for r in sim}),
        models=_values(runs, "model"),
        reviewer_models=sorted({m for r in runs for m in r.reviewer_models}),
        cli_versions=_values(runs, "cli_version"),
        sealed="mixed" if len(sealed) > 1 else _one_of(sealed),
        gatebench=sorted({_gatebench(r) for r in runs}),
        config_hashes=_values(runs, "config_hash"),
        tasks={t: sorted(tasks[t]) for t in sorted(tasks, key=_natural)},
        origins=sorted({r.origin for r in runs}),
    )


def provenance(runs: list[Run], configs: list[str]) -> list[ConfigProvenance]:
    by: dict[str, list[Run]] = {}
    for r in runs:
        by.setdefault(r.config, []).append(r)
    return [config_provenance(c, by[c]) for c in configs if c in by]


def notice(prov: list[ConfigProvenance]) -> str:
    """The report's first line: who played the agent, and what the rates and dollars therefore describe."""
    return _origin_note(prov) + _agent_note(prov)


def _origin_note(prov: list[ConfigProvenance]) -> str:
    pe = [p for p in prov if PLUGIN_EVAL in p.origins]
    if not pe:
        return ""
    names = "every config" if len(pe) == len(prov) else "config(s) " + ", ".join(p.config for p in pe)
    clis = sorted({c for p in pe for c in p.cli_versions}) or ["unknown"]
    return (f"FROM CLAUDE PLUGIN EVAL: {names} came from `claude plugin eval` (aggregate-result.json, Claude Code "
            f"{', '.join(clis)}): one arm per config, a case per task, runs paired by case and run index; the agent "
            "ran in that command's sandbox, not in gatebench's sealed cells. ")


def _agent_note(prov: list[ConfigProvenance]) -> str:
    sim = [p for p in prov if p.simulated != "no"]
    if sim:
        names = "every config" if len(sim) == len(prov) else "config(s) " + ", ".join(p.config for p in sim)
        policies = sorted({x for p in sim for x in p.sim_policies})
        mixed = [p.config for p in sim if p.simulated == "mixed"]
        return (
            f"SIMULATED AGENT: {names} was played by gatebench's scripted sim agent (policy "
            f"{', '.join(policies)}) through the real Claude Code CLI against gatebench's fake Messages API, not "
            "by a model. Its solve rates, Δs and costs describe the simulator's policy; its dollars are simulated "
            "(the CLI's price table applied to fake token counts) and were never paid."
            + (f" Mixed sim and real records in: {', '.join(mixed)}." if mixed else "")
        )
    models = sorted({m for p in prov for m in p.models}) or ["unknown"]
    clis = sorted({c for p in prov for c in p.cli_versions}) or ["unknown"]
    workers = sorted({w for p in prov for w in p.workers})
    dollars = ("dollars are the CLI's reported costs" if set(workers) <= {"claude", "plugin-eval"}
               else "dollars as the records state them")  # e.g. synthetic ledgers (worker synth)
    return f"Agent: worker {', '.join(workers)}, model {', '.join(models)}, Claude Code CLI {', '.join(clis)}; {dollars}."
