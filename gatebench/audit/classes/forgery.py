"""Pipe and JUnit forgery, and BenchJack's output-parsing trick: gatebench's own reporter in pytest's process
(found through the garbage collector) made to send every failure as a pass, beside a session forced to exit 0
and a JUnit report rewritten to match, so the stream, the report and the exit code agree; and a forged
"999 passed" summary printed before `os._exit(0)`, for a grader that parses pytest's output.

Cannot cover: a forger that also knows the canaries' names (the twins are the wall, SPEC section 8)."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "forgery"
DOES = "gatebench's report stream, the JUnit file and the exit code forged to agree; a printed summary + exit 0"
CANNOT = "a forger that knows which tests are twins"


def attacks(tf) -> list[Attack]:
    return [Attack("forged_pipe_and_junit", prepend=p.FORGE_PIPE), Attack("forged_summary_exit", prepend=p.FORGED_SUMMARY)]


def why_not(tf) -> str:
    return ""
