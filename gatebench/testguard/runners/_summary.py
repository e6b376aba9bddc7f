"""Results read from Jest's and Vitest's own default reporter where no report can be asked for (the runner is
not the last command of the line or of its package script, so its report flags cannot reach it).

Their default output names every failing test (Jest's `● A › B` under `FAIL path`, Vitest's `FAIL  path > A > B`)
and counts the rest (`Tests: 1 failed, 2 skipped, 160 passed, 163 total`; `Tests  1 failed | 20 passed | 1
skipped (22)`), summed over every run of the line (`jest --env node && jest --env edge`). So the results are
`Partial`: the failing tests by id, the passing and skipped ones only counted. The results check compares
what they hold (hidden failures, the skipped count) and looks for no removed or never-run test.
"""

from __future__ import annotations

import re

from gatebench.testguard import runners
from gatebench.testguard.runners import _lines

WHY = ("the runner's own output names only its failing tests (no report can be asked for: its flags cannot "
       "reach it): removed and never-run tests are not looked for; failures and the skipped count are compared")


class Partial(list):
    """Failing tests as results (`{"id", "outcome": "failed"}`), with the runner's counts of all outcomes."""

    def __init__(self, failed: list[dict], counts: dict[str, int]):
        super().__init__(failed)
        self.counts = counts
        self.partial = WHY


_JEST_FILE = re.compile(r"^(PASS|FAIL) +(?P<path>\S+)")
_JEST_TEST = re.compile(r"^  ● (?P<id>.+)$")
_JEST_COUNTS = re.compile(r"^Tests: +(?P<counts>.*\d+ total)\s*$")
_VITEST_FAIL = re.compile(r"^ FAIL +(?P<path>\S+) > (?P<id>.+?)\s*$")
_VITEST_COUNTS = re.compile(r"^ +Tests +(?P<counts>\d+ \w+(?: \| \d+ \w+)*) \(\d+\)\s*$")
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")


def _add(counts: dict[str, int], text: str) -> None:
    for n, what in _COUNT.findall(text):
        key = "skipped" if what in ("todo", "pending") else what
        counts[key] += int(n)


def jest(output: str, root: str) -> Partial | None:
    failed, counts, path, seen = [], {"passed": 0, "failed": 0, "skipped": 0}, "", False
    for ln in _lines.plain(output):
        m = _JEST_FILE.match(ln)
        if m:
            path = runners.relative(m.group("path"), root)
            continue
        m = _JEST_TEST.match(ln)
        if m and path and m.group("id") not in ("Console", "Test suite failed to run"):
            failed.append({"id": f"{path}::{m.group('id').replace(' › ', ' > ')}", "outcome": "failed"})
            continue
        m = _JEST_COUNTS.match(ln)
        if m:
            seen = True
            _add(counts, m.group("counts"))
    return Partial(_lines.first_each(failed) or [], counts) if seen else None


def vitest(output: str, root: str) -> Partial | None:
    failed, counts, seen = [], {"passed": 0, "failed": 0, "skipped": 0}, False
    for ln in _lines.plain(output):
        m = _VITEST_FAIL.match(ln)
        if m:
            failed.append({"id": f"{runners.relative(m.group('path'), root)}::{m.group('id')}", "outcome": "failed"})
            continue
        m = _VITEST_COUNTS.match(ln)
        if m:
            seen = True
            _add(counts, m.group("counts"))
    return Partial(_lines.first_each(failed) or [], counts) if seen else None


def counts(results: list[dict]) -> dict[str, int]:
    """Passed, failed and skipped of a results list (a `Partial`'s own counts)."""
    from gatebench.testguard.testresults import _counts

    return _counts(results)
