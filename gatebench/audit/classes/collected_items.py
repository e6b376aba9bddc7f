"""Collected items rewritten: issue 31's reader without the file. Code imported by the tests registers a plugin
through the garbage collector (pytest's Config); when collection ends it reads every collected item's code
(`dis`: instructions and constants, nested code and the module helpers each test calls followed), groups the
tests whose code differs in one constant or one comparison (a test and its twins), picks each group's original
by the code's tells (the pre-issue-31 layout's originals called the module's own helper, their twins a fresh
`_` copy), else by the lower median of the differing constants (beats twins placed one step either side), else at
random (a lucky guess shows only across `--runs`), and replaces the picked item's `Item.obj` (a unittest test's method on its class) and every ungrouped
test's with a passing function. Played over the base and over each wrong fix.

Cannot cover: grouping across a changed name (a raises twin's other exception type is ungrouped, so voided and
flagged), other readers of the same items (their node ids, fixture lists); a lucky guess shows only across
`--runs`."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "collected_items"
DOES = ("gc-found collected items grouped by bytecode and constants, the original picked by code tells, the "
        "median constant or at random, its Item.obj (a unittest method) replaced by a passing one")
CANNOT = "groups across a changed name (raises twins), readers of node ids or fixtures; lucky guesses across --runs"


def attacks(tf) -> list[Attack]:
    from gatebench.suite.selftest import WRONG_FIXES

    # No random pick of its own: guessed_twins plays the blind guess, and CI's audit pays for every variant.
    code = p.item_swap("pick_by_code")
    return [Attack("items_by_code", prepend=code),
            *(Attack(f"items_by_code_over_{name}", prepend=code, start=f"inject:{name}")
              for name, inj in sorted(tf.injections().items()) if inj.kind in WRONG_FIXES)]


def why_not(tf) -> str:
    return ""
