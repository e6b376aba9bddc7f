"""mocha: the spec reporter's lines (`✔ title`, `1) title`, `- title`), command left as it is."""

from __future__ import annotations

import re

from gatebench.hook.runners import _js, _lines

NAME = "mocha"
SOURCE = True
is_test_file = _js.is_test_file
PATTERNS = [
    (re.compile(r"^\s+[✓✔] (?P<id>.+?)(?:\s+\(\d+ms\))?$"), "passed"),
    (re.compile(r"^\s+\d+\) (?P<id>.+)$"), "failed"),
    (re.compile(r"^\s+- (?P<id>.+)$"), "skipped"),
]


def detect(words: list[str]) -> bool:
    return _js.named(words, "mocha")


def prepare(command: str, report: str, last: bool) -> tuple[str, dict]:
    return command, {}


def results(report: str, output: str) -> list[dict] | None:
    found = _lines.collect(output, PATTERNS)
    if found is None:
        return None
    # the failure list after the summary repeats the failing titles: keep each id's first outcome
    seen: dict[str, dict] = {}
    for r in found:
        seen.setdefault(r["id"], r)
    return list(seen.values())
