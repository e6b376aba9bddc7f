"""One brain per agent session, for a fake Messages API that serves many `claude` processes it did not start.

Standard library only. `claude plugin eval` starts one child per run, each in a fresh working directory;
the server only sees requests. `SessionBrains` keys every request by the CLI's working directory (from the
request's environment block, `brain.request_cwd`) and hands it to the brain made for that directory on its
first request, by `make(request)`: e.g. the scripted agent of the task whose prompt the request carries.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gatebench.sim.brain import Brain, Turn, request_cwd, text_turn

NO_SESSION_TEXT = "[sim] no brain for this session (unknown prompt or no working directory)."


class SessionBrains:
    def __init__(self, make: Callable[[dict, str], Brain | None], after: Callable[[str, Brain], None] | None = None):
        """`make(request, cwd)` returns the brain of a new session, or None to answer with a short text;
        `after(cwd, brain)` runs after each answered request (e.g. to save the brain's truth)."""
        self.make, self.after = make, after
        self.brains: dict[str, Brain | None] = {}
        self.lock = threading.Lock()

    def respond(self, request: dict) -> Turn:
        cwd = request_cwd(request) or ""
        with self.lock:  # the server answers requests in threads; a session's requests come one at a time
            if cwd not in self.brains:
                self.brains[cwd] = self.make(request, cwd) if cwd else None
            brain = self.brains[cwd]
        if brain is None:
            return text_turn(NO_SESSION_TEXT, note="no session")
        turn = brain.respond(request)
        if self.after is not None:
            self.after(cwd, brain)
        return turn
