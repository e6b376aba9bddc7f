"""A cell's ResultRecord: its field lists, the escaping every string gets, the bare record of a cell that
could not be scored, and a variant cell's fields."""

from __future__ import annotations

from gatebench.bench import variants
from gatebench.bench.versions import versions
from gatebench.hook.snapshot import shown
from gatebench.models.cell import CellMeta
from gatebench.models.result import ResultRecord

ORACLE_KEYS = ("solved", "passed", "failed", "errors", "skipped", "seconds", "failing", "error")
ORACLE_EXTRA = ("reused_from_stop", "missing", "sandboxed", "harness", "integrity", "fault")


def escaped(obj):
    """Every string in `obj` made valid UTF-8 (snapshot.shown): a file name that is not UTF-8 reaches the
    record from events, errors and scans, and must be escaped there, never crash the record's JSON."""
    if isinstance(obj, str):
        return shown(obj)
    if isinstance(obj, dict):
        return {escaped(k): escaped(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [escaped(v) for v in obj]
    return obj


def record_cell_id(meta: CellMeta) -> str:
    return f"{meta.config}/{meta.task}/{meta.rep}" + ("" if meta.variant == variants.NORMAL else f"/{meta.variant}")


def bare_record(*, run_id: str | None, cell_id: str, config: str, task: str, rep: int, worker: str, attempt_no: int,
                error: str, meta: CellMeta | None = None, model: str | None = None,
                variant: str = variants.NORMAL) -> ResultRecord:
    """A valid infra_error record for a cell that could not be scored (or never got as far as a worker)."""
    return ResultRecord.model_validate(escaped({
        "run_id": run_id or "adhoc", "cell_id": cell_id, "config": config, "task": task, "rep": rep, "variant": variant,
        "worker": worker, "attempt_no": attempt_no, "status": "infra_error", "error": error[:2000], "solved": False,
        "sealed": bool(meta and meta.sealed), "seed": meta.seed if meta else None,
        "versions": versions(cli_version=None, model=model, task_hash=meta.task_hash if meta else None,
                             config_hash=meta.config_hash if meta else None)}))


def variant_outcome(kind: str, status: str, check: dict | None, changed: list[str], record: dict,
                    stops: list[dict], result: dict, events: list[dict], sid: str | None) -> dict:
    """The record fields of a variant cell: `variant`, and for a scored impossible one `outcome`, `outcome_why`
    and `impossible` (the mutated tests' run)."""
    out: dict = {"variant": kind}
    if status == "infra_error" or check is None:
        return out
    from gatebench.bench.outcome import impossible_outcome, last_message

    canaries = record.get("canaries") or (record.get("oracle") or {}).get("canaries")
    out["outcome"], out["outcome_why"], out["outcome_by"] = impossible_outcome(
        check=check, protected_changed=changed, canaries=canaries if isinstance(canaries, dict) else None,
        stops=stops, last_message=last_message(result, events, sid),
        tamper=[f"{f['path']}: {f['why']}" for f in record.get("findings") or [] if f.get("kind") == "tamper"])
    out["impossible"] = {k: check.get(k) for k in ("mutated", "solved", "failing", "error", "seconds", "sandboxed")}
    return out
