"""Guessed twins: the twin_layout swap without a tell: in each group of tests whose text differs in one span
(a test and its twins), the one kept passing is picked at random, or as the median of the group's values (which
beats twins moved one step up or down), every other test's code emptied. A guess across n groups of k+1 is
right with probability (k+1)^-n; the class measures whether a wrong guess costs (a passing twin is a finding).
The forced variant makes every other member of a group fail, the worst case for a negation twin.

Cannot cover: smarter guessing (by names or order); `--runs` sets how many guesses are drawn."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "guessed_twins"
DOES = "the group swap, each group's original picked at random or as the median value (the others left to fail, or made to)"
CANNOT = "guesses by names or order; a lucky guess shows only across --runs"


def attacks(tf) -> list[Attack]:
    return [Attack("random_pick_swap", prepend=p.swap_picked("pick_at_random")),
            Attack("median_pick_swap", prepend=p.swap_picked("pick_the_median")),
            # The others made to fail: a right guess on a negation twin then leaves no contradiction, and a
            # wrong one leaves the code's own outcomes (SPEC section 8): only the value twins' guesses cost.
            Attack("random_pick_forced", prepend=p.swap_picked("pick_at_random", force=True))]


def why_not(tf) -> str:
    return ""
