"""Text helpers shared by gates and the decision rule (stdlib only)."""

from __future__ import annotations


def trim(text: str, limit: int) -> str:
    """Keep the head and the tail of `text` within `limit` characters; say what was cut."""
    if len(text) <= limit:
        return text
    marker = "\n[... {} characters cut ...]\n"
    keep = max(limit - len(marker) - 8, 0)
    head = keep * 2 // 3
    tail = keep - head
    return text[:head] + marker.format(len(text) - head - tail) + (text[-tail:] if tail else "")
