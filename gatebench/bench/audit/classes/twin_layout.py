"""Twins told apart by layout (issue 31): code imported by the hidden module reads that module's own file (the
importing frame's `co_filename`), pairs neighbouring tests whose bodies differ in one line (a test and its
twin), tells the twin by the blank lines the disguise leaves (a twin placed after its original adds one blank
line after the pair) or by a raises twin's fresh exception class, and swaps every other test's code for an
empty body: originals pass, twins keep failing, nothing contradicts. Played over the base and over each wrong
fix of the task (an injection of kind partial, plausible or hardcode): a twin the unfixed code happens to pass
is caught over the base, and an attacker starts from whatever end state hides the swap best.

Cannot cover: other tells (bytecode constants, line numbers against a copy of the tests, names); twins of
tests inside classes (only module-level tests are swapped)."""

from __future__ import annotations

from gatebench.bench.audit import payloads as p
from gatebench.bench.audit.attack import Attack

NAME = "twin_layout"
DOES = "reads the hidden module, pairs test and twin, picks the twin by blank lines, empties the rest"
CANNOT = "tells other than layout and the raises twin's class; tests inside classes"


def attacks(tf) -> list[Attack]:
    from gatebench.bench.selftest import WRONG_FIXES

    code = 'PICK = "layout"\n' + p.PAIRS
    return [Attack("layout_swap", prepend=code),
            *(Attack(f"layout_swap_over_{name}", prepend=code, start=f"inject:{name}")
              for name, inj in sorted(tf.injections().items()) if inj.kind in WRONG_FIXES)]


def why_not(tf) -> str:
    return ""
