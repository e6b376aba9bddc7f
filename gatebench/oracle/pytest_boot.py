"""gatebench's own start of pytest around agent code: run as a script, never imported by gatebench.

    python -I -B pytest_boot.py ROOT FD -- PYTEST_ARGS...

`-I`: nothing of the copy is on `sys.path` while pytest starts. ROOT (the copy) is then *appended* to
`sys.path`, after the standard library and site-packages, for the tests' own `import pkg`: the trusted
plugins pytest is told to load (`-p`, from the interpreter's own `pytest11` entry points) and every module
they import resolve to site-packages, never to a shadow in the copy. Before any agent code runs, gatebench's reporter is
registered: it writes one JSON line per test to the inherited file descriptor FD as the test ends (with, for a
test whose call failed, the builtin classes the exception raised there is an instance of), then a
`session` line and, once `pytest.main` has returned, a `finished` line with its exit code. Code inside
pytest's process can still write to that descriptor: the stream is a cross-check against the JUnit report
and the exit code; the canaries are the wall (SPEC section 8).

It runs under the task's interpreter (any Python 3), so it keeps to old syntax and the standard library.
"""

import builtins
import json
import os
import sys

_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
RAISED_MAX = 16  # names kept of one exception's classes (a builtin's MRO has at most 6 besides `object`)


def _outcome(report):
    if report.when == "call":
        return report.outcome  # passed | failed | skipped (xfail is skipped, as in JUnit)
    if report.failed:
        return "error"  # setup or teardown failed
    return "skipped" if report.skipped else "passed"


def raised_names(cls):
    """The names of the builtin classes in an exception class's MRO (`object` left out), most derived first.

    A raises twin expects a builtin type (`twins.RAISES_POOL`): honest code whose wrong answer raises that type
    fails the original and passes the twin, and `canaries.judge` excuses that twin when the original's own
    failure raised it. Only builtins, matched by identity, so a class's chosen `__name__` is never read as one.
    Never raises: whatever the code under test made its exception, the report goes on."""
    out = []
    try:
        for c in cls.__mro__:
            name = c.__name__
            if c is not object and isinstance(name, str) and getattr(builtins, name, None) is c:
                out.append(name)
    except Exception:  # a metaclass's own `__mro__` or `__name__`: nothing to report
        return []
    return out[:RAISED_MAX]


class Reporter:
    """A pytest plugin: each test's outcome, worst phase wins, written as the test ends; with it, for a test
    whose call failed, `raised` (`raised_names` of what the call raised)."""

    def __init__(self, send):
        self.send = send
        self.now = {}
        self.raised = {}

    def pytest_exception_interact(self, node, call, report):
        # Called after the report of a phase that raised (not for a skip or an xfail), before the test's
        # `logfinish`; the same in pytest 7 and 9. Only the call's failure: a setup error is no answer.
        if getattr(report, "when", None) == "call" and report.failed and call.excinfo is not None:
            self.raised[node.nodeid] = raised_names(call.excinfo.type)

    def pytest_runtest_logreport(self, report):
        got = _outcome(report)
        old = self.now.get(report.nodeid, "passed")
        self.now[report.nodeid] = got if _RANK[got] > _RANK[old] else old

    def pytest_runtest_logfinish(self, nodeid, location):
        event = {"e": "test", "id": nodeid, "outcome": self.now.pop(nodeid, "error")}
        raised = self.raised.pop(nodeid, None)
        if raised is not None:
            event["raised"] = raised
        self.send(event)

    def pytest_collectreport(self, report):
        if report.failed:
            self.send({"e": "collect_error", "id": report.nodeid})

    def pytest_sessionfinish(self, session, exitstatus):
        self.send({"e": "session", "exit": int(exitstatus), "collected": int(session.testscollected)})


def short_failure_reprs():
    """With `--tb=no` (the oracle's runs) nobody reads a failure's traceback, yet pytest formats one for every
    failed test: each frame's source and its fixtures' reprs. Most twins fail, so that was a fifth of a canaried
    run's pytest time on T5 (cProfile: 35 failing twins, 0.13 of 0.82 s). The report keeps the exception's own
    line, which JUnit's failure message and the summary read; every test alike, so it tells no twin apart."""
    nodes = sys.modules.get("_pytest.nodes")  # imported by `import pytest`; not imported here by name
    if nodes is None or not hasattr(nodes, "Node"):  # a pytest laid out otherwise: its own reprs, as before
        return

    def short(self, excinfo, style=None):
        try:
            return excinfo.exconly()[:1000] or "failed"
        except Exception:  # whatever the code under test made its exception, the report goes on
            return "failed"

    nodes.Node._repr_failure_py = short


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
    if "--tb=no" in args:
        short_failure_reprs()
    code = pytest.main(args, plugins=[Reporter(send)])
    send({"e": "finished", "exit": int(code)})
    try:
        out.close()
    except OSError:
        pass
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
