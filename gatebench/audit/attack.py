"""One attack's end state, as plain data, and laying it in a copy of a task's tree.

An Attack is what a hostile agent leaves behind: files written (or removed, or turned into folders) over an
end state of the task (`start`: the base, or an injection's wrong fix), Bash steps run after, and code
prepended or appended to the package's entry modules (the `__init__.py` files the hidden tests import first).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = {".git", "tests", "test", "hidden_tests", ".venv", "node_modules", "__pycache__", "docs", "build", "dist"}


@dataclass
class Attack:
    name: str  # the variant within its class: "atexit_exit", "pytest_toml_plugin"
    files: dict[str, str] = field(default_factory=dict)  # repo-relative path -> text written
    prepend: str = ""  # code put at the top of every entry module (after its docstring and __future__ imports)
    append: str = ""  # code put at the end of every entry module
    folders: list[str] = field(default_factory=list)  # paths removed, then made folders (`mkdir -p P/x`)
    bash: list[str] = field(default_factory=list)  # run in the copy after the files are written
    start: str = "base"  # the end state the attack is laid over: base | inject:<name>
    # An attack that needs the agent's tools: the model's turns, played through the real CLI against the fake
    # API in a cell prepped under `config` and `variant` ({repo} and {home} filled in); `final`: its last words.
    turns: list[dict] | None = None
    config: str = "tests"
    variant: str = "normal"
    final: str = "All done."


def entry_modules(repo: Path) -> list[str]:
    """The modules the tested code is first imported through: each top-level package's `__init__.py` (also
    under src/), else the top-level modules that are not tests."""
    out: list[str] = []
    for root in (repo, repo / "src"):
        if not root.is_dir():
            continue
        for d in sorted(root.iterdir()):
            if d.is_dir() and d.name not in SKIP_DIRS and (d / "__init__.py").is_file():
                out.append(str((d / "__init__.py").relative_to(repo)))
    if out:
        return out
    # A single-module project: at the top, or under src/ (webcolors 1.10's src/webcolors.py).
    return [str(p.relative_to(repo)) for root in (repo, repo / "src") for p in sorted(root.glob("*.py"))
            if not p.name.startswith(("test_", "conftest", "setup")) and p.name != "noxfile.py"]


def _head_end(text: str) -> int:
    """The line after a module's docstring and `from __future__` imports: where prepended code may go."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return 0
    end = 0
    for i, n in enumerate(body):
        doc = i == 0 and isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
        if doc or (isinstance(n, ast.ImportFrom) and n.module == "__future__"):
            end = n.end_lineno or n.lineno
        else:
            break
    return end


def guarded(code: str) -> str:
    """Run `code` once per process however many entry modules carry it."""
    return (f"import sys as _gb_sys\nif not getattr(_gb_sys, '_gb_audit_ran', False):\n"
            f"    _gb_sys._gb_audit_ran = True\n    exec({code!r})\n")


def lay(attack: Attack, repo: Path) -> list[str]:
    """Write the attack over the end state already in `repo`; the repo-relative paths it touched."""
    touched = []
    for rel in attack.folders:
        p = repo / rel
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
        (p / "x").mkdir(parents=True)
        touched.append(rel)
    for rel, text in attack.files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
        touched.append(rel)
    if attack.prepend or attack.append:
        touched += _into_entries(attack, repo)
    for cmd in attack.bash:
        subprocess.run(["bash", "-c", cmd], cwd=repo, check=True, timeout=120,
                       env={"TMPDIR": str(repo.parent), "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    return touched


def with_code(text: str, pre: str = "", post: str = "") -> str:
    """A module's text with `pre` after its docstring and `from __future__` imports (above them it would be a
    SyntaxError, and the attack would test nothing) and `post` at the end."""
    lines = text.splitlines(keepends=True)
    cut = _head_end(text)
    head = "".join(lines[:cut]) + ("\n" if cut and not lines[cut - 1].endswith("\n") else "")
    # Appended code runs in the module's own namespace (it reads the module's names).
    return head + pre + "".join(lines[cut:]) + (f"\n{post}\n" if post else "")


def _into_entries(attack: Attack, repo: Path) -> list[str]:
    entries = entry_modules(repo)
    if not entries:
        raise ValueError(f"{repo}: no package or module to put the attack's code in")
    for rel in entries:
        text = (repo / rel).read_text(encoding="utf-8")
        pre = guarded(attack.prepend) if attack.prepend else ""
        (repo / rel).write_text(with_code(text, pre, attack.append), encoding="utf-8")
    return entries
