"""Run a command with a deadline, in its own process group, and kill the whole group on timeout.

Test commands start their own children (pytest-xdist, servers): killing only the shell would leave
them running after the hook returns, and Claude Code would wait on their pipes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass

OUTPUT_CAP = 2_000_000  # bytes kept per stream; a runaway test log must not exhaust memory


@dataclass
class ProcResult:
    argv: list[str] | str
    returncode: int | None  # None when killed on timeout
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    not_found: bool = False


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    cmd: list[str] | str,
    *,
    cwd: str,
    timeout_s: float,
    env: dict[str, str] | None = None,
    stdin_text: str | None = None,
) -> ProcResult:
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            shell=isinstance(cmd, str),
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError) as e:
        return ProcResult(cmd, None, "", str(e), time.monotonic() - t0, not_found=True)
    try:
        out, err = proc.communicate(
            stdin_text.encode() if stdin_text is not None else None, timeout=max(timeout_s, 0.01)
        )
        timed_out = False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        timed_out = True
    finally:
        # Grandchildren that outlived a normal exit still hold the group: end them too.
        kill_group(proc)
    rc = None if timed_out else proc.returncode
    not_found = isinstance(cmd, str) and rc == 127
    return ProcResult(
        cmd,
        rc,
        out[-OUTPUT_CAP:].decode("utf-8", "replace"),
        err[-OUTPUT_CAP:].decode("utf-8", "replace"),
        time.monotonic() - t0,
        timed_out,
        not_found,
    )
