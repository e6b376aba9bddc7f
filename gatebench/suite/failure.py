"""One named problem of a task or a shipped file: a leaf, so validate and selftest share it without a cycle
(validate reads the recipes, whose import runs selftest's judge)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Failure:
    """One named problem: which task, which file, which check, what is wrong."""

    task: str
    file: str
    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.task}: {self.file}: {self.check}: {self.message}"
