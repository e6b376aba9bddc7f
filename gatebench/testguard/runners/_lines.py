"""Results read from a runner's own output lines (runners whose report needs no flag)."""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def plain(output: str) -> list[str]:
    return [ANSI.sub("", ln).rstrip() for ln in output.splitlines()]


def collect(output: str, patterns: list[tuple[re.Pattern, str]]) -> list[dict] | None:
    out = []
    for ln in plain(output):
        for pat, outcome in patterns:
            m = pat.match(ln)
            if m:
                out.append({"id": m.group("id").strip(), "outcome": outcome})
                break
    return out or None


def first_each(found: list[dict] | None) -> list[dict] | None:
    """Each id's first outcome, in order: a runner's summary repeats the failing tests after the run."""
    if found is None:
        return None
    seen: dict[str, dict] = {}
    for r in found:
        seen.setdefault(r["id"], r)
    return list(seen.values())
