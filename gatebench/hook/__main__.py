"""`python -m gatebench.hook stop|session-start [--state DIR]`: the Claude Code hook entry point.

Also runnable as a script: `python -S <checkout>/gatebench/hook/__main__.py stop ...`.

Always exits 0: Claude Code treats exit 1, a crash or bad JSON as a silent allow, so the hook says
what it decided on stdout and records every error in its event line instead.
"""

from __future__ import annotations

import os
import sys

# Keep the hook's own bytecode cached even where PYTHONDONTWRITEBYTECODE is set: without .pyc files
# every stop recompiles these modules, ~15 ms of a no-gate stop that costs ~25 ms in Python otherwise.
# (Gates' subprocesses get their own environment; this flag only governs imports in this process.)
sys.dont_write_bytecode = False

if not __package__:
    # Run as a script (`python -S .../gatebench/hook/__main__.py`, as install and the plugin do, to skip
    # site-packages and start in a few ms): put the checkout on the path, not this folder.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

USAGE = "usage: python -m gatebench.hook {stop|session-start} [--state DIR]"


def main(argv: list[str]) -> int:
    import gc

    gc.disable()  # a short-lived process that allocates ~10 objects per repo file: collection is pure cost
    from gatebench.hook.state import GUARD_ENV

    if os.environ.get(GUARD_ENV):
        return 0  # a reviewer's own `claude -p` runs inside our hook: do not gate it
    if not argv or argv[0] not in ("stop", "session-start") or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    state = None
    if "--state" in argv:
        i = argv.index("--state")
        state = argv[i + 1] if i + 1 < len(argv) else None
    try:
        raw = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as e:
        raw = ""
        print(f"gatebench hook: cannot read stdin: {e}", file=sys.stderr)
    output: dict | None
    try:
        from gatebench.hook import run
    except Exception as e:  # a broken checkout: still say so, never a silent crash (exit 1 = silent allow)
        output = {"systemMessage": f"gatebench hook cannot start ({type(e).__name__}: {e}); the stop was allowed"}
    else:
        if argv[0] == "session-start":
            try:
                run.session_start(raw, state)
                output = None
            except Exception as e:
                why = f"gatebench hook crashed ({type(e).__name__}: {e}); the stop was allowed"
                output = {"systemMessage": why}
                run.log_crash(state, why, argv[0])
        else:
            output, _event = run.handle_stop(raw, state)
    if output:
        from gatebench.common import jsonfast

        sys.stdout.write(jsonfast.dumps(output))
        sys.stdout.flush()
    return 0


def exit_now(rc: int) -> None:
    """End the process without the interpreter's teardown, once everything the stop owes is out.

    Tearing down the ~25 modules a stop loads costs ~2.5 ms, about 6% of a ~40 ms no-gate stop at 10,000
    files (scripts/bench_hook.py). Output is flushed and exit handlers run first (a gate's `git cat-file`
    reader is closed by one); a thread still running keeps the normal exit, which waits for it.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone, a stream closed: nothing more can reach it anyway
            pass
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(rc)
    import atexit

    atexit._run_exitfuncs()
    os._exit(rc)


if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))
