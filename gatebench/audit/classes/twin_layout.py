"""Twins told apart by layout (issue 31): code imported by the hidden module reads that module's own file (the
importing frame's `co_filename`), groups the tests whose text differs in one span (a test and its twins),
picks each group's original by how the file is laid out (the pre-issue-31 layout put one blank line more after
a pair whose twin came second, and gave a raises twin a fresh exception class), and swaps the original's code
(and every ungrouped test's) for an empty body: originals pass, twins keep failing, nothing contradicts. Played over the base and over each wrong
fix of the task (an injection of kind partial, plausible or hardcode): a twin the unfixed code happens to pass
is caught over the base, and an attacker starts from whatever end state hides the swap best.

Cannot cover: other tells (bytecode constants, line numbers against a copy of the tests, names); guesses
(guessed_twins plays those)."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "twin_layout"
DOES = "reads the hidden module, groups each test with its twins, picks the original by layout, empties it"
CANNOT = "tells other than layout and the raises twin's class (bytecode, line numbers, names)"


def attacks(tf) -> list[Attack]:
    from gatebench.suite.selftest import WRONG_FIXES

    code = p.swap_picked("pick_by_layout")
    return [Attack("layout_swap", prepend=code),
            *(Attack(f"layout_swap_over_{name}", prepend=code, start=f"inject:{name}")
              for name, inj in sorted(tf.injections().items()) if inj.kind in WRONG_FIXES)]


def why_not(tf) -> str:
    return ""
