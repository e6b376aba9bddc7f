"""cargo test / cargo nextest: their result lines (`test a::b ... ok|FAILED|ignored`; nextest's
`PASS [0.01s] crate a::b`), command left as it is. Only `tests/` files are restored to run the
originals: inline `#[cfg(test)]` modules live in source files, whose baseline would undo the fix."""

from __future__ import annotations

import re

from gatebench.testguard.runners import _lines

NAME = "cargo"
SOURCE = False
PATTERNS = [
    (re.compile(r"^test (?P<id>\S+) \.\.\. ok$"), "passed"),
    (re.compile(r"^test (?P<id>\S+) \.\.\. FAILED$"), "failed"),
    (re.compile(r"^test (?P<id>\S+) \.\.\. ignored(?:, .*)?$"), "skipped"),
    (re.compile(r"^\s*PASS \[\s*[\d.]+s\] (?P<id>.+)$"), "passed"),
    (re.compile(r"^\s*(?:FAIL|SIGSEGV|SIGABRT|TIMEOUT) \[\s*[\d.]+s\] (?P<id>.+)$"), "failed"),
    (re.compile(r"^\s*SKIP \[\s*[\d.]+s\] (?P<id>.+)$"), "skipped"),
]


def detect(words: list[str]) -> bool:
    return words[:1] == ["cargo"] and len(words) > 1 and words[1] in ("test", "nextest", "t")


def is_test_file(rel: str) -> bool:
    return rel.endswith(".rs") and rel.split("/")[0] == "tests"


def prepare(command: str, report: str, last: str) -> tuple[str, dict]:
    return command, {}


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    return _lines.first_each(_lines.collect(output, PATTERNS))  # nextest repeats failing tests in its summary
