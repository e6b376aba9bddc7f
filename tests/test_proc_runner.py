"""The one process runner (gatebench/common/proc.py): a timed-out command's whole tree dies, on every path that
runs a shell command with a deadline (the hook's run, task import's diagnosis, install's hook check)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from conftest import alive

from gatebench.common import proc
from gatebench.installer.install import check_command
from gatebench.suite.taskimport.runs import diagnose


def _grandchild(pidfile: Path) -> str:
    """A shell that starts a long sleep in the background and waits for it: only a group kill ends the sleep."""
    return f"sleep 300 & echo $! > {pidfile}; wait"


def _check_grandchild_dies(pidfile: Path) -> None:
    pid = int(pidfile.read_text())
    try:
        assert not alive(pid), f"the background sleep {pid} outlived its timed-out shell"
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_run_kills_the_grandchildren_of_a_timed_out_command(tmp_path):
    pidfile = tmp_path / "pid"
    t0 = time.monotonic()
    r = proc.run(_grandchild(pidfile), cwd=str(tmp_path), timeout_s=1)
    assert r.timed_out and r.returncode is None
    assert time.monotonic() - t0 < 30
    _check_grandchild_dies(pidfile)


def test_import_diagnosis_kills_the_grandchildren_of_a_timed_out_command(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    pidfile = tmp_path / "pid"
    assert diagnose(tree, _grandchild(pidfile), "python3", 1) == "(timed out after 1 s)"
    _check_grandchild_dies(pidfile)


def test_diagnosis_keeps_the_tail_of_both_streams(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    out = diagnose(tree, "for i in $(seq 40); do echo out$i; done; echo err >&2; exit 1", "python3", 30)
    assert out.splitlines()[-1] == "err" and out.splitlines()[0] == "out12"  # the last 30 lines


def test_install_check_kills_the_grandchildren_of_a_timed_out_command(tmp_path):
    pidfile = tmp_path / "pid"
    assert check_command(_grandchild(pidfile), tmp_path, timeout_s=1) == "did not exit within 1 s"
    _check_grandchild_dies(pidfile)


def test_install_check_says_why_a_command_fails_and_accepts_one_that_starts(tmp_path):
    assert check_command("true", tmp_path) is None
    assert check_command("echo nope >&2; exit 3", tmp_path) == "exit 3: nope"
    assert check_command("true", tmp_path / "gone").startswith("cannot start: ")


def test_grace_lets_a_timed_out_command_end_cleanly_before_the_kill(tmp_path):
    cmd = "trap 'echo bye; exit 3' TERM; sleep 300 & wait"
    graced = proc.run_raw(cmd, cwd=str(tmp_path), timeout_s=0.5, grace_s=5)
    assert graced.timed_out and graced.returncode is None
    assert graced.stdout == b"bye\n" and graced.exit_status == 3
    killed = proc.run_raw(cmd, cwd=str(tmp_path), timeout_s=0.5)
    assert killed.timed_out and killed.stdout == b"" and killed.exit_status == -signal.SIGKILL


def test_grace_ends_at_its_bound_for_a_command_that_ignores_sigterm(tmp_path):
    t0 = time.monotonic()
    r = proc.run_raw("trap '' TERM; while :; do sleep 0.05; done", cwd=str(tmp_path), timeout_s=0.3, grace_s=1)
    assert r.timed_out and r.exit_status == -signal.SIGKILL
    assert 1.2 <= time.monotonic() - t0 < 30  # the deadline, then the whole grace, then the kill


def test_end_group_terms_then_kills_the_group(tmp_path):
    import subprocess

    pidfile = tmp_path / "pid"
    p = subprocess.Popen(["sh", "-c", f"trap '' TERM; sleep 300 & echo $! > {pidfile}; wait"], start_new_session=True)
    deadline = time.monotonic() + 10
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.end_group(p, 0.3)
    assert p.returncode == -signal.SIGKILL  # it ignored the SIGTERM: the SIGKILL after the grace ended it
    _check_grandchild_dies(pidfile)
