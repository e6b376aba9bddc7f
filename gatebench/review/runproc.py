"""Run a reviewer process: bytes in, bytes out, a deadline, an output cap (stdlib only).

Unlike the tests gate's runner this one keeps raw bytes (a reviewer that prints bad UTF-8 must be
an error, not quietly "repaired") and stops buffering at a cap (a runaway reviewer must not eat
the hook's memory). The process gets its own group; the whole group is killed on timeout and
after a normal exit, so nothing a reviewer started outlives the review.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

OUTPUT_CAP = 4_000_000  # bytes kept per stream


@dataclass
class RawRun:
    returncode: int | None  # None when killed on timeout or never started
    stdout: bytes
    stderr: bytes
    seconds: float
    pgid: int | None
    timed_out: bool = False
    overflow: bool = False  # stdout went past the cap; the rest was dropped
    start_error: str | None = None


def _drain(stream, sink: bytearray, cap: int, flags: dict, key: str) -> None:
    try:
        while chunk := stream.read(65536):
            room = cap - len(sink)
            if room > 0:
                sink.extend(chunk[:room])
            if len(chunk) > room:
                flags[key] = True  # keep reading so the writer never blocks on a full pipe
    except (OSError, ValueError):
        pass


def _feed(pipe, data: bytes) -> None:
    try:
        if data:
            pipe.write(data)
        pipe.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the reviewer did not read its input; its exit code and output will say why


def kill_group(pgid: int | None) -> None:
    if pgid is None:
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    argv: list[str] | str,
    *,
    cwd: str,
    env: dict[str, str],
    timeout_s: float,
    stdin: bytes = b"",
    cap: int = OUTPUT_CAP,
) -> RawRun:
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            shell=isinstance(argv, str),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as e:
        return RawRun(None, b"", b"", time.monotonic() - t0, None, start_error=f"cannot start: {e}")
    out, err, flags = bytearray(), bytearray(), {}  # type: ignore[var-annotated]
    readers = [
        threading.Thread(target=_drain, args=(proc.stdout, out, cap, flags, "out"), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, err, cap, flags, "err"), daemon=True),
    ]
    for t in readers:
        t.start()
    # Fed from a thread: a reviewer that never reads a large stdin must not stall us past the deadline.
    feeder = threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True)
    feeder.start()
    timed_out = False
    try:
        proc.wait(timeout=max(timeout_s, 0.01))
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        # On timeout this ends the reviewer; after a normal exit it ends whatever it left behind.
        kill_group(proc.pid)
        proc.wait()
        for t in readers:
            t.join(timeout=5)
    return RawRun(
        None if timed_out else proc.returncode,
        bytes(out),
        bytes(err),
        time.monotonic() - t0,
        proc.pid,
        timed_out=timed_out,
        overflow=bool(flags.get("out")),
    )
