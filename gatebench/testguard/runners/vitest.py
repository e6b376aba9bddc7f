"""Vitest: its json reporter beside the default one, placed where vitest gets them (after `--`
behind `npm test`)."""

from __future__ import annotations

from gatebench.testguard import runners
from gatebench.testguard.runners import _js, _jsonreport, _summary

NAME = "vitest"
SOURCE = True
is_test_file = _js.is_test_file


def detect(words: list[str]) -> bool:
    return _js.named(words, "vitest")


def prepare(command: str, report: str, last: str) -> tuple[str, dict] | None:
    if not last:
        return None
    return runners.place(command, f"--reporter=default --reporter=json --outputFile.json={report}", last), {}


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    """Its JSON report; without one (the flags could not reach it), its own output's failing tests and counts."""
    found = _jsonreport.read(report, root)
    return found if found is not None else _summary.vitest(output, root)
