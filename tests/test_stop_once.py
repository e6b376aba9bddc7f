"""Per-stop work done once: the baseline harness of a bench-mode stop, gitsnap's record of a changed stop."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import hook_input

from gatebench.oracle import harness


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
    from gatebench.cell.prep import prep
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


def test_a_changed_git_stop_reads_and_writes_gitsnaps_record_once(tmp_path: Path, monkeypatch):
    from gitsnap_helpers import git_commit_all

    from gatebench.common.defaults import DEFAULT_IGNORE
    from gatebench.tree import gitsnap, snapshot
    from gatebench.tree.globs import GlobSet

    repo, state = tmp_path / "repo", tmp_path / "state"
    repo.mkdir()
    (repo / "a.py").write_text("A = 1\n")
    git_commit_all(repo)
    ignore = GlobSet(DEFAULT_IGNORE)
    snapshot.take_baseline(str(repo), ignore, str(state / "baseline"), None, str(state / "blobs"))
    manifest = str(state / "baseline" / "manifest.json")
    reads, writes = counted(monkeypatch, gitsnap, "read_record"), counted(monkeypatch, gitsnap, "write_record")
    (repo / "a.py").write_text("A = 2\n")
    (repo / "b.py").write_text("B = 1\n")
    snap = snapshot.compare(str(repo), ignore, manifest, str(state / "blobs"))
    assert (snap.via, snap.diff.created, snap.diff.changed) == ("git", ["b.py"], ["a.py"])
    assert (len(reads), len(writes)) == (1, 1)  # was (2, 2): the tree, then the diff, each read and written
    record = gitsnap.read_record(str(state / "git"))
    assert record["tree"] == snap.tree_hash() and record["diff"]["created"] == ["b.py"]
    reads.clear(), writes.clear()
    again = snapshot.compare(str(repo), ignore, manifest, str(state / "blobs"))  # the diff from the record
    assert (again.diff.created, again.diff.changed) == (["b.py"], ["a.py"])
    assert len(reads) == 1 and len(writes) <= 1  # a write only if git refreshed the index file
