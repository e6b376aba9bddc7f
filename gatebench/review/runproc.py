"""Run a reviewer process: bytes in, bytes out, a deadline, an output cap (stdlib only).

Unlike the tests gate's runner this one keeps raw bytes (a reviewer that prints bad UTF-8 must be
an error, not quietly "repaired") and stops buffering at a cap (a runaway reviewer must not eat
the hook's memory). The process gets its own group; the whole group is killed on timeout and
after a normal exit, so nothing a reviewer started outlives the review.
"""

from __future__ import annotations

from dataclasses import dataclass

from gatebench.common import proc

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


def run(
    argv: list[str] | str,
    *,
    cwd: str,
    env: dict[str, str],
    timeout_s: float,
    stdin: bytes = b"",
    cap: int = OUTPUT_CAP,
) -> RawRun:
    # The pipes are read with a deadline and leftovers killed by marker (see common/proc.py): a reviewer
    # whose child leaves the group holding the pipes costs at most timeout_s + DRAIN_S.
    r = proc.run_raw(argv, cwd=cwd, env=env, timeout_s=timeout_s, stdin=stdin, cap=cap, keep="head")
    if r.start_error is not None:
        return RawRun(None, b"", b"", r.seconds, None, start_error=f"cannot start: {r.start_error}")
    return RawRun(r.returncode, r.stdout, r.stderr, r.seconds, r.pgid, timed_out=r.timed_out,
                  overflow=r.overflow)
