"""The matrix: ledger integrity, preflight, cost ceiling, infra retries, and kill/resume with no orphans."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_harness import require_claude
from conftest import gatebench_cli

from gatebench.cell.workers.claude import credentials
from gatebench.cell.workers.launch import cell_processes
from gatebench.errors import UsageError
from gatebench.matrix import ledger
from gatebench.matrix.matrix import MatrixSpec, preflight
from gatebench.models.result import ResultRecord

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- ledger


def test_ledger_cuts_a_torn_tail_before_appending(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    ledger.append(path, {"cell_id": "a"})
    with open(path, "ab") as f:
        f.write(b'{"cell_id": "b", "sta')  # a writer killed mid-line
    assert [r["cell_id"] for r in ledger.read(path)] == ["a"]
    ledger.append(path, {"cell_id": "c"})
    lines = path.read_text().splitlines()
    assert [json.loads(x)["cell_id"] for x in lines] == ["a", "c"]


def test_ledger_appends_from_many_threads_stay_whole_lines(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    big = "x" * 20000  # longer than a pipe buffer: a torn write would show

    def writer(n: int) -> None:
        for i in range(25):
            ledger.append(path, {"cell_id": f"{n}/{i}", "pad": big})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 100 and len({json.loads(x)["cell_id"] for x in lines}) == 100


# ---------------------------------------------------------------- preflight


def test_preflight_names_a_bad_config_or_a_missing_task(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nbudget: {blocks: 99}\n")
    with pytest.raises(UsageError, match=r"(?s)bad\.yaml.*budget\.blocks"):
        preflight(MatrixSpec(configs=[str(bad)], tasks=["T1"]))
    with pytest.raises(UsageError, match="no task 'T404'"):
        preflight(MatrixSpec(configs=["none"], tasks=["T1", "T404"]))
    with pytest.raises(UsageError, match="unknown worker 'gpt'"):
        preflight(MatrixSpec(configs=["none"], tasks=["T1"], worker="gpt"))
    runs = tmp_path / "runs"
    r = gatebench_cli("matrix", "--configs", f"none,{bad}", "--tasks", "T1", "--runs-dir", str(runs), check=False)
    assert r.returncode == 2 and "bad.yaml" in r.stderr and "budget.blocks" in r.stderr
    assert not runs.exists(), "a bad config must stop the matrix before anything is written"


def test_preflight_of_the_paid_worker_needs_credentials_and_prints_the_estimate(tmp_path: Path):
    require_claude()
    env = {k: v for k, v in os.environ.items() if not credentials({k: v})}
    with pytest.raises(UsageError, match="no credentials"):
        preflight(MatrixSpec(configs=["none"], tasks=["T1"], worker="claude"), env=env)
    runs = tmp_path / "runs"
    r = gatebench_cli("matrix", "--worker", "claude", "--configs", "none,tests,adv", "--tasks", "T1,T2", "--reps", "2",
                      "--max-budget-usd", "0.5", "--runs-dir", str(runs), "--dry-run",
                      env={**env, "ANTHROPIC_API_KEY": "sk-test"})
    assert "= 12 cells" in r.stdout and "cost estimate $6.00" in r.stdout
    # Both default models are explicit ids, printed up front.
    from gatebench.claude_cli import DEFAULT_REVIEWER_MODEL, DEFAULT_WORKER_MODEL

    assert f"worker {DEFAULT_WORKER_MODEL} (default); reviewers {DEFAULT_REVIEWER_MODEL} (default) in adv" in r.stdout
    assert not runs.exists(), "--dry-run writes nothing"


# ---------------------------------------------------------------- running matrices (real CLI, sim worker)


def matrix_cmd(runs: Path, run_id: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "gatebench", "matrix", "--worker", "sim", "--runs-dir", str(runs),
            "--run-id", run_id, *extra]


def records(runs: Path, run_id: str) -> list[dict]:
    """The ledger's whole lines: polled while a cell appends, a last line without its newline is no record yet."""
    path = runs / run_id / "results.jsonl"
    text = path.read_text() if path.exists() else ""
    return [json.loads(x) for x in text.splitlines(keepends=True) if x.endswith("\n")]


RUN_ENV = "GATEBENCH_TEST_RUN"  # set on every matrix this test starts; inherited by its fork server and cells


def matrix_env(run_dir: Path) -> dict[str, str]:
    return {**os.environ, RUN_ENV: str(run_dir.resolve())}


def cell_leftovers(run_dir: Path) -> list[str]:
    """Processes still running for this run, and only this run (other matrices may share the machine): by
    the cell marker, or by RUN_ENV, which the matrix's fork server and cell children inherit from it."""
    pids = set(cell_processes(f"{run_dir.resolve()}/"))
    mine = f"{RUN_ENV}={run_dir.resolve()}".encode()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                env = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if mine in env:
                pids.add(int(name))
    return [c for c in map(_cmdline, sorted(pids)) if c is not None]


def _cmdline(pid: int) -> str | None:
    """A process's command line, None once it is gone (it may exit between the listing and the read)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()[:200].decode(errors="replace")
    except OSError:
        return None


def wait_no_leftovers(run_dir: Path, timeout: float = 90) -> list[str]:
    # Generous: on a loaded machine stopping a cell (SIGTERM, 2 s grace, SIGKILL, reap) takes a while; a leak
    # would outlive any bound (the CLI runs on to its own 900 s cap).
    deadline = time.monotonic() + timeout
    left = cell_leftovers(run_dir)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = cell_leftovers(run_dir)
    return left


def wait_records(runs: Path, run_id: str, n: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while len(records(runs, run_id)) < n:
        assert proc.poll() is None, f"matrix ended early: {proc.returncode}"
        assert time.monotonic() < deadline, "no record in time"
        time.sleep(0.1)


# Every config x 2 tasks x 1 rep (18 cells) proves kill, resume and one record per cell. The full
# matrix (every task, 2 reps: 216 cells, about 12 min on 2 cores) runs from `scripts/bench --kill-resume`, which
# sets GATEBENCH_CI_MATRIX_TASKS=all.
CI_TASKS = os.environ.get("GATEBENCH_CI_MATRIX_TASKS", "T1,T2")
CI_REPS = int(os.environ.get("GATEBENCH_CI_MATRIX_REPS", "1"))  # scripts/bench --kill-resume runs 2 over every task


@pytest.mark.cli
@pytest.mark.slow
def test_sim_matrix_of_every_config_survives_sigterm_and_kill_9_and_resumes_to_one_record_per_cell(tmp_path: Path):
    require_claude()
    from gatebench.matrix.matrix import all_configs

    runs, run_id = tmp_path / "runs", "ci"
    run_dir = runs / run_id
    configs = all_configs()
    tasks = [t for t in CI_TASKS.split(",") if t] if CI_TASKS != "all" else None
    args = ["--reps", str(CI_REPS), "--jobs", "3", "--configs", ",".join(configs)] + (["--tasks", ",".join(tasks)] if tasks else [])

    # SIGTERM (what Ctrl-C or a scheduler sends): every cell's processes stop, the ledger stays valid.
    env = matrix_env(run_dir)
    p = subprocess.Popen(matrix_cmd(runs, run_id, *args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env)
    wait_records(runs, run_id, 1, p)
    p.send_signal(signal.SIGTERM)
    out = p.communicate(timeout=60)[0].decode()
    assert p.returncode == 130, out
    assert wait_no_leftovers(run_dir) == []
    after_term = len(records(runs, run_id))

    # kill -9 of the matrix alone, midway through cells: their workers notice and stop everything they started.
    p = subprocess.Popen(matrix_cmd(runs, run_id, *args), cwd=ROOT, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    wait_records(runs, run_id, after_term + 1, p)
    time.sleep(1.0)
    p.kill()
    p.wait()
    assert wait_no_leftovers(run_dir) == [], "kill -9 of the matrix left cell processes running"

    r = subprocess.run(matrix_cmd(runs, run_id, *args), cwd=ROOT, capture_output=True, text=True, timeout=3600,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    recs = [ResultRecord.model_validate_json(x) for x in lines]
    want_tasks = tasks or sorted({x.task for x in recs})
    want = sorted(f"{c}/{t}/{rep}" for c in configs for t in want_tasks for rep in range(CI_REPS))
    assert sorted(x.cell_id for x in recs) == want, "exactly one record per cell"
    assert all(x.status == "ok" for x in recs), [(x.cell_id, x.error) for x in recs if x.status != "ok"]
    assert wait_no_leftovers(run_dir) == []
    # Known by construction: the same (task, rep) starts from the same first attempt under every config,
    # and with no gate the final verdict is the first stop's.
    firsts: dict[tuple, set] = {}
    for x in recs:
        firsts.setdefault((x.task, x.rep), set()).add(x.sim.first_state)
        if x.config == "none":
            assert x.blocks == 0 and x.solved == (x.first_stop_solved and not x.tamper), x.cell_id
    assert all(len(v) == 1 for v in firsts.values()), firsts
    # Resume is the default: a finished run runs nothing more.
    r = subprocess.run(matrix_cmd(runs, run_id, *args), cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0 and "0 to run" in r.stdout
    assert (run_dir / "results.jsonl").read_text().splitlines() == lines


@pytest.mark.cli
def test_at_the_cost_ceiling_no_new_cell_starts(tmp_path: Path):
    require_claude()
    runs = tmp_path / "runs"
    r = subprocess.run(matrix_cmd(runs, "cost", "--configs", "none", "--tasks", "T1,T2", "--jobs", "1",
                                  "--max-cost-usd", "0.001"), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    recs = records(runs, "cost")
    assert len(recs) == 1 and recs[0]["cost_usd"] > 0.001
    assert "cost ceiling $0.001 reached: 1 cell(s) not started" in r.stderr


def test_a_worker_that_crashes_at_start_is_retried_then_recorded_once_as_infra_error(tmp_path: Path):
    fake = tmp_path / "claude"
    fake.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi\n'
                    'echo "segfault in native loader" >&2\nexit 139\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    runs = tmp_path / "runs"
    env = {**os.environ, "GATEBENCH_CLAUDE": str(fake)}
    # --unsealed: a fake CLI cannot prove the seal (the probe would refuse to start, exit 2).
    r = subprocess.run(matrix_cmd(runs, "crash", "--configs", "none", "--tasks", "T1", "--retries", "1", "--unsealed"),
                       cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    recs = records(runs, "crash")
    assert len(recs) == 1 and recs[0]["status"] == "infra_error" and recs[0]["attempt_no"] == 2
    assert "segfault in native loader" in recs[0]["error"] and not recs[0]["solved"]
    infra = [json.loads(x) for x in (runs / "crash" / "infra.jsonl").read_text().splitlines()]
    assert [(x["attempt_no"], x["final"]) for x in infra] == [(1, False), (2, True)]
    # A rerun does not retry a cell whose final record is in the ledger.
    r = subprocess.run(matrix_cmd(runs, "crash", "--configs", "none", "--tasks", "T1", "--retries", "1", "--unsealed"),
                       cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert "0 to run" in r.stdout and len(records(runs, "crash")) == 1


def test_a_resumed_run_must_keep_its_caps(tmp_path: Path):
    require_claude()
    runs = tmp_path / "runs"
    (runs / "r").mkdir(parents=True)
    (runs / "r" / "run.json").write_text(json.dumps({"pinned": {"worker": "sim", "model": "m-old"}}))
    r = subprocess.run(matrix_cmd(runs, "r", "--configs", "none", "--tasks", "T1"), cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "was started with other settings" in r.stderr and "m-old" in r.stderr
    assert not (runs / "r" / "results.jsonl").exists()


def test_run_and_matrix_refuse_caps_that_are_not_positive(tmp_path: Path):
    for verb in (["matrix", "--dry-run", "--runs-dir", str(tmp_path)], ["run", str(tmp_path)]):
        r = subprocess.run([sys.executable, "-m", "gatebench", *verb, "--max-turns", "0"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert "--max-turns, --timeout-s and --max-budget-usd must be positive" in r.stderr
    assert not any(tmp_path.iterdir())
