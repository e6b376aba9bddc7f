"""mocha: the spec reporter's lines, command left as it is. A test's id is its suite path
(`describe > title`, as the source checks key it), read from the indentation: the reporter indents
each suite two spaces deeper. The failure list after the `N passing` line repeats titles and is not read."""

from __future__ import annotations

import re

from gatebench.testguard.runners import _js, _lines

NAME = "mocha"
SOURCE = True
is_test_file = _js.is_test_file
PATTERNS = [
    (re.compile(r"^(?P<ind>\s+)[✓✔√] (?P<id>.+?)(?:\s+\(\d+ms\))?$"), "passed"),
    (re.compile(r"^(?P<ind>\s+)\d+\) (?P<id>.+)$"), "failed"),
    (re.compile(r"^(?P<ind>\s+)- (?P<id>.+)$"), "skipped"),
]
_SUITE = re.compile(r"^(?P<ind> {2,})(?P<id>\S.*)$")
_SUMMARY = re.compile(r"^\s+\d+ (passing|failing|pending)\b")


def detect(words: list[str]) -> bool:
    return _js.named(words, "mocha")


def prepare(command: str, report: str, last: str) -> tuple[str, dict]:
    return command, {}


def _test(ln: str) -> tuple[int, str, str] | None:
    for pat, outcome in PATTERNS:
        m = pat.match(ln)
        if m:
            return len(m.group("ind")), m.group("id").strip(), outcome
    return None


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    out: list[dict] = []
    suites: list[tuple[int, str]] = []  # (indent, title) of the open describes
    for ln in _lines.plain(output):
        if _SUMMARY.match(ln):
            break
        hit = _test(ln)
        if hit is None:
            m = _SUITE.match(ln)
            if m:
                depth = len(m.group("ind"))
                suites = [s for s in suites if s[0] < depth] + [(depth, m.group("id").strip())]
            continue
        depth, title, outcome = hit
        path = [s[1] for s in suites if s[0] < depth]
        out.append({"id": " > ".join([*path, title]), "outcome": outcome})
    return out or None

