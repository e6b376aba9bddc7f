"""Workers: what plays the agent in a prepared cell. One small Protocol, one registry dict.

A worker runs the agent in `cell.repo` until it stops (or a cap ends it), writing the CLI's stdout to
`cell.stream` and its stderr next to it, and returns a plain dict that `run_worker` stores as
`cell.worker` (worker.json). Workers never score anything: finalize does.

- `claude`: the real `claude -p` against the real API (paid; see `preflight`).
- `sim`: the real `claude -p` against gatebench's fake Messages API playing a seeded scripted agent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from gatebench.cell import CellPaths
from gatebench.loading import load_model
from gatebench.models.cell import CellMeta

DEFAULT_MODEL = "claude-sonnet-4-5-20250929"
WORKER_FILE_VERSION = 1


@dataclass
class WorkerOptions:
    """Caps are the same for every config of a run: an asymmetric cap would confound the comparison."""

    model: str = DEFAULT_MODEL
    max_turns: int = 40
    timeout_s: float = 900.0
    max_budget_usd: float = 5.0  # per cell, passed to the CLI as --max-budget-usd
    policy: str = "default"  # sim only: configs/sim/<policy>.yaml or a path
    attempt: int = 1
    extra_env: dict[str, str] = field(default_factory=dict)
    # True only where `gatebench.seal.require_seal` proved the seal on this machine (run, matrix). False
    # switches the Bash sandbox off from the command line and every record then says sealed: false.
    sealed: bool = False


class Worker(Protocol):
    def __call__(self, cell: CellPaths, meta: CellMeta, opts: WorkerOptions,
                 stop: Callable[[], str | None]) -> dict: ...


def require_claude() -> str:
    """The pinned CLI's path; its absence is bad input (exit 2) naming where it was looked for."""
    from gatebench.claude_cli import ClaudeNotFoundError, find_claude
    from gatebench.cli import UsageError

    try:
        return str(find_claude())
    except ClaudeNotFoundError as e:
        raise UsageError(str(e))


def _registry() -> dict[str, Worker]:
    from gatebench.workers import claude, sim

    return {"claude": claude.run, "sim": sim.run}


WORKERS: dict[str, Worker] = _registry()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def run_worker(name: str, cell: CellPaths, opts: WorkerOptions, stop: Callable[[], str | None] | None = None) -> dict:
    """Run worker `name` on a prepared cell and write worker.json. Bad input raises UsageError, before anything runs."""
    from gatebench.cli import UsageError

    if name not in WORKERS:
        raise UsageError(f"unknown worker {name!r} (known: {', '.join(sorted(WORKERS))})")
    if not cell.meta.is_file():
        raise UsageError(f"{cell.root}: not a prepared cell (no cell.json); run `gatebench prep` first")
    meta = load_model(cell.meta, CellMeta)
    if cell.worker.exists():
        raise UsageError(f"{cell.root} has already been run ({cell.worker} exists); prep it again to rerun")
    if opts.sealed:
        from gatebench.seal import cell_problem

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
        info = WORKERS[name](cell, meta, opts, stop or (lambda: None))
    except KeyboardInterrupt:
        interrupted = True
        info = {"rc": None, "killed": "interrupted", "error": None}
    write_json_atomic(cell.meta, meta.model_dump(mode="json"))
    record = {"v": WORKER_FILE_VERSION, "worker": name, "started_at": started, "finished_at": now_iso(),
              "options": asdict(opts) | {"extra_env": sorted(opts.extra_env)}, **info}
    write_json_atomic(cell.worker, record)
    if interrupted:
        raise KeyboardInterrupt
    return record
