"""Fault tolerance of the matrix: kill -9 at any moment, rerun at once, one clean record per cell, no orphan.

Processes "of the first run" are named by what that run started, never by a host-wide count: the
process tree under the killed matrix at the moment of the kill, plus every process whose attempt
marker names the killed matrix as its owner (`<cell>/@<matrix pid>-...`), in its environment or its
command line (the watchdogs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_harness import require_claude

from gatebench.cell.workers.launch import CELL_ENV, descendants
from gatebench.matrix.matrix import RunOwner
from gatebench.models.result import ResultRecord

ROOT = Path(__file__).resolve().parent.parent
# The fastest configs: 8 cells, so three moments and three jobs leave cells mid-run at each kill (12 cells, reps 3,
# cost a third more for the same three kills: 166 s at load 1-4, 2026-12-02).
CONFIGS, TASKS, REPS = "none,oracle", "T1,T2", "2"
CELLS = 2 * 2 * int(REPS)


def matrix(runs: Path, run_id: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "gatebench", "matrix", "--worker", "sim", "--runs-dir", str(runs), "--run-id",
           run_id, "--configs", CONFIGS, "--tasks", TASKS, "--reps", REPS, "--jobs", "3"]
    with open(runs / f"matrix-{time.monotonic_ns()}.log", "wb") as log:
        return subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def records(run_dir: Path) -> list[dict]:
    """The ledger's whole lines. The test polls it while a cell appends, and one `write` of a large record may
    land in two reads: a last line without its newline is not a record yet (the ledger cuts a torn one)."""
    path = run_dir / "results.jsonl"
    text = path.read_text() if path.exists() else ""
    return [json.loads(x) for x in text.splitlines(keepends=True) if x.endswith("\n")]


def start_time(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    return None if fields[0] == b"Z" else fields[19].decode()  # a zombie is dead, only not yet reaped


def owned_by(matrix_pid: int, run_dir: Path) -> set[tuple[int, str]]:
    """Live processes whose attempt marker names `matrix_pid` as owner (environment or command line)."""
    prefix = f"{run_dir.resolve()}/".encode()
    tag = f"/@{matrix_pid}-".encode()
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            env = Path(f"/proc/{name}/environ").read_bytes()
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        hit = any(v.startswith(f"{CELL_ENV}=".encode() + prefix) and tag in v for v in env.split(b"\0"))
        if hit or (prefix in cmd and tag in cmd):
            st = start_time(int(name))
            if st:
                found.add((int(name), st))
    return found


def alive(procs: set[tuple[int, str]]) -> list[str]:
    out = []
    for pid, st in procs:
        if start_time(pid) == st:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:150].decode(errors="replace")
            except OSError:
                continue
            out.append(f"{pid}: {cmd}")
    return out


def kill(p: subprocess.Popen, run_dir: Path) -> tuple[set, float]:
    """The processes of the run under matrix `p` (its tree and its markers), then SIGKILL it."""
    tree = {(pid, st) for pid in descendants(p.pid) if (st := start_time(pid))}
    tree |= owned_by(p.pid, run_dir)
    p.kill()
    killed_at = time.monotonic()
    p.wait()
    return tree, killed_at


@pytest.mark.cli
@pytest.mark.slow
def test_kill_9_at_three_moments_and_rerun_at_once_ends_with_one_ok_record_per_cell(tmp_path: Path):
    require_claude()
    runs = tmp_path / "runs"
    runs.mkdir()
    run_dir = runs / "k"
    moments = [
        lambda: time.sleep(2.0) or True,  # preps and first CLIs starting, no record yet
        lambda: len(records(run_dir)) >= 1,  # cells mid-run, some recorded
        lambda: len(records(run_dir)) >= CELLS - 3,  # late: most recorded, the rest (one per job) mid-run
    ]
    live = [matrix(runs, "k")]
    try:
        for i, ready in enumerate(moments):
            p = live[-1]
            deadline = time.monotonic() + 240
            while not ready():
                assert p.poll() is None, f"matrix ended before moment {i}"
                assert time.monotonic() < deadline, f"moment {i} never came"
                time.sleep(0.05)
            time.sleep(0.3)
            assert p.poll() is None, f"matrix ended before moment {i}"
            tree, killed_at = kill(p, run_dir)
            live.append(matrix(runs, "k"))  # at once: it must wait for the killed run's survivors, never race them
            time.sleep(max(0.0, killed_at + 5.0 - time.monotonic()))
            left = alive(tree | owned_by(p.pid, run_dir))
            assert left == [], f"moment {i}: processes of the killed matrix alive 5 s after kill -9: {left}"
        logs = "\n".join(x.read_text()[-1500:] for x in sorted(runs.glob("*.log")))
        assert live[-1].wait(timeout=600) == 0, logs
    finally:
        if live[-1].poll() is None:
            live[-1].terminate()
            live[-1].wait(timeout=60)
    recs = [ResultRecord.model_validate(r) for r in records(run_dir)]
    ids = sorted(r.cell_id for r in recs)
    assert len(ids) == CELLS and len(set(ids)) == CELLS, ids
    assert [(r.cell_id, r.error) for r in recs if r.status != "ok"] == []
    infra = run_dir / "infra.jsonl"
    assert not infra.exists() or infra.read_text() == "", infra.read_text()


def test_a_second_owner_is_refused_while_the_first_lives_and_waits_for_a_dead_owners_survivors(tmp_path: Path):
    run_dir = tmp_path / "r"
    first = RunOwner(run_dir)
    first.acquire()
    from gatebench.errors import UsageError

    with pytest.raises(UsageError, match="owned by a running matrix"):
        RunOwner(run_dir).acquire()
    first.release()
    # A cell child of a dead owner still holds `.alive`: the next owner waits for it, printing what it waits for.
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl,os,sys,time\n"
                               f"fd=os.open({str(run_dir / '.alive')!r}, os.O_RDWR)\n"
                               "fcntl.flock(fd, fcntl.LOCK_SH)\nprint('held', flush=True)\ntime.sleep(1.5)\n"],
                              stdout=subprocess.PIPE)
    assert holder.stdout.readline() == b"held\n"
    log = tmp_path / "out.txt"
    with open(log, "w") as out:
        t0 = time.monotonic()
        second = RunOwner(run_dir, out=out)
        second.acquire()
    assert time.monotonic() - t0 >= 0.5 and holder.wait(timeout=5) == 0
    assert f"waiting for 1 process(es) of an earlier matrix on run r to end: {holder.pid}" in log.read_text()
    second.release()
    # Survivors that never end: a clear refusal naming them, after the wait.
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl,os,time\n"
                               f"fd=os.open({str(run_dir / '.alive')!r}, os.O_RDWR)\n"
                               "fcntl.flock(fd, fcntl.LOCK_SH)\nprint('held', flush=True)\ntime.sleep(60)\n"],
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        with open(log, "w") as out, pytest.raises(UsageError, match=rf"still run after 1 s: {holder.pid} "):
            RunOwner(run_dir, out=out, wait_s=1.0).acquire()
    finally:
        holder.kill()
        holder.wait()


def test_a_cell_child_killed_hard_is_scored_by_a_finalize_child_and_its_attempt_swept(tmp_path: Path):
    # The "CLI" kills its parent, the cell's child process, with SIGKILL: nothing of the child's own cleanup
    # runs. The matrix scores the cell in another child (never in its own process), and the attempt's
    # watchdog kills the daemon the "CLI" left behind.
    pidfile = tmp_path / "daemon.pid"
    fake = tmp_path / "claude"
    fake.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi\n'
                    f'setsid sleep 120 & echo $! > {pidfile}\n'
                    'echo "about to kill my parent" >&2\nkill -9 $PPID\nsleep 120\n')
    fake.chmod(0o755)
    runs = tmp_path / "runs"
    cmd = [sys.executable, "-m", "gatebench", "matrix", "--worker", "sim", "--runs-dir", str(runs), "--run-id", "h",
           "--configs", "none", "--tasks", "T1", "--retries", "0", "--unsealed"]  # a fake CLI cannot prove the seal
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "GATEBENCH_CLAUDE": str(fake)})
    assert r.returncode == 1, r.stdout + r.stderr
    [rec] = records(runs / "h")
    assert rec["status"] == "infra_error" and "no worker.json" in rec["error"], rec["error"]
    daemon = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while start_time(daemon) is not None:
        assert time.monotonic() < deadline, "the dead child's attempt left its daemon running"
        time.sleep(0.1)
