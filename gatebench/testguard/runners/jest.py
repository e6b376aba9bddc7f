"""Jest: `--json --outputFile=REPORT`, placed where jest gets them (after `--` behind `npm test`)."""

from __future__ import annotations

from gatebench.testguard import runners
from gatebench.testguard.runners import _js, _jsonreport, _summary

NAME = "jest"
SOURCE = True
is_test_file = _js.is_test_file


def detect(words: list[str]) -> bool:
    return _js.named(words, "jest")


def prepare(command: str, report: str, last: str) -> tuple[str, dict] | None:
    return (runners.place(command, f"--json --outputFile={report}", last), {}) if last else None


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    """Its JSON report; without one (the flags could not reach it), its own output's failing tests and counts."""
    found = _jsonreport.read(report, root)
    return found if found is not None else _summary.jest(output, root)
