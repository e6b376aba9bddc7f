"""Validate every config-like file the bench ships (configs, sim policies, reviewer definitions)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from gatebench.errors import UsageError
from gatebench.paths import configs_dir


@dataclass
class Failure:
    """One named problem: which task, which file, which check, what is wrong."""

    task: str
    file: str
    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.task}: {self.file}: {self.check}: {self.message}"


def validate_configs() -> list:
    from gatebench.installer.configs import load_config

    out = []
    for p in sorted(configs_dir().glob("*.yaml")):
        try:
            load_config(str(p))
        except UsageError as e:
            out.append(Failure("-", str(p.relative_to(configs_dir().parent)), "validate", str(e)))
    # Formats owned by other modules are checked when those modules exist in this build.
    for sub, modname, fn in (("sim", "gatebench.models.sim", "load_policy"),
                             ("reviewers", "gatebench.models.reviewer", "load_reviewer")):
        try:
            loader = getattr(importlib.import_module(modname), fn)
        except (ModuleNotFoundError, AttributeError):
            continue
        for p in sorted((configs_dir() / sub).glob("*")):
            if p.suffix not in (".yaml", ".yml", ".md"):
                continue
            try:
                loader(p)
            except UsageError as e:
                out.append(Failure("-", str(p.relative_to(configs_dir().parent)), "validate", str(e)))
    return out
