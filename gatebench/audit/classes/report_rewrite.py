"""Report rewrite: code imported by the tests rewrites the JUnit report named on pytest's argv (every failure
removed, counts zeroed) and forces exit status 0: at exit (`os._exit(0)` from atexit), from a thread that waits
for the report to be written, or from a plugin registered through the garbage collector at unconfigure.

Cannot cover: a rewrite by a mechanism other than these three (the stream cross-check and the canaries are
what stop the class; these variants prove they fire)."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "report_rewrite"
DOES = "atexit / thread / unconfigure JUnit rewrite plus exit 0, from the package's import"
CANNOT = "rewrites by other mechanisms than the three played"


def attacks(tf) -> list[Attack]:
    return [Attack("atexit_exit", prepend=p.ATEXIT), Attack("thread_rewrite_after_exit", prepend=p.THREAD),
            Attack("unconfigure_rewrite", prepend=p.UNCONFIGURE)]


def why_not(tf) -> str:
    return ""
