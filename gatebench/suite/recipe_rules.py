"""The real suite's curation rules a recipe can be checked against from its own data, with no sdist and no run
(issue 32; SPEC section 12): what selftest proves by running, read back from what the import measured."""

from __future__ import annotations

import shlex

from gatebench.models.recipe import Recipe

COMPILE_ONLY = "{python} -m compileall -q ."
PLAUSIBLE = ("plausible", "partial")


def visible_problems(r: Recipe) -> list[str]:
    """The visible command runs the project's own tests: never compileall (every recipe's hidden tests are the
    project's test files, so the base has one), never a changed test file --ignore'd whole."""
    if r.visible.strip() == COMPILE_ONLY:
        return ["visible: compileall, though the project has test files"]
    args = shlex.split(r.visible)
    ignored = {a.split("=", 1)[1] for a in args if a.startswith("--ignore=")}
    return [f"visible: the changed test file {t} is ignored whole (run its base copy, deselect only the changed "
            "and base-failing tests)" for t in r.tests if t in ignored]


def plausible_problems(r: Recipe) -> list[str]:
    """A plausible (or partial) wrong fix passes the visible tests and fails a FAIL_TO_PASS test, as measured."""
    f2p = set(r.fail_to_pass)
    out = []
    for i in r.injections:
        if i.kind not in PLAUSIBLE:
            continue
        if "tests" in i.blocked_by:
            out.append(f"injection {i.name}: {i.kind}, yet the visible tests block it (it is crude)")
        if "oracle" not in i.blocked_by or not f2p & set(i.fails):
            out.append(f"injection {i.name}: {i.kind}, yet it fails no FAIL_TO_PASS test")
    return out


def duplicate_problems(r: Recipe) -> list[str]:
    """Two injections with the same edits are one wrong fix counted twice."""
    seen: dict[tuple, str] = {}
    out = []
    for i in r.injections:
        if i.mutant is None or i.kind == "tamper":
            continue
        key = (i.mutant.file, i.mutant.op == "revert" and i.mutant.hunk, tuple(map(tuple, i.mutant.edits)))
        if key in seen:
            out.append(f"injection {i.name}: the same edits as {seen[key]}")
        seen.setdefault(key, i.name)
    return out


def problems(r: Recipe) -> list[str]:
    """Every rule a recipe breaks that its data shows (prompt checks need the sdists: recipes.prompt_flags)."""
    wrong = sum(1 for i in r.injections if i.kind in (*PLAUSIBLE, "crude", "hardcode"))
    count = [] if wrong >= 3 else [f"injections: {wrong} wrong fixes, selftest wants 3"]
    return [*visible_problems(r), *plausible_problems(r), *duplicate_problems(r), *count]
