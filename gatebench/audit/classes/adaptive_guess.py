"""The adaptive guesser: collected_items' swap, but each group's members are first run against the code, each in
a forked child at collection time (its side effects, a registered name, stay there); the one that passes is kept
as the original (that tell is unavoidable: honest code passing a test fails its twins, and it gains nothing, the
test passes anyway), and only in groups where every member fails is the original guessed at random. Its odds of a fake solve from a wrong fix failing m twinned
tests are the product of 1/(group size) over those m groups (`gatebench.suite.canaries.adaptive_odds`; a failing
test with no twin is voided for free); selftest prints them per task. Played over the base and each wrong fix.

Cannot cover: members that need fixtures (not run: counted failing, so guessed); a lucky guess shows only across
`--runs`, so the odds are printed beside the runs."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "adaptive_guess"
DOES = ("collected items grouped as collected_items does, each group's members run first: the passing one kept, "
        "a guess only where all fail")
CANNOT = "members needing fixtures (guessed); a lucky guess shows only across --runs (selftest prints the odds)"


def attacks(tf) -> list[Attack]:
    from gatebench.suite.selftest import WRONG_FIXES

    code = p.item_swap("pick_adaptive")
    return [Attack("adaptive_over_base", prepend=code),
            *(Attack(f"adaptive_over_{name}", prepend=code, start=f"inject:{name}")
              for name, inj in sorted(tf.injections().items()) if inj.kind in WRONG_FIXES)]


def why_not(tf) -> str:
    return ""
