"""ava: its default reporter lists every test (`✔ title`, `✘ [fail]: title`, `- [skip] title`), so the
results come from the output lines and the command is left as it is."""

from __future__ import annotations

import re

from gatebench.hook.runners import _js, _lines

NAME = "ava"
SOURCE = True
is_test_file = _js.is_test_file
_TIME = r"(?:\s+\(\d+(?:\.\d+)?m?s\))?$"
PATTERNS = [
    (re.compile(r"^\s*✔ \[expected fail\] (?P<id>.+?)" + _TIME), "skipped"),
    (re.compile(r"^\s*✔ (?P<id>.+?)" + _TIME), "passed"),
    (re.compile(r"^\s*✘ \[fail\]: (?P<id>.+?)(?:\s{2,}.*)?$"), "failed"),
    (re.compile(r"^\s*- \[(?:skip|todo)\] (?P<id>.+)$"), "skipped"),
]


def detect(words: list[str]) -> bool:
    return _js.named(words, "ava")


def prepare(command: str, report: str, last: str) -> tuple[str, dict]:
    return command, {}


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    return _lines.collect(output, PATTERNS)
