"""`gatebench finalize`: score a run cell into one ResultRecord (C/result.json).

Reads what the worker left (worker.json, stream.jsonl, the transcript under C/home), the hook's event
log (C/state/events.jsonl), runs the hidden oracle one last time on the final work copy, and scans
for leaks and tampering. Pure reading plus one oracle run: finalizing twice gives the same record
(timestamps aside).

Status (first rule that applies):
  infra_error  no worker.json; the worker could not start or was cut for a reason other than the wall
               cap; the CLI ended without a result event; the API failed; or the agent stopped and the
               hook left no complete event for that stop ("the gate never ran")
  timeout      the wall cap ended the run
  cap          the CLI's turn or dollar cap ended the run
  ok           the agent stopped and every stop was judged by the hook
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from gatebench.cell import CellPaths
from gatebench.cli import UsageError
from gatebench.hook.defaults import DEFAULT_IGNORE
from gatebench.hook.globs import GlobSet
from gatebench.hook.snapshot import compare
from gatebench.hook.state import Paths, read_events
from gatebench.leaks import scan
from gatebench.loading import load_model
from gatebench.metrics.stream import read_jsonl, stream_metrics
from gatebench.metrics.transcript import find_transcript, transcript_metrics
from gatebench.models.cell import CellMeta
from gatebench.models.result import ResultRecord
from gatebench.oracle import run_oracle
from gatebench.paths import project_root
from gatebench.versions import versions

ORACLE_KEYS = ("solved", "passed", "failed", "errors", "skipped", "seconds", "failing", "error")
ORACLE_EXTRA = ("reused_from_stop",)


def stop_records(events: list[dict], session_id: str | None) -> list[dict]:
    """The hook's stop events of this session, as StopRecord dicts, in order."""
    out = []
    for e in events:
        if e.get("hook") != "stop" or (session_id and e.get("session_id") not in (session_id, None)):
            continue
        oracle = e.get("oracle") or {}
        counts = (e.get("diff") or {}).get("counts") or {}
        out.append({
            "attempt": e.get("attempt") or len(out) + 1,
            "decision": e.get("decision") or "allow",
            "gates": [{"name": g.get("name"), "kind": g.get("kind"), "verdict": g.get("verdict"),
                       "seconds": g.get("seconds", 0.0), "cost_usd": g.get("cost_usd", 0.0),
                       **({"error": str((g.get("details") or {}).get("error"))[:300]}
                          if g.get("verdict") == "error" else {})}
                      for g in e.get("gates") or []],
            "oracle_solved": oracle.get("solved") if oracle else None,
            "oracle_error": oracle.get("error") if oracle else None,
            "oracle_seconds": oracle.get("seconds", 0.0) if oracle else 0.0,
            "files_changed": sum(int(v) for v in counts.values()),
            "seconds": e.get("seconds") or 0.0,
            "errors": list(e.get("errors") or []),
            "judged": e.get("diff") is not None,
        })
    return out


def status_of(worker: dict | None, sm: dict, stops: list[dict], stderr_tail: str,
              tm: dict | None = None) -> tuple[str, str | None]:
    if worker is None:
        return "infra_error", "the worker never finished: no worker.json"
    if worker.get("error"):
        return "infra_error", f"the worker could not run: {worker['error']}"
    if worker.get("timed_out"):
        return "timeout", f"stopped by the {worker.get('killed')}"
    if worker.get("killed"):
        return "infra_error", f"the run was cut: {worker['killed']}"
    result = sm["result"]
    if result is None:
        return "infra_error", (f"the CLI exited {worker.get('rc')} without a result event"
                               + (f"; stderr: {stderr_tail}" if stderr_tail else ""))
    subtype, reason = str(result.get("subtype") or ""), str(result.get("terminal_reason") or "")
    if subtype == "error_max_turns" or reason == "max_turns":
        return "cap", "the turn cap ended the run"
    if "budget" in subtype or "budget" in reason:
        return "cap", "the dollar cap ended the run"
    if reason == "api_error" or (result.get("is_error") and subtype == "success"):
        return "infra_error", f"API error: {result.get('api_error_status') or result.get('result') or reason}"
    if result.get("is_error"):
        return "infra_error", f"the CLI ended with an error: {subtype} {result.get('errors')}"
    if tm and (tm["hook_cancelled"] or tm["hook_non_blocking_error"]):
        return "infra_error", (f"the gate never ran: Claude Code reports {tm['hook_cancelled']} hook timeout(s) and "
                               f"{tm['hook_non_blocking_error']} failed hook call(s), which it let through silently")
    agent_stops = sm["blocks_seen"] + 1
    if len(stops) < agent_stops:
        return "infra_error", (f"the gate never ran: the agent stopped {agent_stops} time(s) but the hook "
                               f"logged {len(stops)} stop event(s)")
    broken = [s for s in stops if not s["judged"]]
    if broken:
        return "infra_error", f"the gate never ran at stop {broken[0]['attempt']}: {'; '.join(broken[0]['errors'])[:500]}"
    dead = never_worked(stops)
    if dead:
        name, why = dead
        return "infra_error", f"gate {name} never ran: it errored at every stop ({why})"
    return "ok", None


def never_worked(stops: list[dict]) -> tuple[str, str] | None:
    """(name, error) of a gate that errored at every stop where it was not skipped: the config ran without it.

    A gate that errs now and then is the gate's own behaviour and is scored (on_error decides); one
    that never once judged means the cell measured another config than the one it names.
    """
    verdicts: dict[str, list[dict]] = {}
    for s in stops:
        for g in s["gates"]:
            if g["verdict"] != "skipped":
                verdicts.setdefault(g["name"], []).append(g)
    for name, gs in verdicts.items():
        if gs and all(g["verdict"] == "error" for g in gs):
            return name, gs[-1].get("error") or "no detail"
    return None


def tampered(repo: Path, state: Path, resolved: dict) -> list[str]:
    """Protected paths (tests, hook settings, ...) whose content differs from the baseline."""
    paths = Paths(str(state))
    d = compare(str(repo), GlobSet(resolved.get("ignore") or []), paths.baseline, paths.blobs).diff
    protected = GlobSet(resolved.get("protected") or [])
    return [p for p in d.paths if protected.match(p)]


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def reusable_oracle(cell: CellPaths, resolved: dict, events: list[dict], session_id: str | None) -> dict | None:
    """The last stop's oracle result, if the work copy is byte for byte what that stop judged; else None.

    Each bench-mode stop event carries the hash of the tree the hook walked (`snapshot.tree`). When
    the work copy hashes the same now, the final oracle would run the same tests on the same files:
    its result is the last stop's. Only when the walk sees what the oracle copies (no task-specific
    ignore globs), and the oracle ran cleanly.
    """
    if list(resolved.get("ignore") or []) != list(DEFAULT_IGNORE):
        return None
    last = next((e for e in reversed(events) if e.get("hook") == "stop" and e.get("session_id") == session_id), None)
    oracle = (last or {}).get("oracle")
    judged = ((last or {}).get("snapshot") or {}).get("tree")
    if not oracle or oracle.get("error") or not isinstance(oracle.get("passed"), int) or not judged:
        return None
    paths = Paths(str(cell.state))
    now = compare(str(cell.repo), GlobSet(resolved.get("ignore") or []), paths.baseline, paths.blobs)
    if now.errors or now.tree_hash() != judged:
        return None
    return {**oracle, "seconds": 0.0, "reused_from_stop": last.get("attempt")}


def finalize(cell: CellPaths, *, attempt_no: int = 1, extra_timing: dict | None = None,
             reuse_oracle: bool = True) -> ResultRecord:
    """Score the cell and write C/result.json. Raises UsageError if `cell` is not a prepared cell."""
    t0 = time.monotonic()
    if not cell.meta.is_file():
        raise UsageError(f"{cell.root}: not a prepared cell (no cell.json)")
    meta = load_model(cell.meta, CellMeta)
    resolved = _read_json(cell.state / "config.json")
    if resolved is None:
        raise UsageError(f"{cell.state / 'config.json'}: missing or not JSON; the cell is damaged, prep it again")
    worker = _read_json(cell.worker)
    events, _bad = read_jsonl(cell.stream)
    sm = stream_metrics(events)
    sid = sm["session_id"] or (worker or {}).get("session_id")
    tpath = find_transcript(cell.home, sid)
    tm = transcript_metrics(read_jsonl(tpath)[0]) if tpath else None
    events_all = read_events(str(cell.events))
    stops = stop_records(events_all, sid)
    stderr_tail = ""
    if (cell.root / "stderr.log").exists():
        stderr_tail = (cell.root / "stderr.log").read_text(errors="replace")[-500:].strip()
    status, error = status_of(worker, sm, stops, stderr_tail, tm)

    o = resolved.get("oracle") or {}
    oracle = reusable_oracle(cell, resolved, events_all, sid) if reuse_oracle else None
    if oracle is None:
        oracle = run_oracle(str(cell.repo), o["hidden_dir"], o["command"], o["dest"], o["timeout_s"],
                            resolved.get("python"))
    changed = tampered(cell.repo, cell.state, resolved)
    private = [Path(meta.hidden_dir), Path(meta.reference_dir), Path(meta.inject_dir), cell.state]
    leaks = scan(sm["tool_inputs"], cell.repo, private, project_root())
    result = sm["result"] or {}
    usage = dict(tm["usage"]) if tm else {k: int((result.get("usage") or {}).get(k) or 0) for k in
                                           ("input_tokens", "output_tokens", "cache_read_input_tokens",
                                            "cache_creation_input_tokens")}
    cost = result.get("total_cost_usd")
    if cost is None and tm:
        cost = tm["cost_usd"]
    api_errors = sm["api_retries"] + (tm["api_errors"] if tm else 0) + (result.get("terminal_reason") == "api_error")
    sim = (worker or {}).get("sim")
    rel = {"cell": cell.root, "work": cell.repo, "events": cell.events, "stream": cell.stream}
    if tpath:
        rel["transcript"] = tpath
    hook_s = sum(s["seconds"] for s in stops)
    hook_oracle_s = sum(s["oracle_seconds"] for s in stops)
    gates_s = sum(g["seconds"] or 0.0 for s in stops for g in s["gates"])
    timing = {"worker_s": float((worker or {}).get("wall_s") or 0.0), "hook_s": round(hook_s, 3),
              "hook_gates_s": round(gates_s, 3),
              "hook_oracle_s": round(hook_oracle_s, 3), "final_oracle_s": oracle["seconds"], **(extra_timing or {})}
    record = {
        "run_id": meta.run_id or "adhoc",
        "cell_id": f"{meta.config}/{meta.task}/{meta.rep}",
        "config": meta.config, "task": meta.task, "rep": meta.rep,
        "worker": (worker or {}).get("worker", "unknown"),
        "attempt_no": attempt_no,
        "status": status, "error": error,
        "solved": status == "ok" and bool(oracle["solved"]) and not changed,
        "oracle": {k: oracle[k] for k in (*ORACLE_KEYS, *ORACLE_EXTRA) if k in oracle},
        "first_stop_solved": stops[0]["oracle_solved"] if stops else None,
        "stops": [{k: v for k, v in s.items() if k not in ("judged", "oracle_seconds")} for s in stops],
        "blocks": sum(1 for s in stops if s["decision"] == "block"),
        "gate_errors": sum(1 for s in stops for g in s["gates"] if g["verdict"] == "error"),
        "give_up": any(s["decision"] == "give_up" for s in stops),
        "tamper": bool(changed), "tampered": changed,
        "leak": bool(leaks), "leaks": leaks,
        "turns": int(result.get("num_turns") or sm["api_requests"]),
        "api_requests": tm["api_requests"] if tm else sm["api_requests"],
        "tool_calls": sm["tool_calls"], "tool_errors": sm["tool_errors"], "api_errors": int(api_errors),
        "usage": usage,
        "cost_usd": float(cost or 0.0),
        "reviewer_cost_usd": round(sum(g["cost_usd"] or 0.0 for s in stops for g in s["gates"]), 6),
        "wall_s": float((worker or {}).get("wall_s") or 0.0),
        "started_at": (worker or {}).get("started_at"), "finished_at": (worker or {}).get("finished_at"),
        "versions": versions(cli_version=sm["cli_version"], model=sm["model"] or (worker or {}).get("model"),
                             task_hash=meta.task_hash, config_hash=meta.config_hash),
        "sim": ({"policy": sim.get("policy"), "seed": sim.get("seed"), "first_state": sim.get("first_state"),
                 "states": sim.get("states", []), "actions": sim.get("actions", []),
                 "final_state": sim.get("final_state"), "reviews": sim.get("reviews", [])} if sim else None),
        "paths": {k: str(v) for k, v in rel.items()},
        "seed": meta.seed,
        "session_id": sid,
        "terminal_reason": result.get("terminal_reason"),
        "transcript_check": ({"stop_hook_runs": tm["stop_hook_runs"], "hook_cancelled": tm["hook_cancelled"],
                              "hook_non_blocking_error": tm["hook_non_blocking_error"],
                              "tool_calls": tm["tool_calls"]} if tm else None),
    }
    timing["finalize_s"] = round(time.monotonic() - t0 - oracle["seconds"], 3)
    record["timing"] = timing
    rec = ResultRecord.model_validate(record)
    tmp = cell.result.with_name(".result.json.tmp")
    tmp.write_text(rec.model_dump_json(indent=1) + "\n")
    tmp.replace(cell.result)
    return rec
