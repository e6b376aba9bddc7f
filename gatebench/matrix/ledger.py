"""The ledger: `runs/<run-id>/results.jsonl`, one ResultRecord per line, append-only.

Appends take a file lock (several matrix processes may share a run), write the whole line with one
`write` and fsync it. A writer killed mid-line can still leave a torn tail; the next append (and
`repair`) cuts it off first, so every line of a ledger is always one valid record.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from filelock import FileLock

from gatebench.common.util import read_jsonl


def lock_for(path: Path) -> FileLock:
    return FileLock(str(path) + ".lock", timeout=60)


def _repair_unlocked(path: Path) -> int:
    """Cut a torn last line; returns the bytes removed."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb+") as f:
        f.seek(-1, os.SEEK_END)
        if f.read(1) == b"\n":
            return 0
        data_start = max(0, size - (1 << 20))
        f.seek(data_start)
        tail = f.read()
        cut = tail.rfind(b"\n")
        keep = data_start + cut + 1 if cut >= 0 else 0
        f.truncate(keep)
        return size - keep


def repair(path: Path) -> int:
    with lock_for(path):
        return _repair_unlocked(path)


def append(path: Path, record: dict) -> None:
    line = (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with lock_for(path):
        _repair_unlocked(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def read(path: Path) -> list[dict]:
    """Every valid record; lines that are not JSON objects (a torn tail) are skipped."""
    return read_jsonl(path, unreadable_ok=False)[0]
