"""A process that leaves the group and keeps the output pipes open: every runner stays bounded and kills it.

The escapee is `setsid sleep` started with the caller's stdout/stderr (pipes to gatebench): a group
kill misses it, and a wait for EOF on the pipes would last as long as it does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXED, alive, hook_input, run_hook, write_tree

from gatebench.common import proc
from gatebench.oracle.oracle import run_oracle
from gatebench.review import runproc

# The escapee writes its pid from inside its new session, and the shell waits for that before it ends:
# otherwise the group kill at the shell's exit could land before setsid() and there would be no escapee.
ESCAPE = ("rm -f {pidfile}; setsid sh -c 'echo $$ > {pidfile}; exec sleep 120' & "
          "while [ ! -s {pidfile} ]; do sleep 0.01; done; echo started")



def test_proc_run_returns_at_once_when_an_escapee_holds_the_pipes_and_kills_it(tmp_path: Path):
    pidfile = tmp_path / "pid"
    t0 = time.monotonic()
    r = proc.run(ESCAPE.format(pidfile=pidfile), cwd=str(tmp_path), timeout_s=30)
    assert time.monotonic() - t0 < 10
    assert r.returncode == 0 and r.stdout.strip() == "started" and r.held_pipes
    assert not alive(int(pidfile.read_text()))
    # The same when the command itself hangs: the timeout, then the pipes are let go.
    t0 = time.monotonic()
    r = proc.run(ESCAPE.format(pidfile=pidfile) + "; sleep 120", cwd=str(tmp_path), timeout_s=1)
    assert time.monotonic() - t0 < 10 and r.timed_out and r.returncode is None
    assert not alive(int(pidfile.read_text()))


def test_proc_run_enforces_its_output_cap_while_reading(tmp_path: Path):
    # 50 MB of output against a 1 MB cap: the tail is kept, memory never holds the rest.
    cmd = [sys.executable, "-c", "import sys\nfor i in range(50):\n    sys.stdout.write(str(i % 10) * 1000000)\n"
           "sys.stdout.write('END')\n"]
    r = proc.run(cmd, cwd=str(tmp_path), timeout_s=60, cap=1_000_000)
    assert r.returncode == 0 and r.truncated
    assert len(r.stdout) == 1_000_000 and r.stdout.endswith("END")
    raw = proc.run_raw(cmd, cwd=str(tmp_path), timeout_s=60, cap=1000, keep="head")
    assert raw.stdout == b"0" * 1000 and raw.overflow


def test_a_reviewer_whose_child_escapes_with_the_pipes_is_bounded(tmp_path: Path):
    pidfile = tmp_path / "pid"
    t0 = time.monotonic()
    r = runproc.run(["sh", "-c", ESCAPE.format(pidfile=pidfile)], cwd=str(tmp_path), env=dict(os.environ),
                    timeout_s=30, stdin=b"x" * 1_000_000)  # a big stdin it never reads must not stall us either
    assert time.monotonic() - t0 < 10
    assert r.returncode == 0 and r.stdout == b"started\n"
    assert not alive(int(pidfile.read_text()))


@pytest.mark.parametrize("sandbox_mode", ["off", "required"])
def test_the_oracle_is_bounded_when_a_test_leaves_a_daemon_holding_its_pipes(calc_repo: Path, tmp_path: Path,
                                                                             sandbox_mode: str):
    pidfile = tmp_path / "pid"
    (calc_repo / "calc.py").write_text(FIXED)
    hidden = tmp_path / "hidden"
    # In the sandbox the host's tmp is out of reach (and pids are the namespace's): the daemon's pid then
    # stays inside, and killing bwrap ends its whole pid namespace.
    where = str(pidfile) if sandbox_mode == "off" else "/tmp/pid"
    # close_fds=False: the daemon also inherits pytest's saved copies of the real stdout/stderr (our pipes).
    write_tree(hidden, {"test_h.py": "import subprocess\nfrom calc import add\n\n"
                                     "def test_add():\n"
                                     "    p = subprocess.Popen(['setsid', 'sleep', '120'], close_fds=False)\n"
                                     f"    open({where!r}, 'w').write(str(p.pid))\n"
                                     "    assert add(2, 3) == 5\n"})
    t0 = time.monotonic()
    r = run_oracle(str(calc_repo), str(hidden), "{python} -m pytest -q -p no:cacheprovider hidden_tests",
                   timeout_s=20, sandbox_mode=sandbox_mode)
    assert time.monotonic() - t0 < 15
    assert r["solved"] is True and r["error"] is None, r
    assert r["sandboxed"] is (sandbox_mode == "required")
    if sandbox_mode == "off":
        assert not alive(int(pidfile.read_text()))


def test_a_stop_whose_tests_leave_a_daemon_holding_the_pipes_is_bounded(installed, tmp_path: Path):
    repo, state = installed
    pidfile = tmp_path / "pid"
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["gates"][1].update(command=ESCAPE.format(pidfile=pidfile), timeout_s=60)
    (state / "config.json").write_text(json.dumps(cfg))
    (repo / "calc.py").write_text(FIXED)
    t0 = time.monotonic()
    _out, ev = run_hook(state, hook_input(repo))
    assert time.monotonic() - t0 < 15, "the stop waited on pipes held by a process outside the tests' group"
    assert ev["gates"][1]["verdict"] == "pass" and ev["decision"] == "allow"
    assert not alive(int(pidfile.read_text()))


def test_a_killed_runners_watchdog_kills_its_own_attempt_only_then_frees_the_cell(tmp_path: Path):
    cell = tmp_path / "cell"
    cell.mkdir()
    script = (
        "import os, subprocess, sys, time\n"
        "from gatebench.cell.workers.launch import CELL_ENV, attempt_marker, lock_cell, start_watchdog\n"
        f"cell = {str(cell)!r}\n"
        "lock_cell(cell)\n"
        "mine = attempt_marker(cell)\n"
        "dog, lifeline = start_watchdog(mine)\n"
        "p = subprocess.Popen(['setsid', 'sleep', '120'], env={**os.environ, CELL_ENV: mine})\n"
        "# another attempt's process in the same cell: not ours to kill\n"
        "q = subprocess.Popen(['setsid', 'sleep', '120'], env={**os.environ, CELL_ENV: attempt_marker(cell)})\n"
        "print(p.pid, q.pid, dog.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    runner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    mine, other, dog = map(int, runner.stdout.readline().split())
    try:
        from gatebench.cell.workers.launch import CellBusy, lock_cell, release

        with pytest.raises(CellBusy):
            lock_cell(cell)
        runner.kill()  # kill -9: no cleanup code of its own runs
        runner.wait()
        assert not alive(mine), "the watchdog did not kill the dead runner's attempt"
        assert alive(other), "a cleanup killed another attempt's process"
        deadline = time.monotonic() + 10
        while True:  # the cell is free once the watchdog, which holds the lock too, is done
            try:
                release(lock_cell(cell))
                break
            except CellBusy:
                assert time.monotonic() < deadline, "the cell stayed locked"
                time.sleep(0.1)
        assert not alive(dog)
    finally:
        os.kill(other, 9)
