"""`matrix --executor ray`: the same records as the local executor, and a node killed mid-cell loses nothing.

The cluster is Ray's own multi-node test cluster (several raylets on this machine, on loopback). With CI set,
a missing Ray is a failure, not a skip: scripts/setup installs the `ray` extra.
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from pathlib import Path

import pytest

from gatebench.matrix.ray_executor import LOOPBACK_ENV, job_env, pack, rebase_paths, unpack

ON_CI = bool(os.environ.get("CI"))


def test_job_env_carries_credentials_and_the_endpoint_only():
    env = {"ANTHROPIC_API_KEY": "sk-x", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "HOME": "/root",
           "PATH": "/bin", "GATEBENCH_CLAUDE": "/opt/claude", "AWS_SECRET_ACCESS_KEY": "a"}
    out = job_env(env)
    assert out["ANTHROPIC_API_KEY"] == "sk-x" and out["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert "HOME" not in out and "PATH" not in out and "GATEBENCH_CLAUDE" not in out


def test_a_cell_folder_round_trips_and_replaces_what_was_there(tmp_path: Path):
    src = tmp_path / "node" / "cell"
    (src / "repo").mkdir(parents=True)
    (src / "repo" / "a.py").write_text("x = 1\n")
    (src / "repo" / "link").symlink_to("a.py")
    (src / "result.json").write_text("{}\n")
    dest = tmp_path / "run" / "cells" / "c" / "T1" / "r0"
    dest.mkdir(parents=True)
    (dest / "stale.txt").write_text("from an attempt the driver gave up on\n")
    unpack(pack(src), dest)
    assert (dest / "repo" / "a.py").read_text() == "x = 1\n"
    assert os.readlink(dest / "repo" / "link") == "a.py"
    assert not (dest / "stale.txt").exists()
    assert [p.name for p in dest.parent.iterdir()] == ["r0"]  # no temp folder left beside it


def test_record_paths_move_to_the_drivers_cell(tmp_path: Path):
    out = rebase_paths({"events": "/scratch/x/runs/r/cells/c/T1/r0/state/events.jsonl", "odd": "/elsewhere/f"},
                       "/scratch/x/runs/r/cells/c/T1/r0", tmp_path)
    assert out == {"events": str(tmp_path / "state" / "events.jsonl"), "odd": "/elsewhere/f"}


def _ray():
    """Ray, imported only now: it reads LOOPBACK_ENV once, at import."""
    if ON_CI:
        import ray  # noqa: F401  (CI installs the extra: a missing Ray fails here)
    return pytest.importorskip("ray")


def _records(ledger: Path) -> list[dict]:
    return [json.loads(line) for line in ledger.read_text().splitlines()] if ledger.exists() else []


def _outcomes(recs: list[dict]) -> dict[str, tuple]:
    return {r["cell_id"]: (r["status"], r["solved"], r.get("first_stop_solved"), r.get("blocks")) for r in recs}


def _scratch_procs(prefix: str) -> list[int]:
    from gatebench.cell.workers.launch import cell_processes

    return cell_processes(prefix)


@pytest.mark.slow
def test_ray_matrix_on_a_multi_node_cluster_matches_local_and_survives_a_lost_node(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(LOOPBACK_ENV, "0")  # before Ray is imported: every node and the driver on 127.0.0.1
    ray = _ray()
    from ray.cluster_utils import Cluster

    from gatebench.matrix.matrix import Matrix, MatrixSpec
    from gatebench.matrix.ray_executor import RayMatrix

    # Two cells, one per worker node: the lost node's cell is rerun on the other (4 cells cost two more waves, ~117 s
    # in all at load 1-4, 2026-12-02, for the same proof).
    configs, tasks = ["none", "tests"], ["T1"]
    local = MatrixSpec(configs=configs, tasks=tasks, reps=1, jobs=2, run_id="local", runs_dir=tmp_path / "runs")
    Matrix(local, out=io.StringIO()).run()
    want = _outcomes(_records(local.ledger))
    assert len(want) == 2 and all(v[0] == "ok" for v in want.values())

    scratch = tmp_path / "scratch"
    monkeypatch.setenv("GATEBENCH_RAY_SCRATCH", str(scratch))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret-never-written")
    # The head runs no cell; two worker nodes of one CPU each run them.
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                              "include_dashboard": False})
    nodes = [cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1") for _ in range(2)]
    try:
        spec = MatrixSpec(configs=configs, tasks=tasks, reps=1, jobs=2, run_id="ray", runs_dir=tmp_path / "runs")
        log = io.StringIO()
        m = RayMatrix(spec, out=log, address=cluster.address)
        killed: dict = {}

        def kill_a_busy_node() -> None:
            """Kill, without grace, the node that holds a cell whose agent is under way (its stream has started)."""
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                for d in scratch.glob("gatebench-cell-*"):
                    if any(d.glob("runs/*/cells/*/*/r0/stream.jsonl")):
                        victim = next(n for n in nodes if d.name.startswith(f"gatebench-cell-{n.node_id[:12]}-"))
                        killed["prefix"] = str(scratch / f"gatebench-cell-{victim.node_id[:12]}-")
                        cluster.remove_node(victim, allow_graceful=False)
                        killed["at"] = time.monotonic()
                        return
                time.sleep(0.05)

        killer = threading.Thread(target=kill_a_busy_node)
        killer.start()
        result = m.run()  # the driver in the main thread, as `gatebench matrix` runs it
        killer.join()
        assert "prefix" in killed, f"no cell was seen under way on a worker node: {log.getvalue()}"
        # Nothing the lost node's cell had started outlives it by more than a few seconds.
        while _scratch_procs(killed["prefix"]) and time.monotonic() - killed["at"] < 5:
            time.sleep(0.1)
        assert _scratch_procs(killed["prefix"]) == []
    finally:
        ray.shutdown()
        cluster.shutdown()

    recs = _records(spec.ledger)
    assert sorted(r["cell_id"] for r in recs) == sorted(want)  # one record per cell, none lost, none twice
    assert _outcomes(recs) == want, [(r["cell_id"], r.get("error")) for r in recs]  # the same game on any node
    assert result["infra_error"] == 0
    for r in recs:
        cell = spec.run_dir / r["paths"]["cell"]
        assert (spec.run_dir / r["paths"]["events"]).is_file() and (cell / "result.json").is_file()
        assert json.loads((cell / "result.json").read_text())["cell_id"] == r["cell_id"]
    # The killed node's attempt left its scratch folder behind: the cell really was cut mid-run and rerun.
    assert any(str(p).startswith(killed["prefix"]) for p in scratch.iterdir())
    blob = b"".join(p.read_bytes() for p in spec.run_dir.rglob("*") if p.is_file())
    assert b"sk-secret-never-written" not in blob
