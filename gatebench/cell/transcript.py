"""Metrics from a Claude Code session transcript (`$HOME/.claude/projects/<cwd>/<session>.jsonl`).

Assistant records are one per content block; blocks of one API response share `message.id` and
repeat its final usage, so usage is taken once per message id.
"""

from __future__ import annotations

from pathlib import Path

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def find_transcript(home: Path, session_id: str | None) -> Path | None:
    projects = home / ".claude" / "projects"
    if session_id:
        hits = sorted(projects.glob(f"*/{session_id}.jsonl"))
        if hits:
            return hits[0]
    hits = sorted(projects.glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
    return hits[-1] if hits else None


def transcript_metrics(records: list[dict]) -> dict:
    usage_by_id: dict[str, dict] = {}
    tool_ids = set()
    for r in records:
        if r.get("type") != "assistant" or r.get("isSidechain"):
            continue
        msg = r.get("message") if isinstance(r.get("message"), dict) else {}
        mid = msg.get("id")  # type: ignore[union-attr]
        if mid and isinstance(msg.get("usage"), dict):  # type: ignore[union-attr]
            usage_by_id[mid] = msg["usage"]  # type: ignore[index]  # every record of an id carries the same final usage
        for b in msg.get("content") or []:  # type: ignore[union-attr]
            if isinstance(b, dict) and b.get("type") == "tool_use":
                tool_ids.add(b.get("id"))
    usage = dict.fromkeys(USAGE_KEYS, 0)
    for u in usage_by_id.values():
        for k in USAGE_KEYS:
            v = u.get(k)
            usage[k] += v if isinstance(v, int) else 0
    atts = [r["attachment"].get("type") for r in records
            if r.get("type") == "attachment" and isinstance(r.get("attachment"), dict)]
    summaries = [r for r in records if r.get("type") == "system" and r.get("subtype") == "stop_hook_summary"]
    cost_state = next((r for r in reversed(records) if r.get("type") == "cost-state"), None)
    return {
        "usage": usage,
        "api_requests": len(usage_by_id),
        "tool_calls": len(tool_ids),
        "stop_hook_runs": len(summaries),
        "api_errors": sum(1 for r in records if r.get("type") == "system" and r.get("subtype") == "api_error"),
        "hook_cancelled": atts.count("hook_cancelled"),
        "hook_non_blocking_error": atts.count("hook_non_blocking_error"),
        "cost_usd": (cost_state or {}).get("totalCostUSD"),
    }
