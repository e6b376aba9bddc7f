"""kill -9 of the matrix: its fork server dies at once, by the kernel, not when the last child lets go of a pipe.

A child the fork server has just forked holds the server's "alive" pipe (and the resource tracker's) until
`_child_setup` closes them; on a loaded machine a child's start (unpickling, importing `__main__`) takes
seconds. Here a child takes 3 s to reach `_child_setup`: the server must be gone well before, the child must
then stop at `_child_setup` rather than run its cell as an orphan, and nothing of the tree may outlive it.
The same for selftest's (and so task mine's) hook: killed, its caller takes the hook down with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SLOW_CHILD = '''
import os, sys, time

def main(cell_dir, alive_path, ran_path, *_code):
    time.sleep(3.0)  # a slow start: the matrix is killed meanwhile
    from gatebench.matrix.matrix import _child_setup
    _child_setup(cell_dir, alive_path, os.O_TRUNC)
    open(ran_path, "w").write("ran")  # the cell would run here, as an orphan
    time.sleep(60)
'''

MATRIX = '''
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import multiprocessing.forkserver as mpfs, multiprocessing.resource_tracker as mprt
from gatebench.matrix.matrix import _forkserver
import slow_child
ctx = _forkserver()
p = ctx.Process(target=slow_child.main, args=tuple(sys.argv[2:5]))
p.start()
print(json.dumps({"server": mpfs._forkserver._forkserver_pid, "tracker": mprt._resource_tracker._pid,
                  "child": p.pid}), flush=True)
time.sleep(600)
'''


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2 :].split()[0] != b"Z"


def wait_gone(pids: dict[str, int], bound_s: float) -> list[str]:
    deadline = time.monotonic() + bound_s
    while (left := [k for k, v in pids.items() if alive(v)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@contextlib.contextmanager
def played_matrix(tmp_path: Path):
    """(the playing matrix's process, the pids of its server, tracker and child, the file the child's cell
    writes when it runs); whatever is left is killed after."""
    (tmp_path / "slow_child.py").write_text(SLOW_CHILD)
    cell, ran = tmp_path / "cell", tmp_path / "ran"
    cell.mkdir()
    m = subprocess.Popen([sys.executable, "-c", MATRIX, str(tmp_path), str(cell), str(tmp_path / ".alive"), str(ran)],
                         cwd=ROOT, stdout=subprocess.PIPE)
    pids: dict[str, int] = {}
    try:
        assert m.stdout is not None
        pids.update(json.loads(m.stdout.readline()))
        yield m, pids, ran
    finally:
        if m.poll() is None:
            m.kill()
            m.wait()
        wait_gone(pids, 10.0)
        for pid in pids.values():
            if alive(pid):
                os.kill(pid, 9)


def test_kill_9_of_the_matrix_kills_its_fork_server_at_once_and_a_starting_child_stops(tmp_path: Path):
    with played_matrix(tmp_path) as (m, pids, ran):
        assert all(alive(p) for p in pids.values()), pids
        m.kill()
        m.wait()
        # The server: before the child's 3 s start is over (the old pipe-only server waited for it).
        assert wait_gone({"server": pids["server"]}, 1.5) == [], "fork server alive after the matrix's kill -9"
        # The child reaches _child_setup, sees its server gone, and stops; the tracker follows its last holder.
        assert wait_gone(pids, 10.0) == [], f"alive 10 s after the matrix's kill -9: {pids}"
        assert not ran.exists(), "a child of the dead matrix ran its cell as an orphan"


def test_a_living_matrix_keeps_its_fork_server_and_its_child_runs(tmp_path: Path):
    # The case beside it: the death signal is armed, yet nothing fires while the matrix lives.
    with played_matrix(tmp_path) as (_m, pids, ran):
        deadline = time.monotonic() + 30
        while not ran.exists():
            assert time.monotonic() < deadline, "the child never ran"
            time.sleep(0.05)
        assert [k for k, v in pids.items() if not alive(v)] == []


HOOK_CALLER = '''
import sys
from gatebench.suite.selftest import run_hook
run_hook([sys.executable, "-c", "import os, time; open(PID_FILE, 'w').write(str(os.getpid())); time.sleep(60)"], "")
'''


def test_a_killed_selftest_or_mine_leaves_no_hook_running(tmp_path: Path):
    # A mine stopped by SIGTERM left `python -m gatebench.hook stop` (and the oracle under it) running for
    # minutes, reparented to init: the hook is started to die with the thread that started it.
    pid_file = tmp_path / "hook.pid"
    caller = subprocess.Popen([sys.executable, "-c", HOOK_CALLER.replace("PID_FILE", repr(str(pid_file)))], cwd=ROOT)
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    assert alive(pid)
    caller.kill()
    caller.wait()
    assert wait_gone({"hook": pid}, 10) == []
