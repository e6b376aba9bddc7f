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


def path_pattern(pairs: list[tuple[str, str]]):
    """One compiled alternation of path prefixes (each as given and with links resolved), longest first.

    The longest prefix at a position wins, so a path inside the work copy keeps the work copy's own
    name even when the work copy lies inside a folder that is private (a bench cell under runs/).
    Returns (pattern, {prefix: replacement}); the pattern is None when there is nothing to replace.
    """
    import os
    import re

    repl: dict[str, str] = {}
    for prefix, to in pairs:
        for p in dict.fromkeys([os.path.normpath(prefix), os.path.realpath(prefix)]):
            if p and p != "/" and p not in repl:
                repl[p] = to
    if not repl:
        return None, repl
    alts = sorted(repl, key=len, reverse=True)
    # a prefix matches only as whole path segments: /a/hidden must not eat /a/hidden2 nor /a/hidden.old
    return re.compile("(" + "|".join(re.escape(p) for p in alts) + r")(?![\w.-])"), repl


def scrub_paths(text: str, pairs: list[tuple[str, str]]) -> str:
    """`text` with every private path prefix of `pairs` replaced by its stand-in (see path_pattern)."""
    if not text:
        return text
    pattern, repl = path_pattern(pairs)
    return pattern.sub(lambda m: repl[m.group(1)], text) if pattern else text
