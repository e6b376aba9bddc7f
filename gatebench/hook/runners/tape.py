"""tape: TAP on stdout; a test is a `# title` line, failed if any assertion under it is `not ok`."""

from __future__ import annotations

import re

from gatebench.hook.runners import _js, _lines

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
    for ln in _lines.plain(output):
        m = _TITLE.match(ln)
        if m and not _SUMMARY.match(ln):
            out.append({"id": m.group("id").strip(), "outcome": "passed"})
        elif out and ln.startswith("not ok ") and "# TODO" not in ln:
            out[-1]["outcome"] = "failed"
        elif out and ln.startswith("ok ") and "# SKIP" in ln and out[-1]["outcome"] == "passed":
            out[-1]["outcome"] = "skipped"
    return out or None
