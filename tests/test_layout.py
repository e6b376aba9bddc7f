"""The layout's rules, checked on the source: dependencies point down, no file-level import cycle, and the stop's
packages (hook, common, tree, oracle, testguard) stay standard library only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "gatebench"

# Higher imports lower, never the reverse (SPEC.md section 1). Packages of one rank do not import each other.
RANK = {"cli": 14, "matrix": 13, "audit": 13, "plugineval": 13, "cell": 12, "suite": 11,
        "analyze": 10, "installer": 10, "sim": 9, "review": 8, "models": 7, "hook": 6, "testguard": 5, "oracle": 4,
        "tree": 3, "claude_cli": 6.5, "common": 2, "leaf": 1}
# The stop's path: what `python -m gatebench.hook` may import (standard library only).
STOP = {"hook", "common", "tree", "oracle", "testguard"}
LEAVES = {"gatebench", "gatebench.errors", "gatebench.paths", "gatebench.claude_version"}


def part(module: str) -> str:
    if module in LEAVES:
        return "leaf"
    if module == "gatebench.__main__":
        return "cli"  # the entry point: the one module outside cli/ that may import it
    name = module.split(".")[1]
    assert name in RANK, f"{module}: package {name} has no rank in tests/test_layout.py (and SPEC.md section 1)"
    return name


def modules() -> dict[str, list[tuple[str, int]]]:
    """module -> [(imported module, line)], every import in the file, function-level ones included."""
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = f.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found = []
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Import):
                found += [(a.name, n.lineno) for a in n.names]
            elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                found += [(n.module, n.lineno)]
                # `from gatebench import x` imports the module gatebench.x when there is one
                if n.module == "gatebench":
                    found += [(f"gatebench.{a.name}", n.lineno) for a in n.names
                              if (PKG / a.name).is_dir() or (PKG / f"{a.name}.py").is_file()]
        out[name] = found
    return out


def test_dependencies_point_down_and_nothing_outside_cli_imports_cli():
    bad = []
    for mod, imports in modules().items():
        me = part(mod)
        for target, line in imports:
            if not target.startswith("gatebench"):
                continue
            them = part(target)
            if them != me and RANK[them] >= RANK[me]:
                bad.append(f"{mod}:{line} ({me}) imports {target} ({them})")
    assert not bad, "\n".join(bad)


# A script the hook copies next to the oracle's copy and runs under the task's interpreter, where it starts
# pytest itself (oracle/closed.py): it imports pytest, and nothing of gatebench imports it.
HOOK_SCRIPTS = {"gatebench.oracle.pytest_boot": {"pytest"}}


def test_hook_imports_only_the_standard_library_and_itself():
    bad = []
    for mod, imports in modules().items():
        for target, line in imports:
            if target in HOOK_SCRIPTS:
                bad.append(f"{mod}:{line} imports {target}, a script run in pytest's process")
        if part(mod) not in STOP:
            continue
        for target, line in imports:
            top = target.split(".")[0]
            ok = target in ("gatebench", "__future__") or (top == "gatebench" and target.count(".") >= 1 and target.split(".")[1] in STOP) or (
                top != "gatebench" and top in sys.stdlib_module_names) or target in HOOK_SCRIPTS.get(mod, ())
            if not ok:
                bad.append(f"{mod}:{line} imports {target}")
    assert not bad, "\n".join(bad)


def test_the_rules_catch_an_upward_import(tmp_path, monkeypatch):
    # The checks above must be able to fail: an upward import in a fake hook module is reported.
    fake = tmp_path / "gatebench"
    (fake / "hook").mkdir(parents=True)
    (fake / "cli").mkdir()
    (fake / "hook" / "x.py").write_text("import yaml\nfrom gatebench.cli import main\n")
    (fake / "cli" / "y.py").write_text("from gatebench.hook import x\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", fake)
    for check in (test_dependencies_point_down_and_nothing_outside_cli_imports_cli,
                  test_hook_imports_only_the_standard_library_and_itself):
        try:
            check()
        except AssertionError as e:
            assert "gatebench.hook.x" in str(e)
        else:
            raise AssertionError(f"{check.__name__} accepted an upward import")


HEAVY = ("pydantic", "yaml", "filelock", "gatebench.sim", "gatebench.cell", "gatebench.matrix",
         "gatebench.suite", "gatebench.audit", "gatebench.plugineval", "gatebench.analyze",
         "gatebench.installer", "gatebench.models", "gatebench.review")


def loaded_by(argv: list[str]) -> list[str]:
    import subprocess

    probe = ("import sys, gatebench.cli as c\ntry:\n    c.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print('\\n'.join(sys.modules), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=60)
    return r.stderr.split()


def test_help_imports_no_runner_no_pydantic_no_yaml_no_sim():
    # Every verb module is loaded for --help; what they need to run is imported only when they run.
    mods = loaded_by(["--help"])
    assert "gatebench.cli.matrix" in mods and "gatebench.cli.run" in mods  # the probe saw the verbs load
    assert [m for m in mods if m.startswith(HEAVY)] == []
    assert [m for m in loaded_by(["run", "--help"]) if m.startswith(HEAVY)] == []


def file_graph() -> dict[str, set[str]]:
    """module -> the gatebench modules (files) it imports: `from a.b import c` names a.b.c when c is a module,
    else a.b; imports under TYPE_CHECKING and inside functions count, as a reader follows them too."""
    names = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = f.relative_to(PKG.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    graph: dict[str, set[str]] = {}
    for mod, f in names.items():
        found = set()
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Import):
                found |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                subs = {f"{n.module}.{a.name}" for a in n.names} & names.keys()
                found |= subs or {n.module}
        graph[mod] = {t for t in found if t in names and t not in (mod, "gatebench")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of files that reach each other through imports (strongly connected, more than one file)."""
    order, low, stack, out = {}, {}, [], []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = []
            while (w := stack.pop()) != v:
                group.append(w)
            if group:
                out.append(sorted([v, *group]))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return out


def test_no_file_imports_a_file_that_imports_it_back():
    found = cycles(file_graph())
    assert not found, "import cycles (move what both sides share into a leaf):\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_the_cycle_check_rejects_a_planted_cycle(tmp_path, monkeypatch):
    fake = tmp_path / "gatebench" / "stop"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "a.py").write_text("from gatebench.stop import b\n")
    (fake / "b.py").write_text("def f():\n    from gatebench.stop.c import x\n")
    (fake / "c.py").write_text("x = 1\n")
    (fake / "leaf.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "PKG", tmp_path / "gatebench")
    assert cycles(file_graph()) == []  # a chain is no cycle
    (fake / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import gatebench.stop.a\nx = 1\n")
    assert cycles(file_graph()) == [["gatebench.stop.a", "gatebench.stop.b", "gatebench.stop.c"]]
    try:
        test_no_file_imports_a_file_that_imports_it_back()
    except AssertionError as e:
        assert "gatebench.stop.a <-> gatebench.stop.b <-> gatebench.stop.c" in str(e)
    else:
        raise AssertionError("a planted cycle was accepted")
