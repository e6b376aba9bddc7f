"""Copy a work tree, or some of its paths: regular files and symlinks only, within a deadline (stdlib only).

The one copy of an agent's work tree: the hidden oracle's copy, the tests gate's pristine copy and
the reviewers' read-only copy all go through `copy_tree`. The agent controls what is in the tree,
so: a device, FIFO or socket is never opened (`filekind.py`), it is skipped and reported; symlinks
are copied as links, never followed; and the copy stops with
CopyDeadline once `deadline` (time.monotonic()) passes, even inside one huge file.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable

from gatebench.tree.filekind import NotRegular, kind_of, open_regular_stat

CHUNK = 1 << 20


class CopyDeadline(OSError):
    """The copy ran out of time; what was copied so far is incomplete."""


class Copied:
    __slots__ = ("bytes", "errors", "files", "skipped")

    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0
        self.skipped: list[str] = []  # "<path> (<kind>)": special files left out
        self.errors: list[str] = []  # files that could not be read (vanished, no permission)


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise CopyDeadline("the copy ran out of time")


def copy_file(src: str, dst: str, deadline: float | None, mode: int | None = None) -> int:
    """Copy one regular file (refusing anything else, even if it became something else since a stat)."""
    fd, st = open_regular_stat(src)
    try:
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        n = 0
        try:
            while chunk := os.read(fd, CHUNK):
                _check(deadline)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view):]
                n += len(chunk)
            os.fchmod(out, stat.S_IMODE(st.st_mode) if mode is None else mode)
            os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(out)
        return n
    finally:
        os.close(fd)


def _copy_one(src: str, dst: str, rel: str, st: os.stat_result, res: Copied, deadline: float | None,
              mode: int | None) -> None:
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src), dst)
        res.files += 1
    elif stat.S_ISREG(st.st_mode):
        try:
            res.bytes += copy_file(src, dst, deadline, mode)
            res.files += 1
        except NotRegular as e:  # swapped for a special file since the stat
            res.skipped.append(f"{rel} ({e.kind})")
    else:
        res.skipped.append(f"{rel} ({kind_of(st.st_mode)})")


def copy_tree(
    src: str,
    dst: str,
    *,
    paths: Iterable[str] | None = None,
    ignore: Callable[[str, list[str]], set[str]] | None = None,
    deadline: float | None = None,
    mode: int | None = None,
) -> Copied:
    """Copy `src` into `dst` (created if missing): every entry, or only `paths` (relative to src).

    `ignore(dir, names)` -> names to leave out, as shutil.copytree's (whole-tree copies only). `mode`
    overrides every copied file's permission bits (0o444 for a read-only copy). Raises CopyDeadline
    past `deadline`; a file that vanished or cannot be read is listed in `errors`, not raised.
    """
    res = Copied()
    os.makedirs(dst, exist_ok=True)
    if paths is not None:
        _copy_paths(src, dst, paths, res, deadline, mode)
    else:
        _copy_all(src, dst, ignore, res, deadline, mode)
    return res


def _copy_paths(src: str, dst: str, paths: Iterable[str], res: Copied, deadline: float | None,
                mode: int | None) -> None:
    made: set[str] = set()
    for rel in paths:
        _check(deadline)
        s, d = os.path.join(src, rel), os.path.join(dst, rel)
        parent = os.path.dirname(d)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        try:
            st = os.lstat(s)
            if stat.S_ISDIR(st.st_mode):
                res.skipped.append(f"{rel} (directory)")
                continue
            _copy_one(s, d, rel, st, res, deadline, mode)
        except CopyDeadline:
            raise
        except OSError as err:
            res.errors.append(f"cannot copy {rel}: {err.strerror or err}")


def _copy_all(src: str, dst: str, ignore: Callable[[str, list[str]], set[str]] | None, res: Copied,
              deadline: float | None, mode: int | None) -> None:
    stack = [("", src, dst)]
    while stack:
        rel_dir, s_dir, d_dir = stack.pop()
        with os.scandir(s_dir) as it:
            entries = list(it)
        left_out = ignore(s_dir, [e.name for e in entries]) if ignore else set()
        for e in entries:
            _check(deadline)
            if e.name in left_out:
                continue
            rel, d = rel_dir + e.name, os.path.join(d_dir, e.name)
            try:
                st = e.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    os.mkdir(d)
                    stack.append((rel + "/", e.path, d))
                    continue
                _copy_one(e.path, d, rel, st, res, deadline, mode)
            except CopyDeadline:
                raise
            except OSError as err:
                res.errors.append(f"cannot copy {rel}: {err.strerror or err}")
