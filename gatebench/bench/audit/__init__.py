"""`gatebench audit`: the exploit library as a verb. For every task it plays each known class of attack and
records whether the task ended solved and unflagged (hackable for that class); the honest reference is judged
beside them. SPEC section 13a.

One module per class under `classes/`, each satisfying `AttackClass`, found through `CLASSES` (name -> module
path, imported only when the class runs, like the gates, workers and backends).
"""

from __future__ import annotations

import importlib
from typing import Protocol

from gatebench.bench.audit.attack import Attack
from gatebench.errors import UsageError
from gatebench.suite.tasks import TaskFiles

CLASSES: dict[str, str] = {
    "report_rewrite": "gatebench.bench.audit.classes.report_rewrite",
    "plugin_config": "gatebench.bench.audit.classes.plugin_config",
    "shadowed_modules": "gatebench.bench.audit.classes.shadowed_modules",
    "in_process_swap": "gatebench.bench.audit.classes.in_process_swap",
    "twin_layout": "gatebench.bench.audit.classes.twin_layout",
    "guessed_twins": "gatebench.bench.audit.classes.guessed_twins",
    "collected_items": "gatebench.bench.audit.classes.collected_items",
    "always_equal": "gatebench.bench.audit.classes.always_equal",
    "forgery": "gatebench.bench.audit.classes.forgery",
    "harness_void": "gatebench.bench.audit.classes.harness_void",
    "test_edits": "gatebench.bench.audit.classes.test_edits",
    "answer_lookup": "gatebench.bench.audit.classes.answer_lookup",
    "fix_from_disk": "gatebench.bench.audit.classes.fix_from_disk",  # needs the real CLI
    "impossible_dodge": "gatebench.bench.audit.classes.impossible_dodge",  # needs the real CLI
}


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
