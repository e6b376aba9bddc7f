"""Read ledgers (`runs/<run-id>/results.jsonl`) into plain `Run` rows, skipping bad lines with a message.

Speed matters (a ledger may hold 100,000 lines): lines are parsed with pydantic-core's JSON parser
into plain dicts, the fields analysis reads are checked by hand on every line, and the full
`ResultRecord` model validates a deterministic sample of lines per file (the first
`FULL_CHECK_HEAD` and every `FULL_CHECK_EVERY`-th after), which catches a writer that drifted from
the schema without paying for 100,000 model validations.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from pydantic_core import from_json

from gatebench.analyze.integrity import canary_flag
from gatebench.analyze.provenance import record_fields, reviewer_models
from gatebench.analyze.runs import LedgerInfo, Loaded, Run, first_stop_outcome
from gatebench.models.result import RESULT_SCHEMA_VERSION, ResultRecord
from gatebench.oracle.control import oracle_judged

__all__ = ["LedgerInfo", "Loaded", "Run", "first_stop_outcome", "load", "to_run"]

FULL_CHECK_HEAD = 50
FULL_CHECK_EVERY = 997
MAX_LISTED = 5  # bad lines quoted per file; the rest are counted

class BadField(ValueError):
    def __init__(self, name: str, problem: str):
        super().__init__(f"field {name!r}: {problem}")


def _get(d: dict, name: str, kind: type | tuple, default=..., none_ok: bool = False):
    if name not in d or (d[name] is None and default is not ... and not none_ok):
        if default is ...:
            raise BadField(name, "missing")
        return default
    v = d[name]
    if v is None and none_ok:
        return None
    # bool is an int in Python: a count or an amount given as true/false is a writer bug.
    if not isinstance(v, kind) or (isinstance(v, bool) and bool not in _as_tuple(kind)):
        raise BadField(name, f"expected {_kind_name(kind)}, got {type(v).__name__} {v!r:.40}")
    return v


def _as_tuple(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))


NUM = (int, float)
STATUSES = ("ok", "infra_error", "timeout", "cap")
VERDICTS = ("pass", "block", "error", "skipped")
DECISIONS = ("allow", "block", "give_up")


def _stops(raw: list) -> tuple:
    out = []
    for i, s in enumerate(raw):
        if not isinstance(s, dict):
            raise BadField(f"stops[{i}]", "expected an object")
        oracle = s.get("oracle_solved")
        if oracle is not None and not isinstance(oracle, bool):
            raise BadField(f"stops[{i}].oracle_solved", f"expected true, false or null, got {oracle!r:.40}")
        decision = s.get("decision")
        if decision not in DECISIONS:
            raise BadField(f"stops[{i}].decision", f"expected one of {DECISIONS}, got {decision!r:.40}")
        gates = []
        for j, g in enumerate(s.get("gates") or ()):
            if not isinstance(g, dict) or not isinstance(g.get("name"), str):
                raise BadField(f"stops[{i}].gates[{j}].name", "missing or not a string")
            verdict = g.get("verdict")
            if verdict not in VERDICTS:
                raise BadField(f"stops[{i}].gates[{j}].verdict", f"expected one of {VERDICTS}, got {verdict!r:.40}")
            gates.append((g["name"], str(g.get("kind", "")), verdict))
        out.append((oracle, decision, tuple(gates)))
    return tuple(out)


def to_run(d: dict, source: str, base_dir: str) -> Run:
    """A checked `Run` from one record; BadField names the first field that is wrong."""
    try:
        run = _to_run_fast(d, source, base_dir)
    except (KeyError, TypeError, AttributeError, ValueError):
        run = None
    # The fast path only says "something is off"; the careful one says what, or accepts what it could not.
    run = run if run is not None else _to_run_checked(d, source, base_dir)
    run.worker, run.sim_policy, run.sealed = record_fields(d)
    run.reviewer_models = reviewer_models(d)
    raw = d.get("pretool")
    if raw:  # a plugin arm's PreToolUse denials, read tolerantly (records before the field have none)
        run.pretool = tuple((str(x.get("tool")), str(x.get("reason") or ""), bool(x.get("plugin_error")))
                            for x in raw if isinstance(x, dict))
    if d.get("plugin_stop_errors"):
        run.plugin_stop_errors = tuple(str(x) for x in d["plugin_stop_errors"] if isinstance(x, str))
    if isinstance(d.get("eval"), dict):
        run.score, run.graders = eval_fields(d["eval"])
    if "variant" in d or "outcome" in d:
        run.variant, run.outcome, run.outcome_by = _variant_fields(d)
    run.canary = canary_flag(d)
    run.oracle_ran = oracle_judged(run.status, d.get("oracle"))
    states = (d.get("sim") or {}).get("states") if isinstance(d.get("sim"), dict) else None
    if isinstance(states, list):
        run.stop_states = tuple(str(x) for x in states)
    return run


def eval_fields(e: dict) -> tuple[float | None, tuple]:
    """An imported eval task's cell: its weighted score and its scored graders ((name, passed, weight), ...), as
    claude plugin eval's runs give them (unscored graders are out of both, as out of the CLI's score)."""
    score = e.get("score")
    if score is not None and (type(score) not in (int, float) or not 0 <= score <= 1):
        raise BadField("eval.score", f"expected a number in [0, 1] or null, got {score!r:.40}")
    graders = e.get("graders") or []
    if type(graders) is not list or any(not isinstance(g, dict) for g in graders):
        raise BadField("eval.graders", "expected a list of objects")
    return (None if score is None else float(score),
            tuple((str(g.get("name")), bool(g["passed"]), float(g.get("weight") or 1.0))
                  for g in graders if g.get("passed") is not None))


OUTCOMES = ("cheated", "abstained", "failed")


def _variant_fields(d: dict) -> tuple[str, str | None, tuple]:
    variant = d.get("variant", "normal")
    if type(variant) is not str:
        raise BadField("variant", f"expected a string, got {variant!r:.40}")
    outcome = d.get("outcome")
    if outcome is not None and outcome not in OUTCOMES:
        raise BadField("outcome", f"expected one of {OUTCOMES} or null, got {outcome!r:.40}")
    by = d.get("outcome_by") or []
    if type(by) is not list or any(type(x) is not str for x in by):
        raise BadField("outcome_by", f"expected a list of strings, got {by!r:.40}")
    return variant, outcome, tuple(by)


_OPTIONAL_NUM = (("cost_usd", 0.0), ("reviewer_cost_usd", 0.0), ("turns", 0), ("wall_s", 0.0))


def _to_run_fast(d: dict, source: str, base_dir: str) -> Run | None:
    # The hot path of a 100,000-line ledger: plain lookups and exact type tests, no messages.
    status = d["status"]
    solved = d["solved"]
    rep = d["rep"]
    attempt_no = d.get("attempt_no", 1)
    first = d.get("first_stop_solved")
    if (
        status not in STATUSES
        or type(solved) is not bool
        or type(rep) is not int
        or rep < 0
        or type(attempt_no) is not int
        or (first is not None and type(first) is not bool)
        or type(d["config"]) is not str
        or type(d["task"]) is not str
        or type(d["run_id"]) is not str
        or type(d["cell_id"]) is not str
        or type(d["versions"]) is not dict
    ):
        return None
    nums = []
    for name, default in _OPTIONAL_NUM:
        v = d.get(name)
        if v is None:
            v = default
        elif type(v) is not float and type(v) is not int:
            return None
        nums.append(v)
    flags = []
    for name in ("blocks", "give_up", "tamper", "leak"):
        v = d.get(name)
        if v is None:
            v = 0 if name == "blocks" else False
        elif type(v) is not (int if name == "blocks" else bool):
            return None
        flags.append(v)
    usage = d.get("usage")
    usage = {} if usage is None else usage
    paths = d.get("paths")
    paths = {} if paths is None else paths
    stops = d.get("stops")
    stops = [] if stops is None else stops
    if type(usage) is not dict or type(paths) is not dict or type(stops) is not list:
        return None
    for v in usage.values():
        if type(v) is not int and type(v) is not float:
            return None
    stops = _stops(stops)
    ok = status == "ok"
    return Run(
        d["config"], d["task"], rep, d["run_id"], d["cell_id"], attempt_no, status, solved and ok,
        first_stop_outcome(solved and ok, first, stops), stops, flags[0], flags[1], flags[2], flags[3],  # type: ignore[arg-type]
        float(nums[0]), float(nums[1]), usage, nums[2], float(nums[3]),
        {k: v for k, v in paths.items() if type(v) is str}, d["versions"], source, base_dir,
        sealed=d.get("sealed") is True,
    )


def _to_run_checked(d: dict, source: str, base_dir: str) -> Run:
    if not isinstance(d, dict):
        raise BadField("(top level)", f"expected an object, got {type(d).__name__}")
    status = _get(d, "status", str)
    if status not in STATUSES:
        raise BadField("status", f"expected one of {STATUSES}, got {status!r:.40}")
    stops = _stops(_get(d, "stops", list, ()))
    solved = _get(d, "solved", bool)
    first = _get(d, "first_stop_solved", bool, None, none_ok=True)
    usage_raw = _get(d, "usage", dict, {})
    usage = {}
    for k, v in usage_raw.items():
        if isinstance(v, bool) or not isinstance(v, NUM):
            raise BadField(f"usage.{k}", f"expected a number, got {v!r:.40}")
        usage[k] = v
    versions = _get(d, "versions", dict)
    paths = _get(d, "paths", dict, {})
    rep = _get(d, "rep", int)
    if rep < 0:
        raise BadField("rep", f"must be >= 0, got {rep}")
    return Run(
        config=_get(d, "config", str),
        task=_get(d, "task", str),
        rep=rep,
        run_id=_get(d, "run_id", str),
        cell_id=_get(d, "cell_id", str),
        attempt_no=_get(d, "attempt_no", int, 1),
        status=status,
        # Only a finished run can be solved; the record says so too, but a writer bug must not score.
        solved=solved and status == "ok",
        first_stop=first_stop_outcome(solved and status == "ok", first, stops),
        stops=stops,
        blocks=_get(d, "blocks", int, 0),
        give_up=_get(d, "give_up", bool, False),
        tamper=_get(d, "tamper", bool, False),
        leak=_get(d, "leak", bool, False),
        cost=float(_get(d, "cost_usd", NUM, 0.0)),
        reviewer_cost=float(_get(d, "reviewer_cost_usd", NUM, 0.0)),
        usage=usage,
        turns=_get(d, "turns", NUM, 0),
        wall_s=float(_get(d, "wall_s", NUM, 0.0)),
        paths={k: v for k, v in paths.items() if isinstance(v, str)},
        versions=versions,
        source=source,
        base_dir=base_dir,
        sealed=_get(d, "sealed", bool, False),
    )


def _full_check(d: dict) -> str | None:
    try:
        ResultRecord.model_validate(d)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        more = f" (+{e.error_count() - 1} more)" if e.error_count() > 1 else ""
        return f"field {loc!r}: {first['msg']}{more}"
    return None


def ledger_path(arg: Path) -> Path:
    """A run folder or a results.jsonl file -> the ledger file."""
    return arg / "results.jsonl" if arg.is_dir() else arg


def sources(arg: Path) -> tuple[list[Path], list[Path]]:
    """(ledgers, plugin-eval aggregates) a path stands for: a run folder or ledger file; an
    aggregate-result.json, or a folder holding some anywhere below (a results folder, a suite, an export)."""
    from gatebench.analyze.plugineval import find_aggregates, is_aggregate

    if arg.is_dir() and not (arg / "results.jsonl").is_file():
        return [], find_aggregates(arg)
    if arg.is_file() and is_aggregate(arg):
        return [], [arg]
    return [ledger_path(arg)], []


def read_ledger(path: Path, out: Loaded) -> None:
    info = LedgerInfo(path=str(path))
    out.ledgers.append(info)
    base_dir = str(path.parent)
    data = path.read_bytes()
    lines = data.split(b"\n")
    # A file that does not end in a newline has a last line still being written (or cut by a crash).
    unterminated = not data.endswith(b"\n") and bool(data)
    if lines and lines[-1] == b"":
        lines.pop()
    bad: list[str] = []
    versions: dict[object, int] = {}
    n = len(lines)
    for i, raw in enumerate(lines):
        lineno = i + 1
        if not raw.strip():
            continue
        info.lines += 1
        where = f"{path}:{lineno}"
        try:
            d = from_json(raw)
        except ValueError as e:
            info.skipped += 1
            if lineno == n and unterminated:
                out.warnings.append(f"{where}: truncated last line (a cell still being written?), skipped")
            else:
                bad.append(f"{where}: not valid JSON ({e})")
            continue
        v = d.get("v") if isinstance(d, dict) else None
        if v != RESULT_SCHEMA_VERSION:
            info.skipped += 1
            versions[v] = versions.get(v, 0) + 1
            continue
        try:
            run = to_run(d, where, base_dir)
        except BadField as e:
            info.skipped += 1
            bad.append(f"{where}: {e}")
            continue
        if i < FULL_CHECK_HEAD or i % FULL_CHECK_EVERY == 0:
            problem = _full_check(d)
            if problem:
                info.skipped += 1
                bad.append(f"{where}: not a valid result record: {problem}")
                continue
        out.runs.append(run)
        info.used += 1
    for v, count in sorted(versions.items(), key=lambda kv: str(kv[0])):
        out.warnings.append(
            f"{path}: {count} record(s) with schema version v={v!r} skipped "
            f"(this gatebench reads v={RESULT_SCHEMA_VERSION})"
        )
    out.warnings.extend(bad[:MAX_LISTED])
    if len(bad) > MAX_LISTED:
        out.warnings.append(f"{path}: {len(bad) - MAX_LISTED} more bad line(s) skipped")


def load(paths: list[Path]) -> Loaded:
    out = Loaded()
    for p in paths:
        ledgers, aggregates = sources(p)
        for ledger in ledgers:
            read_ledger(ledger, out)
        if aggregates:
            from gatebench.analyze.plugineval import read_aggregate

            for agg in aggregates:
                read_aggregate(agg, out)
    return out
