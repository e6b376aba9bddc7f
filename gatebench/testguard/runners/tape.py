"""tape: TAP on stdout; a test is a `# title` line, failed if any assertion under it is `not ok`.

tape prints a nested `t.test` as a flat `# title` line too (no indentation, no parent), so ids are titles:
there is no suite path to read. A title repeated in one run is kept apart as the source checks keep it
(`title #2`, `title #2 #2`, ...), so two tests of one title are two results, not one. What the gate does
with that: results are matched to the source tests by title in any file (a title repeated across files in
the order tape ran them); a nested test is its parent's checks in the source checks and a title of its
own here, so a nested test deleted is named by both (the parent's check removed; the title, no path)."""

from __future__ import annotations

import re

from gatebench.testguard.runners import _js, _lines

NAME = "tape"
SOURCE = True
is_test_file = _js.is_test_file
_TITLE = re.compile(r"^# (?P<id>.+)$")
_SUMMARY = re.compile(r"^# (tests|pass|fail|ok|todo|skip)\b")


def detect(words: list[str]) -> bool:
    return _js.named(words, "tape") or _js.named(words, "tap-spec")


def prepare(command: str, report: str, last: str) -> tuple[str, dict]:
    return command, {}


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    out: list[dict] = []
    seen: set[str] = set()
    for ln in _lines.plain(output):
        m = _TITLE.match(ln)
        if m and not _SUMMARY.match(ln):
            tid = m.group("id").strip()
            while tid in seen:
                tid += " #2"
            seen.add(tid)
            out.append({"id": tid, "outcome": "passed"})
        elif out and ln.startswith("not ok ") and "# TODO" not in ln:
            out[-1]["outcome"] = "failed"
        elif out and ln.startswith("ok ") and "# SKIP" in ln and out[-1]["outcome"] == "passed":
            out[-1]["outcome"] = "skipped"
    return out or None
