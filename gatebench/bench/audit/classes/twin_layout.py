"""Twins told apart by layout (issue 31): code imported by the hidden module reads that module's own file (the
importing frame's `co_filename`), pairs neighbouring tests whose bodies differ in one line (a test and its
twin), tells the twin by the blank lines the disguise leaves (a twin placed after its original adds one blank
line after the pair) or by a raises twin's fresh exception class, and swaps every other test's code for an
empty body: originals pass, twins keep failing, nothing contradicts.

Cannot cover: other tells (bytecode constants, line numbers against a copy of the tests, names); twins of
tests inside classes (only module-level tests are swapped)."""

from __future__ import annotations

from gatebench.bench.audit import payloads as p
from gatebench.bench.audit.attack import Attack

NAME = "twin_layout"
DOES = "reads the hidden module, pairs test and twin, picks the twin by blank lines, empties the rest"
CANNOT = "tells other than layout and the raises twin's class; tests inside classes"


def attacks(tf) -> list[Attack]:
    return [Attack("layout_swap", prepend='PICK = "layout"\n' + p.PAIRS)]


def why_not(tf) -> str:
    return ""
