"""Vitest: its json reporter beside the default one, appended when vitest is the last command."""

from __future__ import annotations

from gatebench.hook.runners import _js, _jsonreport

NAME = "vitest"
SOURCE = True
is_test_file = _js.is_test_file


def detect(words: list[str]) -> bool:
    return _js.named(words, "vitest")


def prepare(command: str, report: str, last: bool) -> tuple[str, dict] | None:
    if not last:
        return None
    return f"{command} --reporter=default --reporter=json --outputFile.json={report}", {}


def results(report: str, output: str) -> list[dict] | None:
    return _jsonreport.read(report)
