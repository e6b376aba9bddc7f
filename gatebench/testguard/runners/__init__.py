"""Test runners: how to get each runner's machine-readable results (stdlib only).

One small module per runner behind one Protocol, one registry (name -> module path, imported only
when a stop needs it), as `hook/gates/` keeps gates. A runner module says whether a test command
is its (`detect`), how to ask it for a report without changing what it runs (`prepare`: an
environment variable or flags placed where the runner gets them, `place`, never a different test
selection), which files hold its tests (`is_test_file`), and how to read its report into results:
`[{"id", "outcome"}]` with outcome `passed | failed | skipped`, ids relative to the tree that ran
(`results(report, output, root)`; None when it wrote none). `SOURCE` says whether the
source checks (`pychecks.py`, `jschecks.py`) read its test files.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Runner(Protocol):
        NAME: str
        SOURCE: bool

        def detect(self, words: list[str]) -> bool: ...

        def prepare(self, command: str, report: str, last: str) -> tuple[str, dict] | None: ...

        def results(self, report: str, output: str, root: str) -> list[dict] | None: ...

        def is_test_file(self, rel: str) -> bool: ...


RUNNERS: dict[str, str] = {
    "pytest": "gatebench.testguard.runners.pytest",
    "jest": "gatebench.testguard.runners.jest",
    "vitest": "gatebench.testguard.runners.vitest",
    "ava": "gatebench.testguard.runners.ava",
    "mocha": "gatebench.testguard.runners.mocha",
    "tape": "gatebench.testguard.runners.tape",
    "go": "gatebench.testguard.runners.go",
    "cargo": "gatebench.testguard.runners.cargo",
}
PACKAGE_RUNNERS = ("npm", "yarn", "pnpm", "bun")
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")


def get(name: str) -> Runner:
    return importlib.import_module(RUNNERS[name])


def script_of(command: str, repo: str) -> str:
    """`npm test`, `npm run x`, `yarn x`, `pnpm test` -> the package.json script they run."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if not words or os.path.basename(words[0]) not in PACKAGE_RUNNERS:
        return command
    rest = [w for w in words[1:] if not w.startswith("-")]
    name = rest[1] if rest[:1] in (["run"], ["run-script"]) and len(rest) > 1 else rest[0] if rest else "test"
    if name == "t":
        name = "test"
    try:
        with open(os.path.join(repo, "package.json"), encoding="utf-8") as f:
            scripts = json.load(f).get("scripts") or {}
    except (OSError, ValueError, AttributeError):
        return command
    script = scripts.get(name) if isinstance(scripts, dict) else None
    return script if isinstance(script, str) else command


def segments(command: str) -> list[list[str]]:
    out = []
    for part in _SPLIT.split(command.strip()):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        words = [w for w in words if "=" not in w or w.startswith("-")]  # FOO=1 prefixes
        if words:
            out.append(words)
    return out


def detect(command: str, repo: str, depth: int = 3) -> tuple[str | None, str]:
    """(runner name or None, how flags reach it: `place`'s way, "" when they cannot: the runner is
    not the last command of the line or of its package script). `npm test` and friends are read
    through package.json."""
    script = script_of(command, repo)
    segs = segments(script)
    for i, words in enumerate(segs):
        for name in RUNNERS:
            if get(name).detect(words):
                if i != len(segs) - 1:
                    return name, ""
                return name, "append" if script == command else _script_way(command)
    nested = script != command and depth > 1  # inside a package script: the scripts it runs are this package's
    return (_nested(segs, repo, depth - 1) if nested else None), ""


def _nested(segs: list[list[str]], repo: str, depth: int) -> str | None:
    """The runner of a package script that runs other scripts (`pnpm run test:node && pnpm run test:edge`):
    found through them (at most `depth` scripts deep), its flags never placed (results then come from its own
    output)."""
    for words in segs:
        inner = shlex.join(words)
        script = script_of(inner, repo)
        name = detect(script, repo, depth)[0] if script != inner else None
        if name is not None:
            return name
    return None


def _script_way(command: str) -> str:
    """Flags after a package script: npm wants them after `--`; yarn and `pnpm run X` / `pnpm X` pass what
    follows the script name on (a `--` would reach the runner, which some take as "no more options"). pnpm's
    own `test` command differs by version (pnpm 9 refuses unknown options, pnpm 10 passes a `--` on), so
    `pnpm test` is run as `pnpm run test`, the same script, which both pass flags through."""
    words = segments(command)
    if len(words) != 1:
        return ""
    tool = os.path.basename(words[0][0])
    if tool == "npm":
        return "after --" if "--" not in words[0] else "append"
    if tool == "pnpm" and _PNPM_TEST.match(command) and "--" not in words[0]:
        return "pnpm run"
    return "append" if tool in ("pnpm", "yarn") else ""


_PNPM_TEST = re.compile(r"^(?P<tool>\s*\S*pnpm(?:\s+-\S+)*)\s+t(?:est)?(?=\s|$)")


def place(command: str, args: str, way: str) -> str:
    """The runner's flags placed where it gets them (`detect`'s way)."""
    if way == "pnpm run":
        return _PNPM_TEST.sub(lambda m: m.group("tool") + " run test", command, count=1) + f" {args}"
    return f"{command} -- {args}" if way == "after --" else f"{command} {args}"


def relative(name: str, root: str) -> str:
    """A report's path relative to the tree that ran (runners write absolute, sometimes resolved, paths)."""
    if not root or not os.path.isabs(name):
        return name
    for base in (root, os.path.realpath(root)):
        if name == base or name.startswith(base.rstrip(os.sep) + os.sep):
            return os.path.relpath(name, base)
    return os.path.relpath(os.path.realpath(name), os.path.realpath(root))


def append_args(command: str, args: str, repo: str) -> str:
    """Flags for the runner, given straight or after `--` to a package script."""
    return place(command, args, detect(command, repo)[1] or "append")
