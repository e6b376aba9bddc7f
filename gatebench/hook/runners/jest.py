"""Jest: `--json --outputFile=REPORT`, appended when jest is the last command of the line."""

from __future__ import annotations

from gatebench.hook.runners import _js, _jsonreport

NAME = "jest"
SOURCE = True
is_test_file = _js.is_test_file


def detect(words: list[str]) -> bool:
    return _js.named(words, "jest")


def prepare(command: str, report: str, last: bool) -> tuple[str, dict] | None:
    return (f"{command} --json --outputFile={report}", {}) if last else None


def results(report: str, output: str) -> list[dict] | None:
    return _jsonreport.read(report)
