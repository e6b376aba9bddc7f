"""Standard-library helpers every layer shares: atomic writes, JSONL reading, signalling a process group.

They live in hook/ because the hook (standard library only, at the bottom of the layout) needs them
too; everything above imports them from here rather than writing its own.
"""

from __future__ import annotations

import itertools
import os

_seq = itertools.count()  # distinct temp names for threads of one process writing the same file


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write beside `path`, then rename over it: a reader sees the old file or the new one, never half.

    A str is written as UTF-8. The temp file is removed if the write fails.
    """
    path = os.fspath(path)
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{next(_seq)}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_json_object(path: str | os.PathLike) -> dict | None:
    """The JSON object in `path`, or None when it is missing, unreadable, not JSON or not an object."""
    import json  # here, not at the top: `import json` (re, enum) costs a no-gate stop ~5 ms, see read_jsonl

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_jsonl(path: str | os.PathLike, *, unreadable_ok: bool = True) -> tuple[list[dict], int]:
    """(the lines that are JSON objects, count of other non-blank lines, e.g. a torn tail).

    A missing file is empty. So is an unreadable one, unless `unreadable_ok` is False (then it raises).
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except FileNotFoundError:
        return [], 0
    except OSError:
        if unreadable_ok:
            return [], 0
        raise
    import json  # here, not at the top: the hook's start-up reads JSON through common/jsonfast.py

    out, bad = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        else:
            bad += 1
    return out, bad


def signal_group(pgid: int, sig: int, *, or_leader: bool = False) -> None:
    """Signal a process group that may already be gone (or never ours): nothing to do then.

    `or_leader`: if there is no such group, signal the process `pgid` itself (a child that has not made its
    own group yet). Only for a child not yet reaped: a reaped one's pid may already be another process's.
    """
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        if not or_leader:
            return
        try:
            os.kill(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass


# Here, not in snapshot.py: gitsnap raises it too, and snapshot imports gitsnap.
class OutOfTime(Exception):
    """The walk passed its deadline: the hook's time budget is spent. `cache`: the files hashed so far."""

    def __init__(self, message: str, cache: dict | None = None):
        super().__init__(message)
        self.cache = cache or {}
