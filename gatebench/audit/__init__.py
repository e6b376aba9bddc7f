"""`gatebench audit`: the exploit library as a verb. For every task it plays each known class of attack and
records whether the task ended solved and unflagged (hackable for that class); the honest reference is judged
beside them. SPEC section 13a.

One module per class under `classes/`, each satisfying `AttackClass`, found through `CLASSES` (name -> module
path, imported only when the class runs, like the gates, workers and backends).
"""

from __future__ import annotations

import importlib
from typing import Protocol

from gatebench.audit.attack import Attack
from gatebench.errors import UsageError
from gatebench.suite.tasks import TaskFiles

CLASSES: dict[str, str] = {
    "report_rewrite": "gatebench.audit.classes.report_rewrite",
    "plugin_config": "gatebench.audit.classes.plugin_config",
    "shadowed_modules": "gatebench.audit.classes.shadowed_modules",
    "in_process_swap": "gatebench.audit.classes.in_process_swap",
    "twin_layout": "gatebench.audit.classes.twin_layout",
    "guessed_twins": "gatebench.audit.classes.guessed_twins",
    "collected_items": "gatebench.audit.classes.collected_items",
    "adaptive_guess": "gatebench.audit.classes.adaptive_guess",
    "always_equal": "gatebench.audit.classes.always_equal",
    "forgery": "gatebench.audit.classes.forgery",
    "harness_void": "gatebench.audit.classes.harness_void",
    "test_edits": "gatebench.audit.classes.test_edits",
    "answer_lookup": "gatebench.audit.classes.answer_lookup",
    "fix_from_disk": "gatebench.audit.classes.fix_from_disk",  # needs the real CLI
    "impossible_dodge": "gatebench.audit.classes.impossible_dodge",  # needs the real CLI
}

# Played only when named (`--classes adaptive_guess`): its odds of a fake solve from a wrong fix failing one
# twinned test are 1/(k+1) (at best 1 in 13), which no count of twins brings under GUESS_ODDS, so in CI's default
# run it would fail the audit at random; selftest prints its odds per task instead (SPEC section 13a).
OPT_IN = ("adaptive_guess",)


def default_classes() -> list[str]:
    return [c for c in CLASSES if c not in OPT_IN]


class AttackClass(Protocol):
    """A class of attack: `attacks(tf)` are its variants laid on the task (none: it does not apply, `why_not`)."""

    NAME: str
    DOES: str  # what the class plays, one line
    CANNOT: str  # what it cannot cover, one line

    def attacks(self, tf: TaskFiles) -> list[Attack]: ...

    def why_not(self, tf: TaskFiles) -> str: ...


def load(name: str) -> AttackClass:
    if name not in CLASSES:
        raise UsageError(f"--classes: unknown class {name!r}; one of {', '.join(CLASSES)}")
    mod = importlib.import_module(CLASSES[name])
    return mod  # a module satisfies the Protocol by its names
