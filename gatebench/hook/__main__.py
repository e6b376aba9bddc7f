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
    try:
        from gatebench.hook import run
        from gatebench.hook.state import append_event

        if argv[0] == "session-start":
            run.session_start(raw, state)
            return 0
        output, event, state_dir = run.stop(raw, state)
        written = append_event(os.path.join(state_dir, "events.jsonl"), event)
        if written is None:
            output = {**(output or {}), "systemMessage": "gatebench: cannot write any event log"}
        elif not written.startswith(state_dir):
            note = f"gatebench: state dir {state_dir} is not writable; events go to {written}"
            sm = (output or {}).get("systemMessage")
            output = {**(output or {}), "systemMessage": f"{sm}; {note}" if sm else note}
    except Exception as e:  # last line of defence: still decide on purpose (fail-open), log it and say so
        why = f"gatebench hook crashed ({type(e).__name__}: {e}); the stop was allowed"
        output = {"systemMessage": why}
        _log_crash(state, why, argv[0])
    if output:
        from gatebench.hook import jsonfast

        sys.stdout.write(jsonfast.dumps(output))
        sys.stdout.flush()
    return 0


def _log_crash(state: str | None, why: str, verb: str) -> None:
    try:
        from gatebench.hook.state import append_event, fallback_log

        path = os.path.join(state, "events.jsonl") if state else fallback_log()
        append_event(path, {"v": 1, "hook": verb, "decision": "allow", "errors": [why]})
    except Exception:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
