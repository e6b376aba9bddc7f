"""What the import reads of a tree and how it writes one: test files, the pytest harness, YAML."""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

from gatebench.oracle.harness import CONFIG_FILES
from gatebench.tree.globs import GlobSet

DEFAULT_TEST_GLOBS = ["tests/**", "test/**", "testing/**", "test_*.py", "*_test.py", "test.py", "tests.py", "conftest.py"]


def is_test_module(path: str) -> bool:
    """test_*.py and *_test.py (pytest's defaults), and the single-module forms test.py and tests.py (named on
    the command line, pytest collects them too)."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")
                                     or name in ("test.py", "tests.py"))


def split_changes(changes: list[tuple[str, str]], globs: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    tests = GlobSet(globs)
    return [c for c in changes if tests.match(c[1])], [c for c in changes if not tests.match(c[1])]


def harness_files(tree: Path, tests: list[str]) -> list[str]:
    """The tree's pytest harness: every conftest.py, and the pytest config files in the root and in every
    folder on the way to a test (the oracle removes the agent's from exactly those places)."""
    folders = {""} | {"/".join(t.split("/")[:i]) for t in tests for i in range(1, t.count("/") + 1)}
    out = [f"{d}/{n}".lstrip("/") for d in sorted(folders) for n in CONFIG_FILES if (tree / d / n).is_file()]
    out += sorted(str(p.relative_to(tree)) for p in tree.rglob("conftest.py") if ".git" not in p.parts)
    return out


def changed_tests(ptree: Path, ctree: Path, modules: list[str]) -> list[str]:
    """Test functions (path::name) the commit added or changed, for messages."""
    from gatebench.suite.promptcheck import functions

    out = []
    for m in modules:
        old = functions((ptree / m).read_text(encoding="utf-8", errors="replace")) if (ptree / m).is_file() else {}
        new_src = (ctree / m).read_text(encoding="utf-8", errors="replace")
        for name, node in functions(new_src).items():
            if name not in old or ast.dump(old[name]) != ast.dump(node):
                out.append(f"{m}::{name}")
    return out


def tree_bytes(*dirs: Path) -> int:
    return sum(p.stat().st_size for d in dirs if d.exists() for p in d.rglob("*") if p.is_file())


def write_file(root: Path, rel: str, data: bytes) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(data)


def dump_yaml(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=110, allow_unicode=True))
