"""The agent's world through the real CLI: a sealed cell lists only its allow-list from inside, with copies of
the bench planted beside the bench home, under /tmp and under HOME; and the transcript leak scan flags an agent
shown a planted copy of the reference (the world widened to hold it), not one that wrote the fix itself."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import pytest
from cli_harness import bash, fake_api, require_claude, say
from conftest import ROOT

from gatebench.cell import seal, world
from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize
from gatebench.cell.prep import prep
from gatebench.cell.seal import _tool_results
from gatebench.cell.workers import WorkerOptions, run_worker
from gatebench.sim.brain import brain_from_data

pytestmark = pytest.mark.cli

DECOY = "GATEBENCH-WORLD-DECOY-5e1d"
DECOY_FILES = ("hidden/T1/test_pagination_hidden.py", "reference/T1/pagekit/paginator.py",
               "checkout/.cache/sdists/parse-1.20.1.tar.gz", "scratch/T1/pagekit/paginator.py")


def tool(name: str, **inp) -> dict:
    return {"content": [{"type": "tool_use", "name": name, "input": inp}]}


@pytest.fixture
def away():
    """A folder under the real HOME (neither the temp dir, which Claude Code's own sandbox hides whole, nor the
    checkout), removed after the test."""
    root = Path(os.path.expanduser("~")) / ".cache" / f"gatebench-world-test-{uuid.uuid4().hex[:8]}"
    root.mkdir(parents=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def bench_home(root: Path) -> Path:
    home = root / "bench"
    shutil.copytree(ROOT / "configs", home / "configs")
    for d in ("tasks", "hidden", "reference", "inject"):
        shutil.copytree(ROOT / d / "T1", home / d / "T1")
    return home


def plant(root: Path) -> list[Path]:
    out = []
    for rel in DECOY_FILES:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"{DECOY}\n")
        out.append(p)
    return out


def run_cell(cell: CellPaths, monkeypatch, turns: list[dict]):
    main = {"steps": [{"on": "start", "turns": [*turns, say("All done.")]}], "fallback": say("Done, really.")}
    with fake_api(brain_from_data(main)) as (url, api):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
        info = run_worker("claude", cell, WorkerOptions(timeout_s=240, max_turns=30, sealed=True))
        results = [r for req in api.message_requests()[-1:] for r in _tool_results([req])]
    assert info["rc"] == 0, info
    return finalize(cell), results


def allowed(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") or r.startswith(path.rstrip("/") + "/")
               for r in roots)


def test_from_inside_a_sealed_cell_only_the_allow_list_exists(tmp_path, away, monkeypatch):
    require_claude()
    monkeypatch.setenv("GATEBENCH_HOME", str(bench_home(away)))
    decoys = [*plant(away / "old-bench"), *plant(tmp_path / "decoys"), *plant(away.parent / f"{away.name}-scratch")]
    cell = CellPaths(tmp_path / "c")
    try:
        prep("T1", "tests", cell.root)
        listing = cell.repo / "world.txt"
        turns = [bash("find / \\( -path /proc -o -path /sys -o -path /dev -o -path /usr -o -path /etc \\) -prune "
                      f"-o -print > {listing} 2>/dev/null; wc -l < {listing}"),
                 bash(" ".join(f"cat {p};" for p in decoys) + " true"),
                 *(tool("Read", file_path=str(p)) for p in decoys[::4])]
        rec, results = run_cell(cell, monkeypatch, turns)
    finally:
        shutil.rmtree(away.parent / f"{away.name}-scratch", ignore_errors=True)
    assert len(results) == 2 + len(decoys[::4]), results
    assert all(DECOY not in text for _, text in results), results
    spec = json.loads((cell.state / "world.json").read_text())
    roots = [*spec["rw"], *spec["ro"], *spec["files"], world.cli_root(str(require_claude())), "/proc", "/sys",
             "/dev", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/tmp"]
    seen = listing.read_text().splitlines()
    assert str(cell.repo.resolve()) in seen and int(results[0][1].split()[0]) == len(seen)
    outside = [p for p in seen if not allowed(p, roots)]
    assert outside == [], outside[:20]
    for private in (away, tmp_path / "decoys", cell.state, ROOT / "hidden", ROOT / ".git"):
        assert not [p for p in seen if p == str(private) or p.startswith(f"{private}/")], private
    assert not [p for p in seen if "sdists" in p or "old-bench" in p or DECOY_FILES[0] in p]
    # The calls named `hidden/T1` (the path scan counts the attempt); nothing private was shown.
    assert rec.sealed is True and rec.status == "ok" and rec.findings == [], rec.findings


def test_a_planted_reference_shown_is_a_leak_and_the_fix_written_by_the_agent_is_not(tmp_path, away, monkeypatch):
    require_claude()
    ref = (ROOT / "reference" / "T1" / "pagekit" / "paginator.py").read_text()
    planted = away / "notes" / "helper.txt"  # the reference under another name, in a folder the world is widened to
    planted.parent.mkdir()
    planted.write_text(ref)
    reader = CellPaths(tmp_path / "reader")
    prep("T1", "none", reader.root)
    spec = json.loads((reader.state / "world.json").read_text())
    (reader.state / "world.json").write_text(json.dumps({**spec, "ro": [*spec["ro"], str(planted.parent)]}))
    rec, results = run_cell(reader, monkeypatch, [bash(f"cat {planted}")])
    assert "An empty collection still gets one (empty) page" in results[0][1]  # the widened world let it through
    assert rec.leak and any("reference T1/pagekit/paginator.py" in f.why for f in rec.findings), rec.findings
    writer = CellPaths(tmp_path / "writer")
    prep("T1", "none", writer.root)
    target = writer.repo / "pagekit" / "paginator.py"
    rec, _ = run_cell(writer, monkeypatch, [tool("Write", file_path=str(target), content=ref),
                                            tool("Read", file_path=str(target))])
    assert target.read_text() == ref and not rec.leak and rec.findings == [], rec.findings
    # The stop server lived and died with the worker: its socket is gone, the hooks answered through it.
    assert not world.stop_socket(seal.worker_tmp(writer.root)).exists()
    assert [s.decision for s in rec.stops] == ["allow"]


def test_a_sealed_sim_cell_runs_end_to_end_with_its_stops_judged_outside(tmp_path):
    require_claude()
    cell = CellPaths(tmp_path / "sim")
    prep("T1", "tests", cell.root)
    info = run_worker("sim", cell, WorkerOptions(timeout_s=240, sealed=True))
    rec = finalize(cell)
    assert info["rc"] == 0 and rec.status == "ok" and rec.sealed is True, (info, rec.error)
    # Every stop reached the hook outside: an event per stop, the tests gate judged each.
    assert rec.stops and all(any(g.name == "tests" and g.verdict in ("pass", "fail") for g in s.gates)
                             for s in rec.stops)
    assert rec.blocks == sum(s.decision == "block" for s in rec.stops)
    assert not world.stop_socket(seal.worker_tmp(cell.root)).exists()
