"""gatebench's own start of pytest around agent code: run as a script, never imported by gatebench.

    python -I -B pytest_boot.py ROOT FD -- PYTEST_ARGS...

`-I`: nothing of the copy is on `sys.path` while pytest starts. ROOT (the copy) is then *appended* to
`sys.path`, after the standard library and site-packages, for the tests' own `import pkg`: the trusted
plugins pytest is told to load (`-p`, from the interpreter's own `pytest11` entry points) and every module
they import resolve to site-packages, never to a shadow in the copy. Before any agent code runs, gatebench's reporter is
registered: it writes one JSON line per test to the inherited file descriptor FD as the test ends, then a
`session` line and, once `pytest.main` has returned, a `finished` line with its exit code. Code inside
pytest's process can still write to that descriptor: the stream is a cross-check against the JUnit report
and the exit code; the canaries are the wall (SPEC section 8).

It runs under the task's interpreter (any Python 3), so it keeps to old syntax and the standard library.
"""

import json
import os
import sys

_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


def _outcome(report):
    if report.when == "call":
        return report.outcome  # passed | failed | skipped (xfail is skipped, as in JUnit)
    if report.failed:
        return "error"  # setup or teardown failed
    return "skipped" if report.skipped else "passed"


class Reporter:
    """A pytest plugin: each test's outcome, worst phase wins, written as the test ends."""

    def __init__(self, send):
        self.send = send
        self.now = {}

    def pytest_runtest_logreport(self, report):
        got = _outcome(report)
        old = self.now.get(report.nodeid, "passed")
        self.now[report.nodeid] = got if _RANK[got] > _RANK[old] else old

    def pytest_runtest_logfinish(self, nodeid, location):
        self.send({"e": "test", "id": nodeid, "outcome": self.now.pop(nodeid, "error")})

    def pytest_collectreport(self, report):
        if report.failed:
            self.send({"e": "collect_error", "id": report.nodeid})

    def pytest_sessionfinish(self, session, exitstatus):
        self.send({"e": "session", "exit": int(exitstatus), "collected": int(session.testscollected)})


def main(argv):
    root, fd = argv[1], int(argv[2])
    args = argv[argv.index("--") + 1:]
    out = os.fdopen(fd, "w", encoding="utf-8")

    def send(event):
        try:
            out.write(json.dumps(event) + "\n")
            out.flush()
        except (OSError, ValueError):  # closed under us: the stream ends early, which the reader sees
            pass

    send({"e": "start", "pid": os.getpid()})
    import pytest

    sys.path.append(root)
    code = pytest.main(args, plugins=[Reporter(send)])
    send({"e": "finished", "exit": int(code)})
    try:
        out.close()
    except OSError:
        pass
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
