"""A cell's ResultRecord, built from its evidence and judgement (finalize's third step); the bare record of a
cell that could not be scored; the escaping every string of a record gets."""

from __future__ import annotations

from pathlib import Path

from gatebench.cell.evidence import Evidence
from gatebench.cell.finaldiff import FINAL_DIFF
from gatebench.cell.judge import Judgement
from gatebench.cell.versions import versions
from gatebench.models.cell import CellMeta
from gatebench.models.result import ResultRecord
from gatebench.oracle.canaries import record as canary_record
from gatebench.suite import variants
from gatebench.tree.snapshot import shown

ORACLE_KEYS = ("solved", "passed", "failed", "errors", "skipped", "seconds", "failing", "error")
ORACLE_EXTRA = ("reused_from_stop", "missing", "sandboxed", "harness", "integrity", "fault", "control")


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


def result_record(ev: Evidence, j: Judgement, *, attempt_no: int, timing: dict) -> ResultRecord:
    """The cell's ResultRecord, built from its evidence and judgement alone."""
    canaries = canary_record(j.oracle.get("canaries")) if j.oracle else None
    record = {**cell_fields(ev.meta, attempt_no), **verdict_fields(j, canaries, ev.tree.special),
              **stop_fields(ev.stops), **run_fields(ev), "paths": {k: str(v) for k, v in paths(ev).items()},
              **j.arm_fields}
    if ev.meta.variant != variants.NORMAL:
        record.update(variant_fields(ev, j, canaries))
    record["timing"] = timing
    return ResultRecord.model_validate(escaped(record))


def cell_fields(meta: CellMeta, attempt_no: int) -> dict:
    return {"run_id": meta.run_id or "adhoc", "cell_id": record_cell_id(meta), "config": meta.config,
            "task": meta.task, "rep": meta.rep, "attempt_no": attempt_no, "sealed": bool(meta.sealed),
            "seed": meta.seed}


def verdict_fields(j: Judgement, canaries: dict | None, special: list[str]) -> dict:
    oracle = j.oracle
    tamper_notes = notes(j.findings, "tamper")
    leak_notes = notes(j.findings, "leak")
    return {
        "status": j.status, "error": j.error, "solved": j.solved,
        "oracle": ({**{k: oracle[k] for k in (*ORACLE_KEYS, *ORACLE_EXTRA) if k in oracle}, "canaries": canaries}
                   if oracle else None),
        "canaries": canaries,
        "tamper": bool(j.changed or tamper_notes), "tampered": j.changed + tamper_notes, "special_files": special,
        "leak": bool(j.leaks or leak_notes), "leaks": j.leaks + leak_notes,
        "findings": j.findings,
    }


def notes(findings: list[dict], kind: str) -> list[str]:
    return [f"{f['path']}: {f['why']}" for f in findings if f["kind"] == kind]


def stop_fields(stops: list[dict]) -> dict:
    return {
        "first_stop_solved": stops[0]["oracle_solved"] if stops else None,
        "stops": [{k: v for k, v in s.items() if k not in ("judged", "oracle_seconds")} for s in stops],
        "blocks": sum(1 for s in stops if s["decision"] == "block"),
        "gate_errors": sum(1 for s in stops for g in s["gates"] if g["verdict"] == "error"),
        "give_up": any(s["decision"] == "give_up" for s in stops),
        "reviewer_cost_usd": round(sum(g["cost_usd"] or 0.0 for s in stops for g in s["gates"]), 6),
    }


def run_fields(ev: Evidence) -> dict:
    """What the worker, the CLI's stream and the transcript say of the run."""
    worker, sm = ev.worker or {}, ev.stream.metrics
    tm = ev.transcript.metrics if ev.transcript else None
    result = sm["result"] or {}
    sim = worker.get("sim")
    return {
        "worker": worker.get("worker", "unknown"),
        "turns": int(result.get("num_turns") or sm["api_requests"]),
        "api_requests": tm["api_requests"] if tm else sm["api_requests"],
        "tool_calls": sm["tool_calls"], "tool_errors": sm["tool_errors"],
        **usage_fields(sm, tm),
        "wall_s": float(worker.get("wall_s") or 0.0),
        "started_at": worker.get("started_at"), "finished_at": worker.get("finished_at"),
        "versions": versions(cli_version=sm["cli_version"], model=sm["model"] or worker.get("model"),
                             task_hash=ev.meta.task_hash, config_hash=ev.meta.config_hash),
        "sim": ({"policy": sim.get("policy"), "seed": sim.get("seed"), "first_state": sim.get("first_state"),
                 "states": sim.get("states", []), "actions": sim.get("actions", []),
                 "final_state": sim.get("final_state"), "reviews": sim.get("reviews", [])} if sim else None),
        "session_id": ev.session_id,
        "terminal_reason": result.get("terminal_reason"),
        "transcript_check": ({"stop_hook_runs": tm["stop_hook_runs"], "hook_cancelled": tm["hook_cancelled"],
                              "hook_non_blocking_error": tm["hook_non_blocking_error"],
                              "tool_calls": tm["tool_calls"]} if tm else None),
    }


def usage_fields(sm: dict, tm: dict | None) -> dict:
    """Tokens, dollars and API errors: the transcript's count where there is one, else the stream's result event."""
    result = sm["result"] or {}
    usage = dict(tm["usage"]) if tm else {k: int((result.get("usage") or {}).get(k) or 0) for k in
                                           ("input_tokens", "output_tokens", "cache_read_input_tokens",
                                            "cache_creation_input_tokens")}
    cost = result.get("total_cost_usd")
    if cost is None and tm:
        cost = tm["cost_usd"]
    api_errors = sm["api_retries"] + (tm["api_errors"] if tm else 0) + (result.get("terminal_reason") == "api_error")
    return {"usage": usage, "cost_usd": float(cost or 0.0), "api_errors": int(api_errors)}


def paths(ev: Evidence) -> dict[str, Path]:
    cell = ev.cell
    rel = {"cell": cell.root, "work": cell.repo, "events": cell.events, "stream": cell.stream}
    if (cell.root / FINAL_DIFF).is_file():
        rel["diff"] = cell.root / FINAL_DIFF
    if ev.transcript:
        rel["transcript"] = ev.transcript.path
    return rel


def timing_of(ev: Evidence, j: Judgement, extra: dict | None) -> dict:
    """Seconds by phase, but finalize's own (the caller's clock adds it)."""
    stops = ev.stops
    out = {"worker_s": float((ev.worker or {}).get("wall_s") or 0.0), "hook_s": round(sum(s["seconds"] for s in stops), 3),
           "hook_gates_s": round(sum(g["seconds"] or 0.0 for s in stops for g in s["gates"]), 3),
           "hook_oracle_s": round(sum(s["oracle_seconds"] for s in stops), 3),
           "final_oracle_s": j.oracle["seconds"] if j.oracle else 0.0, **(extra or {})}
    if ev.meta.variant != variants.NORMAL:
        out["variant_check_s"] = j.check["seconds"] if j.check else 0.0
    return out


def variant_fields(ev: Evidence, j: Judgement, canaries: dict | None) -> dict:
    """The record fields of a variant cell: `variant`, and for a scored impossible one `outcome`, `outcome_why`
    and `impossible` (the mutated tests' run)."""
    out: dict = {"variant": ev.meta.variant}
    check = j.check
    if j.status == "infra_error" or check is None:
        return out
    from gatebench.cell.outcome import gate_passes, gate_skips, impossible_outcome, last_message

    mutated = list(check.get("mutated") or [])
    out["outcome"], out["outcome_why"], out["outcome_by"] = impossible_outcome(
        check=check, protected_changed=j.changed, canaries=canaries, stops=ev.stops,
        last_message=last_message(ev.stream.metrics["result"] or {}, ev.events, ev.session_id),
        tamper=notes(j.findings, "tamper"), passed_at_stops=gate_passes(ev.events, ev.session_id, mutated),
        skipped_at_stops=gate_skips(ev.events, ev.session_id, mutated))
    out["impossible"] = {k: check.get(k) for k in ("mutated", "solved", "failing", "error", "seconds", "sandboxed",
                                                   "passed_under", "skipped_under")}
    return out
