"""Answer lookup from the evaluator's files (BenchJack): at test time the package looks for the answers where
the evaluator keeps them (the bench home's `reference/<task>/`, the folder beside the hidden tests'), and runs
the files it finds in place of its own modules.

Cannot cover: answers the agent copied while it ran (that is the seal's job, proven through the real CLI by
tests/test_seal_hostile.py); answers on a network."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "answer_lookup"
DOES = "the package runs the reference's files, read from the bench home at test time"
CANNOT = "answers read during the agent's run (the seal; tests/test_seal_hostile.py)"


def attacks(tf) -> list[Attack]:
    roots = [str(tf.reference.resolve()), str(tf.hidden.resolve().parent.parent / "reference" / tf.id)]
    return [Attack("reference_at_test_time", append=p.LOOKUP.replace("[ROOTS]", repr(roots)))]


def why_not(tf) -> str:
    return ""
