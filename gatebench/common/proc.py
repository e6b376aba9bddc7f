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

from gatebench.common.util import signal_group

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


def end_group(proc: subprocess.Popen, grace_s: float, *, term: bool = True) -> None:
    """End a command started in its own group: SIGTERM the group and give the command `grace_s` to end (when
    `term`), then SIGKILL the group (what outlived the command goes too) and reap the command."""
    if term:
        killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
    killpg(proc.pid, signal.SIGKILL)
    try:
        proc.wait(grace_s)  # reaped here: its exit status is Popen's, and its pid is not reused under us
    except subprocess.TimeoutExpired:
        pass


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
    exit_status: int | None = None  # the command's own exit status, also when killed (-9: by our SIGKILL)


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
    grace_s: float = 0.0,
) -> RawResult:
    """Run `cmd` to its end or `timeout_s`, whichever first; never longer than timeout_s + grace_s + DRAIN_S + a kill.

    `keep`: "tail" keeps the last `cap` bytes of each stream (a test log's summary is at its end),
    "head" the first (a reviewer's answer is at its start). `report_pipe`: (read fd, write fd) of a pipe
    whose write end the command inherits (same number); it is read in the same loop as the output, so a
    full pipe never blocks the writer, and both ends are closed here. `grace_s`: on timeout the group gets
    SIGTERM and the command that long to end (its output still read) before the SIGKILL; 0 kills at once.
    """
    t0 = time.monotonic()
    marker = os.urandom(8).hex()
    try:
        proc = _start(cmd, cwd, {**(os.environ if env is None else env), PROC_ENV: marker}, stdin is not None,
                      report_pipe)
    except (OSError, ValueError) as e:
        if report_pipe:
            _close_fds(report_pipe)
        return RawResult(None, b"", str(e).encode(), time.monotonic() - t0, start_error=str(e))
    pipes = _Pipes(proc, stdin or b"", cap, keep, report_pipe)
    watch = _Watch(proc, t0 + max(timeout_s, 0.01), grace_s)
    try:
        while pipes.open() and (wait := watch.tick(time.monotonic())) is not None:
            pipes.pump(wait)
    finally:
        held = pipes.held()
        killed = _finish(proc, pipes, marker)
    return pipes.result(None if watch.timed_out else proc.returncode, time.monotonic() - t0, timed_out=watch.timed_out,
                        held_pipes=held, killed=len(killed), exit_status=proc.returncode)


def _start(cmd: list[str] | str, cwd: str, env: dict[str, str], with_stdin: bool,
           report_pipe: tuple[int, int] | None) -> subprocess.Popen:
    return subprocess.Popen(
        cmd, cwd=cwd, env=env, shell=isinstance(cmd, str),
        stdin=subprocess.PIPE if with_stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=die_with_parent(), pass_fds=(report_pipe[1],) if report_pipe else (),
    )


def _finish(proc: subprocess.Popen, pipes: _Pipes, marker: str) -> list[int]:
    """Kill what is left of the command (its group, then whatever carries its marker), close, reap."""
    pipes.close_selector()
    killpg(proc.pid)
    killed = kill_marked(PROC_ENV, marker)
    pipes.close_streams()
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    return killed


class _Watch:
    """When the command has ended (or was ended), and whether its deadline did it."""

    def __init__(self, proc: subprocess.Popen, deadline: float, grace_s: float):
        self.proc, self.deadline, self.grace_s = proc, deadline, grace_s
        self.timed_out = False
        self.ended_at: float | None = None

    def tick(self, now: float) -> float | None:
        """How long to wait for output before the next tick; None: stop reading."""
        if self.ended_at is None:
            if not self.timed_out and now >= self.deadline and self.proc.poll() is None:
                self.timed_out = True
                if self.grace_s > 0:  # a chance to end cleanly (and say so on its output) before the kill
                    killpg(self.proc.pid, signal.SIGTERM)
                    self.deadline = now + self.grace_s
            if self.proc.poll() is not None or now >= self.deadline:
                self.ended_at = now
                killpg(self.proc.pid)  # grandchildren that outlived a normal exit still hold the group
        if self.ended_at is None:
            limit = self.deadline
        elif now >= self.ended_at + DRAIN_S:
            return None  # something outside the group holds the pipes: stop reading, it is killed after
        else:
            limit = self.ended_at + DRAIN_S
        return min(max(limit - now, 0.0), 0.1)


class _Pipes:
    """The command's output pipes (and the report pipe) read, and its stdin written, in one select loop."""

    def __init__(self, proc: subprocess.Popen, stdin: bytes, cap: int, keep: str,
                 report_pipe: tuple[int, int] | None):
        assert proc.stdout is not None and proc.stderr is not None  # both are PIPE
        self.proc = proc
        self.out, self.err = _Sink(cap, keep), _Sink(cap, keep)
        self.sinks: dict[Any, _Sink] = {proc.stdout: self.out, proc.stderr: self.err}
        self.report = None
        self.report_sink: _Sink | None = None
        if report_pipe:
            _close_fds(report_pipe[1:])  # only the command writes to it: EOF once it (and its children) closed it
            self.report = open(report_pipe[0], "rb", buffering=0, closefd=True)  # noqa: SIM115 - closed with the others
            self.report_sink = self.sinks[self.report] = _Sink(REPORT_CAP, "head")
        self.sel = selectors.DefaultSelector()
        for pipe in self.sinks:
            os.set_blocking(pipe.fileno(), False)
            self.sel.register(pipe, selectors.EVENT_READ, pipe)
        self.pending = memoryview(stdin)
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            if self.pending:
                self.sel.register(proc.stdin, selectors.EVENT_WRITE, proc.stdin)
            else:
                proc.stdin.close()

    def open(self) -> bool:
        return bool(self.sel.get_map())

    def held(self) -> bool:
        """An output pipe is still open (the command's end did not close it)."""
        return any(k.fileobj is not self.proc.stdin for k in self.sel.get_map().values())

    def pump(self, timeout: float) -> None:
        for key, _ in self.sel.select(timeout=timeout):
            f: IO[bytes] = key.data  # the pipe itself, registered as its own data
            if f is self.proc.stdin:
                self._write(f)
            else:
                self._read(f)

    def _write(self, f: IO[bytes]) -> None:
        try:
            n = os.write(f.fileno(), self.pending[:65536])
            self.pending = self.pending[n:]
        except BlockingIOError:
            return
        except OSError:  # it did not read its input; its exit code and output will say why
            self.pending = memoryview(b"")
        if not self.pending:
            self.sel.unregister(f)
            f.close()

    def _read(self, f: IO[bytes]) -> None:
        try:
            chunk = os.read(f.fileno(), 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            self.sinks[f].add(chunk)
        else:
            self.sel.unregister(f)

    def close_selector(self) -> None:
        self.sel.close()

    def close_streams(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr, self.report):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def result(self, rc: int | None, seconds: float, **kw: Any) -> RawResult:
        r = RawResult(rc, self.out.value(), self.err.value(), seconds, self.proc.pid, **kw)
        r.overflow, r.err_overflow = self.out.over, self.err.over
        if self.report_sink is not None:
            r.report, r.report_overflow = self.report_sink.value(), self.report_sink.over
        return r


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
