"""Run a command with a deadline, in its own process group, and kill what it started (stdlib only).

Test commands start their own children (pytest-xdist, servers): killing only the shell would leave
them running after the hook returns, and Claude Code would wait on their pipes. A child can also
leave the group (setsid, a double fork) and keep our pipes open: so the pipes are read with a
deadline, never waited on without one, and every process the command started carries a unique
marker in its environment (PROC_ENV) by which the leftovers are found and killed, group or not.
Output is capped while it is read: a runaway log never grows past the cap in memory.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass

from gatebench.hook.util import signal_group

TYPE_CHECKING = False  # importing typing costs the hook's stops; only type checkers need these names
if TYPE_CHECKING:
    from typing import IO, Any

OUTPUT_CAP = 2_000_000  # bytes kept per stream; a runaway test log must not exhaust memory
REPORT_CAP = 16_000_000  # bytes of a report pipe kept (its head: a flood past it makes the report unusable)
PROC_ENV = "GATEBENCH_PROC"  # unique per run(): marks every process the command started
DRAIN_S = 0.5  # after the command ends (or is killed), how long its pipes may stay open before we stop reading

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

_prctl: Any = None  # libc's prctl once loaded, False if it cannot be


def _load_prctl():
    """libc's prctl, loaded in the parent: a preexec function must not dlopen after the fork."""
    global _prctl
    if _prctl is None:
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return _prctl or None


def die_with_parent(sig: int = signal.SIGKILL):
    """A preexec_fn: the child gets `sig` the moment the thread that started it dies (even by kill -9).

    Inherited by exec, not by fork: it covers the direct child, the markers cover its descendants.
    """
    fn = _load_prctl()
    parent = os.getpid()

    def preexec() -> None:
        if fn is not None:
            fn(PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the prctl: act as if it fired
            os.kill(os.getpid(), sig)

    return preexec


def set_pdeathsig(sig: int) -> bool:
    fn = _load_prctl()
    return fn is not None and fn(PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Orphans among this process's descendants are reparented here, not to init, so they can be found."""
    fn = _load_prctl()
    return fn is not None and fn(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def marked(name: str, value: str) -> list[int]:
    """Pids (not this one) whose environment at exec has `name=value...` (a prefix match)."""
    needle = f"{name}={value}".encode()
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if any(var.startswith(needle) for var in env.split(b"\0")):
            found.append(int(entry))
    return found


def kill_marked(name: str, value: str, rounds: int = 5) -> list[int]:
    """SIGKILL every process marked `name=value`, until none is left (a few rounds: a fork may race us)."""
    killed: list[int] = []
    for _ in range(rounds):
        pids = marked(name, value)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
    return killed


def killpg(pgid: int | None, sig: int = signal.SIGKILL) -> None:
    if pgid is not None:
        signal_group(pgid, sig)


@dataclass
class RawResult:
    returncode: int | None  # None when killed on timeout or never started
    stdout: bytes
    stderr: bytes
    seconds: float
    pgid: int | None = None
    timed_out: bool = False
    overflow: bool = False  # stdout went past the cap; what was kept is said by `keep`
    err_overflow: bool = False  # the same for stderr
    held_pipes: bool = False  # something it started kept the output pipes open after it ended
    killed: int = 0  # leftover processes killed by the marker after the command ended
    start_error: str | None = None
    report: bytes = b""  # what came through the report pipe (`report_pipe`), read alongside the output
    report_overflow: bool = False


class _Sink:
    __slots__ = ("buf", "cap", "keep", "over")

    def __init__(self, cap: int, keep: str):
        self.buf, self.cap, self.keep, self.over = bytearray(), cap, keep, False

    def add(self, chunk: bytes) -> None:
        if self.keep == "head":
            room = self.cap - len(self.buf)
            if room > 0:
                self.buf.extend(chunk[:room])
            if len(chunk) > room:
                self.over = True
            return
        self.buf.extend(chunk)
        if len(self.buf) > 2 * self.cap:  # trimmed in steps: a copy per chunk would be quadratic
            del self.buf[: len(self.buf) - self.cap]
            self.over = True

    def value(self) -> bytes:
        if len(self.buf) > self.cap:
            self.over = True
            return bytes(self.buf[-self.cap :])
        return bytes(self.buf)


def run_raw(
    cmd: list[str] | str,
    *,
    cwd: str,
    timeout_s: float,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    cap: int = OUTPUT_CAP,
    keep: str = "tail",
    report_pipe: tuple[int, int] | None = None,
) -> RawResult:
    """Run `cmd` to its end or `timeout_s`, whichever first; never longer than timeout_s + DRAIN_S + a kill.

    `keep`: "tail" keeps the last `cap` bytes of each stream (a test log's summary is at its end),
    "head" the first (a reviewer's answer is at its start). `report_pipe`: (read fd, write fd) of a pipe
    whose write end the command inherits (same number); it is read in the same loop as the output, so a
    full pipe never blocks the writer, and both ends are closed here.
    """
    t0 = time.monotonic()
    deadline = t0 + max(timeout_s, 0.01)
    marker = os.urandom(8).hex()
    env = {**(os.environ if env is None else env), PROC_ENV: marker}
    try:
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, shell=isinstance(cmd, str),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            preexec_fn=die_with_parent(), pass_fds=(report_pipe[1],) if report_pipe else (),
        )
    except (OSError, ValueError) as e:
        if report_pipe:
            _close_fds(report_pipe)
        return RawResult(None, b"", str(e).encode(), time.monotonic() - t0, start_error=str(e))
    assert proc.stdout is not None and proc.stderr is not None  # both are PIPE
    sinks: dict[Any, _Sink] = {proc.stdout: _Sink(cap, keep), proc.stderr: _Sink(cap, keep)}
    report = None
    if report_pipe:
        _close_fds(report_pipe[1:])  # only the command writes to it: EOF once it (and its children) closed it
        report = open(report_pipe[0], "rb", buffering=0, closefd=True)  # noqa: SIM115 - closed with the others
        sinks[report] = _Sink(REPORT_CAP, "head")
    sel = selectors.DefaultSelector()
    for pipe in sinks:
        os.set_blocking(pipe.fileno(), False)
        sel.register(pipe, selectors.EVENT_READ, pipe)
    pending = memoryview(stdin or b"")
    if proc.stdin is not None:
        os.set_blocking(proc.stdin.fileno(), False)
        if pending:
            sel.register(proc.stdin, selectors.EVENT_WRITE, proc.stdin)
        else:
            proc.stdin.close()
    timed_out, ended_at = False, None
    try:
        while sel.get_map():
            now = time.monotonic()
            if ended_at is None and proc.poll() is not None:
                ended_at = now
                killpg(proc.pid)  # grandchildren that outlived a normal exit still hold the group
            if ended_at is None and now >= deadline:
                timed_out, ended_at = True, now
                killpg(proc.pid)
            if ended_at is not None and now >= ended_at + DRAIN_S:
                break  # something outside the group holds the pipes: stop reading, kill it below
            limit = (ended_at + DRAIN_S) if ended_at is not None else deadline
            for key, _ in sel.select(timeout=min(max(limit - now, 0.0), 0.1)):
                f: IO[bytes] = key.data  # the pipe itself, registered as its own data
                if f is proc.stdin:
                    try:
                        n = os.write(f.fileno(), pending[:65536])
                        pending = pending[n:]
                    except BlockingIOError:
                        continue
                    except OSError:  # it did not read its input; its exit code and output will say why
                        pending = memoryview(b"")
                    if not pending:
                        sel.unregister(f)
                        f.close()
                    continue
                try:
                    chunk = os.read(f.fileno(), 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    sinks[f].add(chunk)
                else:
                    sel.unregister(f)
    finally:
        held = bool(sel.get_map()) and any(k.fileobj is not proc.stdin for k in sel.get_map().values())
        sel.close()
        killpg(proc.pid)
        killed = kill_marked(PROC_ENV, marker)
        for stream in (proc.stdin, proc.stdout, proc.stderr, report):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    rc = None if timed_out else proc.returncode
    out, err = sinks[proc.stdout], sinks[proc.stderr]
    result = RawResult(rc, out.value(), err.value(), time.monotonic() - t0, proc.pid, timed_out=timed_out,
                       held_pipes=held, killed=len(killed))
    result.overflow, result.err_overflow = out.over, err.over
    if report is not None:
        result.report, result.report_overflow = sinks[report].value(), sinks[report].over
    return result


def _close_fds(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


@dataclass
class ProcResult:
    argv: list[str] | str
    returncode: int | None  # None when killed on timeout
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    not_found: bool = False
    truncated: bool = False  # output went past OUTPUT_CAP; the tail was kept
    held_pipes: bool = False
    report: bytes = b""  # the report pipe's content (run_raw's `report_pipe`)
    report_overflow: bool = False


def run(
    cmd: list[str] | str,
    *,
    cwd: str,
    timeout_s: float,
    env: dict[str, str] | None = None,
    stdin_text: str | None = None,
    cap: int = OUTPUT_CAP,
    report_pipe: tuple[int, int] | None = None,
) -> ProcResult:
    r = run_raw(cmd, cwd=cwd, timeout_s=timeout_s, env=env,
                stdin=stdin_text.encode() if stdin_text is not None else None, cap=cap, keep="tail",
                report_pipe=report_pipe)
    if r.start_error is not None:
        return ProcResult(cmd, None, "", r.start_error, r.seconds, not_found=True)
    not_found = isinstance(cmd, str) and r.returncode == 127
    return ProcResult(cmd, r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"),
                      r.seconds, r.timed_out, not_found, r.overflow or r.err_overflow, r.held_pipes, r.report,
                      r.report_overflow)
