"""Preloaded first by the matrix's fork server: the server dies the instant the matrix does, even by kill -9.

Without it the server exits only when its "alive" pipe reaches EOF, and every child it has just forked
holds a copy of that pipe until `_child_setup` closes it: a matrix killed while a child starts leaves the
server (and the cell it forks next) running on a loaded machine. PR_SET_PDEATHSIG is the kernel's promise,
held by no file descriptor. The matrix names its pid in PARENT_ENV only while it starts the server, so this
module does nothing when imported anywhere else (the matrix itself, a cell child, a test).
"""

from __future__ import annotations

import os
import signal

PARENT_ENV = "GATEBENCH_FORKSERVER_PARENT"

SERVER_PID: int | None = None  # the fork server's pid, seen by the children it forks


def _arm() -> None:
    global SERVER_PID
    parent = os.environ.pop(PARENT_ENV, None)  # popped: the children the server forks must not see it
    if parent is None or int(parent) == os.getpid():
        return
    from gatebench.common.proc import set_pdeathsig

    set_pdeathsig(signal.SIGKILL)
    if os.getppid() != int(parent):  # the matrix died before the prctl: act as if it fired
        os._exit(1)
    SERVER_PID = os.getpid()


_arm()
