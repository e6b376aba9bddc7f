"""Start the CLI for one cell attempt, watch it, and make sure nothing it started outlives it.

The CLI runs in its own session (process group). Everything started under it (hooks, the hidden
oracle's pytest, the agent's Bash children, some of which open sessions of their own) inherits the
environment variable CELL_ENV, whose value is the attempt's marker: `<cell dir>/@<owner>.<token>`,
unique per attempt, so a cleanup only ever kills its own attempt's processes (a prefix `<cell dir>/`
or `<run dir>/` finds every attempt's, for a survivor check, never for a kill).

How nothing outlives an attempt, even a `kill -9` of whoever called `launch`:
- the CLI gets PR_SET_PDEATHSIG(SIGKILL): it dies with the thread that started it;
- a watchdog (a tiny `python -S` in its own session) holds the read end of a pipe whose write end
  only this process holds; when this process ends, however it ends, the pipe closes and the watchdog
  kills every process with the attempt's marker, then exits (an event, not a poll);
- this process is a child subreaper: a descendant that double-forks out of the group is reparented
  here, and the cleanup kills every descendant started since `launch` began, marked or not;
- the watch loop ends the run on the wall cap, on a stop request, or when the parent has died.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO

from gatebench.common.proc import become_subreaper, die_with_parent, end_group, kill_marked, marked

CELL_ENV = "GATEBENCH_CELL"
POLL_S = 0.05
GRACE_S = 2.0
OUTPUT_CAP = 256 << 20  # bytes of the CLI's stdout or stderr; past it the run is cut (a runaway, not a session)

# Lock fds (flock) this process holds for as long as anything it started may live: the cell lock of
# `run`, a matrix child's share of the run's `.alive`. Every watchdog inherits them, so a lock is
# released only once the watchdog has swept the attempt's processes, not when this process dies.
_HELD: list[int] = []

# The watchdog: blocks on its stdin until EOF, then kills every process marked with argv[1].
# Self-contained and `python -S`: it starts in ~10 ms and holds no gatebench module.
WATCHDOG = r"""
import os, signal, sys, time
needle = ("%s=%s" % (sys.argv[1], sys.argv[2])).encode()
try:
    while os.read(0, 4096):
        pass
except OSError:
    pass
me = os.getpid()
end = time.monotonic() + 10
while time.monotonic() < end:
    pids = []
    for n in os.listdir("/proc"):
        if n.isdigit() and int(n) != me:
            try:
                with open("/proc/%s/environ" % n, "rb") as f:
                    if any(v.startswith(needle) for v in f.read().split(b"\0")):
                        pids.append(int(n))
            except OSError:
                pass
    if not pids:
        break
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.05)
"""


def cell_processes(prefix: str) -> list[int]:
    """Pids of processes whose CELL_ENV starts with `prefix`: an attempt's marker, a cell dir or a run dir."""
    return marked(CELL_ENV, prefix)


def reap(marker: str) -> list[int]:
    """SIGKILL every process of one attempt (its full marker); returns the pids killed."""
    if "/@" not in marker:
        raise ValueError(f"reap takes one attempt's marker, not a prefix: {marker!r}")
    return kill_marked(CELL_ENV, marker)


def attempt_marker(cell_root: Path, owner: str | None = None) -> str:
    """A marker unique to one attempt on one cell; `owner` names who started it (a matrix), default this process."""
    owner = owner or f"{os.getpid()}-{uuid.uuid4().hex[:6]}"
    return f"{Path(cell_root).resolve()}/@{owner}.{uuid.uuid4().hex[:12]}"


def hold_for_life(fd: int) -> None:
    """Keep lock `fd` held by every watchdog this process starts from now on (see _HELD)."""
    _HELD.append(fd)


def release(fd: int) -> None:
    """Let go of a lock fd of this process; watchdogs started with it keep their copy until they end."""
    if fd in _HELD:
        _HELD.remove(fd)
    os.close(fd)


class CellBusy(Exception):
    pass


def lock_cell(cell_root: Path) -> int:
    """Take the cell's run lock (`<cell>/.run.lock`) or raise CellBusy. Held until this process and
    the watchdog of its attempt are gone."""
    import fcntl

    fd = os.open(Path(cell_root) / ".run.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise CellBusy(f"{cell_root} is being run by another process (or its last processes are still being "
                       "stopped); wait for it")
    hold_for_life(fd)
    return fd


def start_watchdog(marker: str) -> tuple[subprocess.Popen | None, int | None]:
    """(watchdog, write end of its lifeline). Closing the write end (or dying) makes it sweep the marker."""
    r, w = os.pipe()  # both ends non-inheritable: only the watchdog gets r (as stdin), only we hold w
    try:
        dog = subprocess.Popen([sys.executable, "-S", "-c", WATCHDOG, CELL_ENV, marker], stdin=r,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               pass_fds=tuple(_HELD), env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    except OSError:
        os.close(w)
        return None, None
    finally:
        os.close(r)
    return dog, w


def children_of(pid: int) -> dict[int, int]:
    """pid -> ppid of every process, from /proc (one pass)."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
                out[int(entry)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return out


def descendants(pid: int) -> set[int]:
    parents = children_of(pid)
    found, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier and c not in found}
        found |= frontier
    return found


def kill_new_descendants(before: set[int], spare: set[int], rounds: int = 5) -> None:
    """Kill this process's descendants that were not there before (orphans reparented to us as subreaper)."""
    for _ in range(rounds):
        pids = descendants(os.getpid()) - before - spare
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in pids:  # reap the zombies we now parent
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        time.sleep(0.02)


def launch(argv: list[str], *, cwd: Path, env: dict[str, str], stdout: Path, stderr: Path, timeout_s: float,
           stop: Callable[[], str | None] = lambda: None) -> dict:
    """Run argv to the end, or until the wall cap / `stop()` says why to stop. Never raises for the child's faults.

    Returns {rc, wall_s, timed_out, killed, error}: `killed` is the reason the run was cut (None if it ended
    on its own), `error` is set when the process could not start at all. env[CELL_ENV], if set, must be an
    attempt marker (attempt_marker).
    """
    attempt = _Attempt(env.get(CELL_ENV))
    try:
        with open(stdout, "wb") as out, open(stderr, "wb") as err:
            try:
                proc = subprocess.Popen(argv, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=err, start_new_session=True, preexec_fn=die_with_parent())
            except OSError as e:
                return {"rc": None, "wall_s": 0.0, "timed_out": False, "killed": None,
                        "error": f"cannot start {argv[0]}: {e}"}
            killed = None
            try:
                killed = _watch(proc, lambda: attempt.cut_reason(timeout_s, out, err, stop))
            except BaseException:
                killed = "interrupted"
                raise
            finally:
                attempt.end(proc, killed)
    finally:
        attempt.close()
    return {"rc": proc.returncode, "wall_s": round(time.monotonic() - attempt.t0, 3),
            "timed_out": bool(killed and killed.startswith("wall cap")), "killed": killed, "error": None}


def _watch(proc: subprocess.Popen, cut: Callable[[], str | None]) -> str | None:
    """Wait for the CLI to end, or for `cut` to give a reason to end it (returned; else cut's last word)."""
    killed = None
    while True:
        try:
            proc.wait(POLL_S)  # returns the moment the CLI exits; otherwise a tick of the watch
            return killed
        except subprocess.TimeoutExpired:
            pass
        killed = cut()
        if killed:
            return killed


class _Attempt:
    """What one launch keeps to make sure nothing it started outlives it (see the module doc)."""

    def __init__(self, marker: str | None):
        self.parent = os.getppid()
        self.t0 = time.monotonic()
        self.marker = marker
        become_subreaper()
        self.before = descendants(os.getpid())
        dog, self.lifeline = start_watchdog(marker) if marker else (None, None)
        self.spare = {dog.pid} if dog else set()

    def cut_reason(self, timeout_s: float, out: IO[bytes], err: IO[bytes],
                   stop: Callable[[], str | None]) -> str | None:
        if time.monotonic() - self.t0 > timeout_s:
            return f"wall cap of {timeout_s:g} s"
        if max(os.fstat(out.fileno()).st_size, os.fstat(err.fileno()).st_size) > OUTPUT_CAP:
            return f"output cap of {OUTPUT_CAP >> 20} MiB"
        if os.getppid() != self.parent:
            return "the process that started this worker died"
        return stop()

    def end(self, proc: subprocess.Popen, killed: str | None) -> None:
        # A dead parent (kill -9 of the matrix) gets no grace: the 5 s bound counts from its death.
        # Reaped by Popen first: its exit status must not be taken below.
        end_group(proc, GRACE_S, term=bool(killed or proc.poll() is None) and os.getppid() == self.parent)
        # Children that outlived the CLI, or left its group, go too.
        if self.marker:
            reap(self.marker)
        kill_new_descendants(self.before, self.spare | {proc.pid})

    def close(self) -> None:
        if self.lifeline is not None:
            os.close(self.lifeline)  # the watchdog sweeps once more (finds nothing) and exits
