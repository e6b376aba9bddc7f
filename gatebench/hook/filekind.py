"""Files the agent controls are opened only when they are regular files, never through a link (stdlib only).

A device, FIFO or socket in the work tree is never opened: reading a `mknod ... c 1 5` is reading
/dev/zero until the disk is full, opening a FIFO blocks forever, opening some devices has side effects.
"""

from __future__ import annotations

import os
import stat


def kind_of(mode: int) -> str:
    for test, what in ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return what
    return "special file"


def open_regular(path: str) -> int:
    """An fd on `path` if it is a regular file. O_NONBLOCK|O_NOFOLLOW: a FIFO or symlink swapped in since
    the stat neither blocks nor is followed, and fstat refuses anything that is not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise OSError(0, f"a {kind_of(st.st_mode)}, not a regular file")
    return fd
