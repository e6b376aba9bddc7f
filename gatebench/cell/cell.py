"""The layout of a cell dir: one prepared (task, config, rep) with its work copy and everything around it.

    C/cell.json      prep metadata (gatebench.models.cell.CellMeta)
    C/repo/          the work copy the worker edits (fresh git, one baseline commit, hook installed)
    C/state/         the hook's state dir: config.json, baseline, events.jsonl (outside the work copy)
    C/home/          the worker's temporary HOME (transcripts land under it)
    C/tmp/           the worker's TMPDIR (the hook's oracle copies; the agent's sandbox temp is C/tmp/claude-<uid>)
    C/stream.jsonl   the worker's stdout (stream-json)
    C/worker.json    how the worker process ended (rc, wall, timed_out, ...)
    C/api.jsonl      sim worker: the fake Messages API's request log
    C/result.json    finalize's ResultRecord

`gatebench prep T1` makes `work/T1/` by default; the matrix makes `runs/<run-id>/cells/<config>/<task>/r<rep>/`.
Stdlib only: the hook and reviewers locate state through it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CellPaths:
    root: Path

    @property
    def meta(self) -> Path:
        return self.root / "cell.json"

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def stream(self) -> Path:
        return self.root / "stream.jsonl"

    @property
    def worker(self) -> Path:
        return self.root / "worker.json"

    @property
    def api_log(self) -> Path:
        return self.root / "api.jsonl"

    @property
    def result(self) -> Path:
        return self.root / "result.json"

    @property
    def events(self) -> Path:
        return self.state / "events.jsonl"


def find_cell(path: Path) -> CellPaths | None:
    """The cell a path belongs to: the cell dir itself, or its work copy (or anything inside it)."""
    p = path.resolve()
    for cand in (p, *p.parents):
        if (cand / "cell.json").is_file():
            return CellPaths(cand)
    return None


def session_id_for(cell_root: Path, attempt: int = 1) -> str:
    """A fixed session id per cell (and retry), so the transcript's file name is known in advance."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"gatebench:{cell_root.resolve()}:{attempt}"))
