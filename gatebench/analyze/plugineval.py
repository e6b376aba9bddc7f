"""Read `claude plugin eval` results (`aggregate-result.json`, schemaVersion 1) into the same `Run` rows a
ledger gives, so one pipeline analyzes both (SPEC.md section 18, "Reading aggregate-result.json").

- An arm is a config: for a gatebench export, the config the plugin was exported from; for any other
  suite, the plugin's name, and `without` for its no-plugin arm (`--ablation with-without`).
- A case is a task; a run's index within its arm is its rep, so runs pair across arms by case and index.
  Runs are counted from `arms.with` / `arms.without`, never taken from `runsPerCase` (the case's `runs`
  setting: it stays 3 under `--runs 1`, seen on 2.1.332).
- A gatebench export keeps every run's private record next to the plugins (`<suite>/.gatebench/runs/`,
  written by the harness where the agent could not write): its stops, gates, oracle at each stop and the
  final verdict. Those decide `solved`, the first-stop counterfactual and the gates table; the graders'
  result is cross-checked against them. Without them (a moved or foreign suite) the solved grader (or, for
  a foreign suite, the run's own `passed`) decides, and nothing is known of stops.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from gatebench.analyze.runs import LedgerInfo, Loaded, Run, first_stop_outcome
from gatebench.models.loading import describe
from gatebench.models.plugineval import (
    SOLVED_GRADER,
    VERDICT_GRADER,
    AggCase,
    Aggregate,
    AggRun,
    ExportManifest,
    PrivateRun,
    SimRun,
)
from gatebench.oracle.control import oracle_judged

AGGREGATE = "aggregate-result.json"
ORIGIN = "claude plugin eval"
WITHOUT = "without"


def is_aggregate(path: Path) -> bool:
    """A file Claude Code's `plugin eval` wrote: by name, or a JSON object with `schemaVersion` and `cases`."""
    if path.name == AGGREGATE:
        return True
    if path.suffix != ".json" or not path.is_file():
        return False
    try:
        head = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and "schemaVersion" in head and "cases" in head


def find_aggregates(path: Path) -> list[Path]:
    """Every aggregate-result.json at or under `path` (a results folder, a suite, an export), sorted."""
    if path.is_file():
        return [path] if is_aggregate(path) else []
    return sorted(p for p in path.rglob(AGGREGATE) if p.is_file())


@dataclass
class Private:
    """What a gatebench export keeps beside its plugins, indexed by each run's eval root folder."""

    manifest: ExportManifest | None = None
    runs: dict[str, tuple[PrivateRun, Path]] = field(default_factory=dict)
    sims: dict[str, SimRun] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def eval_root(path: str) -> str | None:
    """The run's temporary root: `<root>/out/trace.jsonl` and `<root>/home/cwd` (seen on 2.1.332)."""
    return str(Path(path).parent.parent) if path else None


def read_private(suite_root: Path) -> Private:
    out = Private()
    private = suite_root.parent / ".gatebench"
    try:
        out.manifest = ExportManifest.model_validate_json((private / "export.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return out
    except (OSError, ValueError) as e:
        out.problems.append(f"{private / 'export.json'}: unreadable or invalid ({str(e)[:200]})")
        return out
    for rj in sorted((private / "runs").glob("*/*/run.json")):
        try:
            run = PrivateRun.model_validate_json(rj.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            out.problems.append(f"{rj}: not a valid private run record ({str(e)[:200]})")
            continue
        root = eval_root(run.cwd)
        if root:
            out.runs[root] = (run, rj)
    for sj in sorted((private / "sim").glob("*.json")):
        try:
            sim = SimRun.model_validate_json(sj.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        root = eval_root(sim.cwd)
        if root:
            out.sims[root] = sim
    return out


def status_of(run: AggRun) -> tuple[str, str | None]:
    """The run's status from the CLI's own error text (seen on 2.1.332: 'timed out after Ns', 'exit 1: Reached
    maximum number of turns (N)', 'exit 1: API Error: ...', 'scaffold failed (exit N): ...')."""
    err = run.error
    if not err:
        return "ok", None
    low = err.lower()
    if "timed out" in low:
        return "timeout", err
    if "maximum number of turns" in low:
        return "cap", err
    return "infra_error", err


def grader(run: AggRun, name: str) -> bool | None:
    g = next((g for g in run.graders if g.name == name), None)
    return None if g is None else g.passed


def _stops(p: PrivateRun) -> tuple:
    return tuple((s.oracle_solved, s.decision, tuple((g.name, g.kind, g.verdict) for g in s.gates)) for s in p.stops)


def arm_names(agg: Aggregate, gatebench: bool) -> tuple[str, str]:
    """(with-arm name, without-arm name): a gatebench plugin folder is named like its config."""
    if gatebench:
        return Path(agg.suite.root).name, WITHOUT
    names = [p.name for p in agg.suite.plugins if p.problem is None] or [p.name for p in agg.suite.plugins]
    return ("+".join(names) or "(no plugin)"), WITHOUT


def to_runs(path: Path, agg: Aggregate, out: Loaded, info: LedgerInfo) -> None:
    gatebench = any(g.name == SOLVED_GRADER for c in agg.cases for g in c.graders)
    private = read_private(Path(agg.suite.root)) if gatebench else Private()
    out.warnings += private.problems
    with_name, without_name = arm_names(agg, gatebench)
    if agg.partial:
        out.warnings.append(f"{path}: a partial run ({agg.partialReason or 'unknown reason'}): only the runs it made "
                            "are analyzed")
    if gatebench and private.manifest is None:
        out.warnings.append(f"{path}: the suite's private folder ({Path(agg.suite.root).parent / '.gatebench'}) is "
                            "missing: runs are scored from the CLI's graders alone, without stops or gates")
    out.warnings += version_warning(path, agg, private.manifest)
    model = agg.suite.modelOverride
    mismatches = 0
    # Another invocation of the same config (e.g. two `claude plugin eval` runs of one plugin) continues its rep
    # numbers: six runs of one config over two files are reps 0..5, never two rep 0..2 rows that look like retries.
    taken: dict[tuple[str, str], int] = {}
    for r0 in out.runs:
        if r0.origin == ORIGIN:
            taken[(r0.config, r0.task)] = max(taken.get((r0.config, r0.task), 0), r0.rep + 1)
    continued: set[str] = set()
    for ci, case in enumerate(agg.cases):
        for arm, runs in ((with_name, case.arms.with_), (without_name, case.arms.without or [])):
            key = "with" if arm == with_name else "without"
            offset = taken.get((arm, case.name), 0)
            if offset and runs:
                continued.add(arm)
            for i, run in enumerate(runs):
                info.lines += 1
                r, mismatch = one_run(path, agg, case, run, arm, offset + i, f"{path}:cases[{ci}].arms.{key}[{i}]",
                                      gatebench and key == "with", private, model)
                mismatches += mismatch
                out.runs.append(r)
                info.used += 1
    if continued:
        out.warnings.append(f"{path}: another invocation of config(s) {', '.join(sorted(continued))} already loaded: "
                            "its runs are further repetitions (their reps continue the count), not retries")
    if mismatches:
        out.warnings.append(f"{path}: {mismatches} run(s) whose {SOLVED_GRADER} grader disagrees with gatebench's own "
                            "verdict (the private run record); the private record is used: a passing grader against "
                            "an unsolved record means the verdict file did not come from the harness")


def version_warning(path: Path, agg: Aggregate, manifest: ExportManifest | None) -> list[str]:
    """The CLI that ran the suite, when it is not the one gatebench pins (or the export was made for)."""
    from gatebench.claude_version import CLAUDE_CODE_VERSION

    pinned = manifest.cli_version if manifest is not None else CLAUDE_CODE_VERSION
    if not agg.claudeVersion or agg.claudeVersion == pinned:
        return []
    return [f"{path}: run with Claude Code {agg.claudeVersion}, not the pinned {pinned} "
            f"({'the export' if manifest is not None else 'gatebench'}'s): what SPEC section 18 says the CLI does "
            "was seen on the pinned one only"]


def one_run(path: Path, agg: Aggregate, case: AggCase, run: AggRun, arm: str, rep: int, source: str,
            gatebench: bool, private: Private, model: str | None) -> tuple[Run, int]:
    status, error = status_of(run)
    root = eval_root(run.tracePath)
    found = private.runs.get(root) if root else None
    prun, rpath = found if found else (None, None)
    sim = private.sims.get(root) if root else None
    mismatch = 0
    if not gatebench:
        solved = run.passed
    elif prun is not None:
        verdict = prun.verdict
        if status == "ok" and verdict is None:
            status, error = "infra_error", "the harness judged no final stop (the gate never let the agent stop)"
        solved = bool(verdict and verdict.solved)
        g = grader(run, SOLVED_GRADER)
        if g is not None and g != (solved and status == "ok"):
            mismatch = 1
    else:
        if status == "ok" and not grader(run, VERDICT_GRADER):
            status, error = "infra_error", ("no verdict: the run was not scaffolded (claude plugin eval without "
                                            "--scaffold?) or the harness never judged a final stop")
        solved = bool(grader(run, SOLVED_GRADER))
    ok = status == "ok"
    stops = _stops(prun) if prun is not None else ()
    # Only the harness's record knows the oracle at the first stop; elsewhere the counterfactual is unknown.
    first = first_stop_outcome(bool(solved and ok), None, stops) if prun is not None else None
    m = private.manifest
    cfg = m.configs.get(arm) if m else None
    task = m.tasks.get(case.name) if m else None
    versions = {"gatebench": m.gatebench if m else None, "git_commit": m.git_commit if m else None,
                "git_dirty": m.git_dirty if m else None, "cli_version": agg.claudeVersion,
                "model": model or case.model or (prun.model if prun else None), "task_hash": task.task_hash if task else None,
                "config_hash": cfg.config_hash if cfg else None, "origin": ORIGIN}
    paths = {"trace": run.tracePath} if run.tracePath else {}
    if rpath is not None:
        paths.update(run=str(rpath), events=str(rpath.parent / "state" / "events.jsonl"))
    r = Run(
        config=arm, task=case.name, rep=rep, run_id=f"plugin-eval:{agg.startedAt}", cell_id=f"{arm}/{case.name}/{rep}",
        attempt_no=1, status=status, solved=bool(solved and ok), first_stop=first, stops=stops,
        blocks=sum(1 for s in stops if s[1] == "block"), give_up=any(s[1] == "give_up" for s in stops),
        tamper=bool(prun and prun.verdict and prun.verdict.why.startswith("protected paths")),
        leak=bool(prun and prun.leaks),
        cost=float(run.costUsd), reviewer_cost=0.0, usage={}, turns=run.turns, wall_s=float(run.durationSeconds or 0.0),
        paths=paths, versions=versions, source=source, base_dir=str(path.parent),
        worker="sim" if sim else "plugin-eval", sim_policy=sim.policy if sim else None, sealed=None,
        origin=ORIGIN, error=error if status != "ok" else None, score=float(run.score),
        graders=tuple((g.name, bool(g.passed), float(g.weight)) for g in run.graders),
        oracle_ran=oracle_judged(status, prun.verdict.oracle if prun is not None and prun.verdict else None),
    )
    return r, mismatch


def read_aggregate(path: Path, out: Loaded) -> None:
    """One aggregate-result.json into `out`; a file that is not a valid aggregate is a warning, not a crash."""
    info = LedgerInfo(path=str(path))
    out.ledgers.append(info)
    try:
        agg = Aggregate.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as e:
        info.skipped += 1
        out.warnings.append(f"{path}: not a claude plugin eval aggregate-result.json (schemaVersion 1):\n{describe(e)}")
        return
    except (OSError, ValueError) as e:
        info.skipped += 1
        out.warnings.append(f"{path}: unreadable: {e}")
        return
    to_runs(path, agg, out, info)
