"""Validate every config-like file the bench ships (configs, sim policies, reviewer definitions).

Each kind is read by the loader the bench itself uses, so what passes here is what will load later.
"""

from __future__ import annotations

from collections.abc import Callable

from gatebench.errors import UsageError
from gatebench.paths import configs_dir
from gatebench.suite.failure import Failure


def loaders() -> list[tuple[str, Callable[[str], object]]]:
    """(glob under configs/, the loader the bench uses for those files)."""
    from gatebench.cell.workers.sim import load_policy
    from gatebench.installer.configs import load_config
    from gatebench.review.defs import load_reviewer

    return [("*.yaml", load_config), ("sim/*.yaml", load_policy), ("sim/*.yml", load_policy),
            ("reviewers/*.md", load_reviewer), ("hooks/*.py", compile_hook)]


def compile_hook(path: str) -> None:
    """A shipped Stop hook script (run by a `command` gate) must at least be valid Python."""
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec")
    except (SyntaxError, ValueError) as e:
        where = f" (line {e.lineno})" if isinstance(e, SyntaxError) and e.lineno else ""
        raise UsageError(f"{path}: not valid Python{where}: {e}") from None


def validate_configs() -> list[Failure]:
    out = []
    for pattern, load in loaders():
        for p in sorted(configs_dir().glob(pattern)):
            try:
                load(str(p))
            except UsageError as e:
                out.append(Failure("-", str(p.relative_to(configs_dir().parent)), "validate", str(e)))
    return out


def validate_recipes() -> list[Failure]:
    """Every real-suite recipe and suite.yaml loads, and the samples name recipes that exist."""
    from gatebench.suite.recipes import load_recipe, recipe_paths, samples, suite_dir

    out = []
    paths = recipe_paths()
    for rid, p in paths.items():
        try:
            load_recipe(rid)
        except UsageError as e:
            out.append(Failure(rid, str(p), "validate", str(e)))
    if (suite_dir() / "suite.yaml").is_file():
        try:
            s = samples()
            for name, ids in (("bench", s.bench), ("ci", s.ci)):
                out += [Failure(i, str(suite_dir() / "suite.yaml"), "validate", f"{name}: no recipe {i}")
                        for i in ids if i not in paths]
        except UsageError as e:
            out.append(Failure("-", str(suite_dir() / "suite.yaml"), "validate", str(e)))
    return out
