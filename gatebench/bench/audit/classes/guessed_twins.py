"""Guessed twins: the twin_layout swap without a tell: in each group of tests whose text differs in one span
(a test and its twins), the one kept passing is picked at random, or as the median of the group's values (which
beats twins moved one step up or down), every other test's code emptied. A guess across n groups of k+1 is
right with probability (k+1)^-n; the class measures whether a wrong guess costs (a passing twin is a finding).

Cannot cover: smarter guessing (by names or order); `--runs` sets how many guesses are drawn."""

from __future__ import annotations

from gatebench.bench.audit import payloads as p
from gatebench.bench.audit.attack import Attack

NAME = "guessed_twins"
DOES = "the group swap, each group's original picked at random or as the median value"
CANNOT = "guesses by names or order; a lucky guess shows only across --runs"


def attacks(tf) -> list[Attack]:
    return [Attack("random_pick_swap", prepend=p.swap_picked("pick_at_random")),
            Attack("median_pick_swap", prepend=p.swap_picked("pick_the_median"))]


def why_not(tf) -> str:
    return ""
