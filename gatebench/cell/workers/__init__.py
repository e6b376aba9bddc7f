"""Workers: what plays the agent in a prepared cell. One small Protocol, one registry dict.

A worker runs the agent in `cell.repo` until it stops (or a cap ends it), writing the CLI's stdout to
`cell.stream` and its stderr next to it, and returns a plain dict that `run_worker` stores as
`cell.worker` (worker.json). Workers never score anything: finalize does.

- `claude`: the real `claude -p` against the real API (paid; see `preflight`).
- `sim`: the real `claude -p` against gatebench's fake Messages API playing a seeded scripted agent.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from gatebench.cell.cell import CellPaths
from gatebench.claude_cli import require_claude
from gatebench.common import defaults
from gatebench.common.util import write_atomic
from gatebench.models.cell import CellMeta
from gatebench.models.loading import load_model

__all__ = ["require_claude"]  # re-exported: the workers import it from here

DEFAULT_MODEL = defaults.WORKER_MODEL
WORKER_FILE_VERSION = 1


@dataclass
class WorkerOptions:
    """Caps are the same for every config of a run: an asymmetric cap would confound the comparison."""

    model: str = DEFAULT_MODEL
    max_turns: int = defaults.WORKER_MAX_TURNS
    timeout_s: float = defaults.WORKER_TIMEOUT_S
    max_budget_usd: float = defaults.WORKER_MAX_BUDGET_USD  # per cell, passed to the CLI as --max-budget-usd
    policy: str = defaults.WORKER_POLICY  # sim only: configs/sim/<policy>.yaml or a path
    attempt: int = 1
    marker: str = ""  # this attempt's process marker (launch.attempt_marker); empty: the worker makes one
    extra_env: dict[str, str] = field(default_factory=dict)
    # True only where `gatebench.cell.seal.require_seal` proved the seal on this machine (run, matrix). False
    # switches the Bash sandbox off from the command line and every record then says sealed: false.
    sealed: bool = False


class Worker(Protocol):
    def __call__(self, cell: CellPaths, meta: CellMeta, opts: WorkerOptions,
                 stop: Callable[[], str | None]) -> dict: ...


# name -> module with `run(cell, meta, opts, stop) -> dict`, imported only when that worker runs (as GATES).
WORKERS: dict[str, str] = {
    "claude": "gatebench.cell.workers.claude",
    "sim": "gatebench.cell.workers.sim",
}


def get_worker(name: str) -> Worker:
    return importlib.import_module(WORKERS[name]).run


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def write_json_atomic(path: Path, data: dict) -> None:
    write_atomic(path, json.dumps(data, indent=1) + "\n")


def run_worker(name: str, cell: CellPaths, opts: WorkerOptions, stop: Callable[[], str | None] | None = None) -> dict:
    """Run worker `name` on a prepared cell and write worker.json. Bad input raises UsageError, before anything runs."""
    from gatebench.errors import UsageError

    if name not in WORKERS:
        raise UsageError(f"unknown worker {name!r} (known: {', '.join(sorted(WORKERS))})")
    if not cell.meta.is_file():
        raise UsageError(f"{cell.root}: not a prepared cell (no cell.json); run `gatebench prep` first")
    meta = load_model(cell.meta, CellMeta)
    from gatebench.cell.workers.launch import CellBusy, lock_cell, release

    try:
        lock = lock_cell(cell.root)  # one run per cell at a time; its watchdog holds it until its sweep is done
    except CellBusy as e:
        raise UsageError(str(e))
    try:
        return _run_locked(name, cell, meta, opts, stop)
    finally:
        release(lock)


def _run_locked(name: str, cell: CellPaths, meta: CellMeta, opts: WorkerOptions,
                stop: Callable[[], str | None] | None) -> dict:
    from gatebench.errors import UsageError

    if cell.worker.exists():
        raise UsageError(f"{cell.root} has already been run ({cell.worker} exists); prep it again to rerun")
    if opts.sealed:
        from gatebench.cell.seal import cell_problem

        problem = cell_problem(cell.root)
        if problem:
            raise UsageError(f"{cell.root} was not prepared with the seal: {problem}; prep it again, or pass --unsealed")
    # Before the agent starts, and again once it and everything it started are gone: unsealed, the agent could
    # have rewritten cell.json (say `sealed: true`); what finalize reads is the runner's own copy.
    meta = meta.model_copy(update={"sealed": bool(opts.sealed)})
    write_json_atomic(cell.meta, meta.model_dump(mode="json"))
    started = now_iso()
    interrupted = False
    try:
        info = get_worker(name)(cell, meta, opts, stop or (lambda: None))
    except KeyboardInterrupt:
        interrupted = True
        info = {"rc": None, "killed": "interrupted", "error": None}
    finally:
        from gatebench.cell.seal import drop_worker_tmp

        drop_worker_tmp(cell.root)  # everything the attempt started is gone by now
    write_json_atomic(cell.meta, meta.model_dump(mode="json"))
    record = {"v": WORKER_FILE_VERSION, "worker": name, "started_at": started, "finished_at": now_iso(),
              "options": asdict(opts) | {"extra_env": sorted(opts.extra_env)}, **info}
    write_json_atomic(cell.worker, record)
    if interrupted:
        raise KeyboardInterrupt
    return record
