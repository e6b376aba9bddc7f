"""ava: its default reporter lists every test (`✔ title`, `✘ [fail]: title`, `- [skip] title`), so the
results come from the output lines and the command is left as it is."""

from __future__ import annotations

import re

from gatebench.testguard.runners import _js, _lines

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
    """With several files ava prefixes each title with its file (`a › adds` for test/a.js): the id is then
    `a::adds`, the results check matching `a` to the file's path without its extension."""
    found = _lines.collect(output, PATTERNS)
    for r in found or []:
        *stem, title = r["id"].split(" › ")
        if stem:
            r["id"] = f"{'/'.join(stem)}::{title}"
    return found
