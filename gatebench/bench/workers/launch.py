"""Start the CLI for one cell, watch it, and make sure nothing it started outlives it.

The CLI runs in its own session (process group). Everything started under it — hooks, the hidden
oracle's pytest, the agent's Bash children, some of which open sessions of their own — inherits the
environment variable CELL_ENV naming the cell, and `reap` finds them by it in /proc: a process group
alone would miss the ones that left it. The watch loop ends the run on the wall cap, on a stop
request, or when the process that started this worker has died (a `kill -9` of the matrix must not
leave agents running, and spending, with nobody to record them).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from gatebench.hook.util import signal_group

CELL_ENV = "GATEBENCH_CELL"
POLL_S = 0.05
GRACE_S = 2.0


def _environ(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read()
    except OSError:
        return b""


def cell_processes(prefix: str) -> list[int]:
    """Pids of processes whose CELL_ENV starts with `prefix` (a cell dir, or a run dir for all its cells)."""
    needle = f"{CELL_ENV}={prefix}".encode()
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        for var in _environ(int(name)).split(b"\0"):
            if var.startswith(needle):
                found.append(int(name))
                break
    return found


def reap(prefix: str, rounds: int = 5) -> list[int]:
    """SIGKILL every process of the cell(s) under `prefix`; returns the pids killed."""
    killed: list[int] = []
    for _ in range(rounds):
        pids = cell_processes(prefix)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.05)
    return killed


def launch(argv: list[str], *, cwd: Path, env: dict[str, str], stdout: Path, stderr: Path, timeout_s: float,
           stop: Callable[[], str | None] = lambda: None) -> dict:
    """Run argv to the end, or until the wall cap / `stop()` says why to stop. Never raises for the child's faults.

    Returns {rc, wall_s, timed_out, killed, error}: `killed` is the reason the run was cut (None if it ended
    on its own), `error` is set when the process could not start at all.
    """
    parent = os.getppid()
    t0 = time.monotonic()
    marker = env.get(CELL_ENV)
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        try:
            proc = subprocess.Popen(argv, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True)
        except OSError as e:
            return {"rc": None, "wall_s": 0.0, "timed_out": False, "killed": None,
                    "error": f"cannot start {argv[0]}: {e}"}
        killed = None
        try:
            while True:
                try:
                    proc.wait(POLL_S)  # returns the moment the CLI exits; otherwise a tick of the watch
                    break
                except subprocess.TimeoutExpired:
                    pass
                if time.monotonic() - t0 > timeout_s:
                    killed = f"wall cap of {timeout_s:g} s"
                elif os.getppid() != parent:
                    killed = "the process that started this worker died"
                else:
                    killed = stop()
                if killed:
                    break
        except BaseException:
            killed = killed or "interrupted"
            raise
        finally:
            if killed or proc.poll() is None:
                signal_group(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(GRACE_S)
                except subprocess.TimeoutExpired:
                    pass
            # Children that outlived the CLI, or left its group, go too.
            signal_group(proc.pid, signal.SIGKILL)
            if marker:
                reap(marker)
            try:
                proc.wait(GRACE_S)
            except subprocess.TimeoutExpired:
                pass
    return {"rc": proc.returncode, "wall_s": round(time.monotonic() - t0, 3),
            "timed_out": bool(killed and killed.startswith("wall cap")), "killed": killed, "error": None}


def cli_args(opts, session_id: str) -> list[str]:
    """The caps and pins every config of a run shares."""
    return ["--model", opts.model, "--max-turns", str(opts.max_turns), "--max-budget-usd", f"{opts.max_budget_usd:g}",
            "--session-id", session_id]


def cell_marker(cell_root: Path) -> str:
    # The trailing slash keeps cell r1 from matching r10 in a prefix search.
    return f"{Path(cell_root).resolve()}/"


def task_prompt(state_dir: Path) -> str:
    import json

    data = json.loads((state_dir / "config.json").read_text(encoding="utf-8"))
    return data["task"]["prompt"]


def cell_args_note(argv: list[str]) -> list[str]:
    """argv for the record, with the (long) prompt elided."""
    out = list(argv)
    if "-p" in out:
        i = out.index("-p")
        if i + 1 < len(out):
            out[i + 1] = f"<prompt: {len(out[i + 1])} chars>"
    return out
