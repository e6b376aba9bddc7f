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
    return _lines.first_each(_lines.collect(output, PATTERNS))  # the failure list repeats the failing titles
