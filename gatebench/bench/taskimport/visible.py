"""Step 3 of the import, the visible tests: the parent's test modules, with the ones failing on the base left out."""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

from gatebench.bench.taskimport.runs import COMPILE_ONLY, FIX_OPTIONS, PYTEST, cpu_load, diagnose
from gatebench.errors import UsageError
from gatebench.hook.oracle import run_oracle

MAX_DESELECTED = 60


def visible_command(visible_files: list[str], changed_tests: list[str], deselect: list[str] = (),  # type: ignore[assignment]
                    ignore: list[str] = ()) -> str:  # type: ignore[assignment]
    """The parent's test modules the commit did not touch. The ones it rewrote are hidden (in their new form);
    in their old form they may assert the behaviour the fix changes, and would block the reference."""
    changed = set(changed_tests)
    kept = [f for f in visible_files if f not in changed]
    if not kept:  # every test module is part of the fix: the visible check is that the code compiles
        return COMPILE_ONLY
    roots = sorted({f.split("/", 1)[0] for f in kept})
    ignored = sorted({f for f in visible_files if f in changed} | set(ignore))
    return " ".join([PYTEST, *roots, *(f"--ignore={f}" for f in ignored),
                     *(f"--deselect={shlex.quote(t)}" for t in deselect)])


def uncollectable(test_id: str, tree: Path) -> str | None:
    """A JUnit entry for a module that failed to collect (`?::pkg.test_mod`) as that module's path, else None:
    such a module cannot be deselected, only ignored."""
    if not test_id.startswith("?::"):
        return None
    rel = test_id[3:].replace(".", "/")
    for cand in (f"{rel}.py", rel):
        if (tree / cand).exists():
            return cand
    return None


def visible_tests(ptree: Path, ctree: Path, visible_files: list[str], changed: list[str], python: str, timeout_s: float,
                  exclude: list[str], warnings: list[str], log) -> tuple[str, int]:
    """Step 3: the visible command, with the tests that fail on the base, or on the base under CPU load,
    deselected (named): the tests gate would otherwise block every end state, or block at random."""
    command = visible_command(visible_files, changed, exclude)
    if command == COMPILE_ONLY:
        return command, 0
    with tempfile.TemporaryDirectory(prefix="gatebench-novisible-") as empty:
        base = run_oracle(str(ptree), empty, command, ".gatebench-none", timeout_s, python)
        if base["error"] and "collected no tests" in base["error"]:
            warnings.append(f"the visible tests ({command}) collect nothing on the base: the visible check is "
                            "compileall")
            return COMPILE_ONLY, 0
        with cpu_load(python):
            loaded = run_oracle(str(ptree), empty, command, ".gatebench-none", timeout_s, python)
    bad = sorted({t for r in (base, loaded) for t, o in r["tests"].items() if o in ("failed", "error")}
                 - set(exclude))
    if base["error"] and not base["tests"]:
        out = diagnose(ptree, command, python, timeout_s)
        raise UsageError(f"the visible tests do not run on the base: {base['error']}; pytest said:\n{out}\n"
                         f"fix: {FIX_OPTIONS}")
    if len(bad) > MAX_DESELECTED:
        out = diagnose(ptree, command, python, timeout_s)
        raise UsageError(f"{len(bad)} visible tests fail on the base (or under load), too many to leave out: "
                         f"{', '.join(bad[:10])} ...; pytest said:\n{out}\nfix: {FIX_OPTIONS}")
    if bad:
        modules = sorted({m for t in bad if (m := uncollectable(t, ptree))})
        tests = [t for t in bad if not uncollectable(t, ptree)]
        warnings.append(f"left out {len(bad)} visible test(s) failing on the base or under load: {', '.join(bad[:8])}"
                        + (f" (modules that do not collect, ignored: {', '.join(modules)})" if modules else ""))
        log(f"visible tests: {len(tests)} deselected, {len(modules)} modules ignored")
        command = visible_command(visible_files, changed, [*exclude, *tests], modules)
        with tempfile.TemporaryDirectory(prefix="gatebench-novisible-") as empty:
            again = run_oracle(str(ptree), empty, command, ".gatebench-none", timeout_s, python)
        if again["error"] or again["failed"] or again["errors"]:
            out = diagnose(ptree, command, python, timeout_s)
            raise UsageError(f"the visible tests still fail on the base with the failing ones left out ({command}); "
                             f"pytest said:\n{out}\nfix: {FIX_OPTIONS}")
    return command, 0
