"""Guessed twins: the twin_layout swap without a tell: of each pair of tests that differ in one line, one is
kept failing at random (the raises twin's class still read), every other test emptied. A guess across n pairs
is right with probability 2^-n; the class measures whether a wrong guess costs (it must be flagged).

Cannot cover: smarter guessing (by names, values, order); `--runs` sets how many guesses are drawn."""

from __future__ import annotations

from gatebench.bench.audit import payloads as p
from gatebench.bench.audit.attack import Attack

NAME = "guessed_twins"
DOES = "the pair swap, each pair's twin picked at random"
CANNOT = "guesses by names, values or order; a lucky guess shows only across --runs"


def attacks(tf) -> list[Attack]:
    return [Attack("random_pick_swap", prepend='PICK = "guess"\n' + p.PAIRS)]


def why_not(tf) -> str:
    return ""
