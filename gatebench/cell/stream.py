"""Metrics from `claude -p --output-format stream-json --verbose` stdout (one JSON event per line).

The CLI prints one `assistant` event per content block, each repeating the message_start usage
(output_tokens 1), so tokens are never summed from these events: the final `result` event carries
the CLI's own totals, and the transcript gives usage per message id (transcript.py).
"""

from __future__ import annotations

STOP_FEEDBACK = "Stop hook feedback:"


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def tool_uses(events: list[dict]) -> list[dict]:
    """Every tool call once ({id, name, input}), in order; assistant events repeat per block, ids dedupe."""
    seen, out = set(), []
    for e in events:
        if e.get("type") != "assistant" or not isinstance(e.get("message"), dict):
            continue
        for b in _blocks(e["message"]):
            if b.get("type") == "tool_use" and b.get("id") not in seen:
                seen.add(b.get("id"))
                out.append({"id": b.get("id"), "name": str(b.get("name")), "input": b.get("input") or {}})
    return out


def tool_errors(events: list[dict]) -> int:
    seen = set()
    for e in events:
        if e.get("type") != "user" or not isinstance(e.get("message"), dict):
            continue
        for b in _blocks(e["message"]):
            if b.get("type") == "tool_result" and b.get("is_error"):
                seen.add(b.get("tool_use_id"))
    return len(seen)


def stream_metrics(events: list[dict]) -> dict:
    init = next((e for e in events if e.get("type") == "system" and e.get("subtype") == "init"), {})
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    calls = tool_uses(events)
    by_name: dict[str, int] = {}
    for c in calls:
        by_name[c["name"]] = by_name.get(c["name"], 0) + 1
    message_ids = {e["message"].get("id") for e in events
                   if e.get("type") == "assistant" and isinstance(e.get("message"), dict)}
    blocks = sum(1 for e in events if e.get("type") == "user" and e.get("isSynthetic")
                 and isinstance(e.get("message"), dict)
                 and any(STOP_FEEDBACK in b.get("text", "") for b in _blocks(e["message"])))
    notes = [e.get("key") for e in events if e.get("type") == "system" and e.get("subtype") == "notification"]
    return {
        "session_id": init.get("session_id") or (result or {}).get("session_id"),
        "model": init.get("model"),
        "cli_version": init.get("claude_code_version"),
        "result": result,
        "tool_calls": by_name,
        "tool_inputs": calls,
        "tool_errors": tool_errors(events),
        "api_requests": len(message_ids - {None}),
        "blocks_seen": blocks,
        "api_retries": sum(1 for e in events if e.get("type") == "system" and e.get("subtype") == "api_retry"),
        "block_cap_hit": "stop-hook-block-cap" in notes,
    }
