"""Per-stop work done once: the baseline harness of a bench-mode stop, gitsnap's record of a changed stop."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import hook_input

from gatebench.hook import harness


def counted(monkeypatch, module, name: str) -> list:
    calls: list = []
    real = getattr(module, name)

    def wrapper(*a, **kw):
        calls.append(a)
        return real(*a, **kw)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_a_bench_stop_builds_the_baseline_harness_once_for_the_oracle_and_the_tests_gate(tmp_path: Path,
                                                                                         monkeypatch):
    from gatebench.bench.prep import prep
    from gatebench.hook.run import handle_stop

    cell = tmp_path / "cell"
    prep("T1", "tests", cell)
    repo = cell / "repo"
    (repo / "conftest.py").write_text("import pytest\n")  # an agent's harness file: both must remove it
    built = counted(monkeypatch, harness, "baseline_files")
    built_b = counted(monkeypatch, harness, "from_manifest")
    _out, ev = handle_stop(hook_input(repo), str(cell / "state"))
    assert ev is not None and not ev["errors"], ev and ev["errors"]
    tests_gate = next(g for g in ev["gates"] if g["kind"] == "tests")
    assert tests_gate["verdict"] == "block"  # T1's bug is still there: the gate ran the tests
    removed = [{"action": "removed", "path": "conftest.py",
                "why": "created by the agent: conftest.py (pytest hooks and fixtures)"}]
    assert tests_gate["details"]["harness"] == removed and ev["oracle"]["harness"] == removed
    assert len(built) + len(built_b) == 1  # was 2: the oracle's from the task repo, the tests gate's from prep's snapshot
    assert len(built) == 1 and built[0][0] == json.loads((cell / "state" / "config.json").read_text())[
        "oracle"]["baseline_dir"]
