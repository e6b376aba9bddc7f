"""Output formats for a Summary."""

from __future__ import annotations

from logsum.summary import Summary


def render_text(summary: Summary, top: int) -> str:
    if not summary.requests:
        return f"no requests (skipped: {summary.skipped})\n"
    lines = [
        f"requests: {summary.requests}",
        f"bytes: {summary.bytes}",
        f"skipped: {summary.skipped}",
        "status:",
    ]
    lines += [f"  {code}  {count}" for code, count in sorted(summary.status.items())]
    lines.append("top paths:")
    lines += [f"  {count:>5}  {path}" for path, count in summary.top_paths(top)]
    return "\n".join(lines) + "\n"
