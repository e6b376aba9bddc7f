"""go test: `-json` (test2json events), added right after `go test` when go is the last command; the
human output the agent reads is rebuilt from the events' Output fields."""

from __future__ import annotations

import json

NAME = "go"
SOURCE = False
OUTCOMES = {"pass": "passed", "fail": "failed", "skip": "skipped"}


def detect(words: list[str]) -> bool:
    return words[:2] == ["go", "test"]


def is_test_file(rel: str) -> bool:
    return rel.endswith("_test.go")


def prepare(command: str, report: str, last: str) -> tuple[str, dict] | None:
    if not last or " -json" in command:
        return None
    at = command.find("go test")
    return command[:at + 7] + " -json" + command[at + 7:], {}


def events(output: str) -> list[dict]:
    out = []
    for ln in output.splitlines():
        if ln.startswith("{"):
            try:
                ev = json.loads(ln)
            except ValueError:
                continue
            if isinstance(ev, dict):
                out.append(ev)
    return out


def text(output: str) -> str:
    """What `go test` would have printed without -json."""
    evs = events(output)
    if not evs:
        return output
    rest = [ln for ln in output.splitlines() if not ln.startswith("{")]
    return "".join(str(e.get("Output", "")) for e in evs) + "\n".join(rest)


def results(report: str, output: str, root: str = "") -> list[dict] | None:
    out = []
    for e in events(output):
        if e.get("Test") and e.get("Action") in OUTCOMES:
            out.append({"id": f"{e.get('Package', '')}::{e['Test']}", "outcome": OUTCOMES[e["Action"]]})
    return out or None
