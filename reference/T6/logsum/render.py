"""Output formats for a Summary."""

from __future__ import annotations

import json

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


def render_json(summary: Summary, top: int) -> str:
    """One JSON object: the same numbers as the text format, for scripts and dashboards."""
    data = {
        "requests": summary.requests,
        "bytes": summary.bytes,
        "skipped": summary.skipped,
        # JSON object keys are strings; sorted by code as in the text output.
        "status": {str(code): count for code, count in sorted(summary.status.items())},
        "top_paths": [{"path": path, "count": count} for path, count in summary.top_paths(top)],
    }
    return json.dumps(data, indent=2) + "\n"
