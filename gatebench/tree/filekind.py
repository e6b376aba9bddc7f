"""Files the agent controls are opened only when they are regular files, never through a link (stdlib only).

A device, FIFO or socket in the work tree is never opened: reading a `mknod ... c 1 5` is reading
/dev/zero until the disk is full, opening a FIFO blocks forever, opening some devices has side effects.
"""

from __future__ import annotations

import os
import stat


class NotRegular(OSError):
    """`kind`: what the path turned out to be (kind_of)."""

    def __init__(self, kind: str):
        super().__init__(0, f"a {kind}, not a regular file")
        self.kind = kind


def kind_of(mode: int) -> str:
    for test, what in ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "directory")):
        if test(mode):
            return what
    return "special file"


def open_regular_stat(path: str) -> tuple[int, os.stat_result]:
    """An fd on `path` and its fstat, if it is a regular file, else NotRegular. O_NONBLOCK|O_NOFOLLOW: a FIFO
    or symlink swapped in since the stat neither blocks nor is followed, and fstat refuses anything that is
    not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(kind_of(st.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def open_regular(path: str) -> int:
    """An fd on `path` if it is a regular file (open_regular_stat)."""
    return open_regular_stat(path)[0]
