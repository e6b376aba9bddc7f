"""Gate `command`: any Claude Code Stop hook, run unchanged and read by Claude Code's own rules.

Stdlib only. The command gets the same JSON on stdin that Claude Code gave gatebench's hook, runs
in the repo with `CLAUDE_PROJECT_DIR` set (so `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh` works as it
does under Claude Code), and its answer is read as Claude Code reads a Stop hook's:

- exit 0 and `{"decision": "block", "reason": R}` on stdout: block with R;
- exit 2: block with stderr as the reason;
- exit 0 with nothing on stdout, or a JSON object without a block decision: pass;
- `"continue": false`: Claude Code would end the whole run; recorded and treated as a block.

Where Claude Code lets a broken hook through silently (exit 1 or any other code, stdout that is not
a JSON object, a timeout, output over the cap), this gate says `error` with the reason, and the
config's `on_error` decides: a benched hook must never pass a stop because it crashed.
"""

from __future__ import annotations

import json
import os
import shlex
import time

from gatebench.common import proc
from gatebench.hook.gates import GateContext, Verdict

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_OUTPUT = 10_000  # Claude Code's own cap on what a hook may print
PASS_DECISIONS = (None, "approve", "allow")


def checkout() -> str:
    """The gatebench checkout this hook runs from (`{gatebench}` in a command: its shipped hooks)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def command_line(spec: dict, ctx: GateContext) -> str:
    cmd = str(spec.get("command") or "")
    return cmd.replace("{python}", shlex.quote(ctx.python)).replace("{gatebench}", shlex.quote(checkout()))


def stdin_for(ctx: GateContext) -> str:
    """What Claude Code gave gatebench's hook, byte for byte; a minimal Stop input when there was none."""
    if ctx.hook_stdin.strip():
        return ctx.hook_stdin
    return json.dumps({"session_id": "gatebench-review", "cwd": ctx.repo, "hook_event_name": "Stop",
                       "stop_hook_active": ctx.attempt > 1, "last_assistant_message": ctx.last_message})


def read_answer(rc: int | None, stdout: str, stderr: str) -> tuple[str, str, dict]:
    """(verdict, reason or error, details) from a finished hook, by Claude Code's Stop hook rules."""
    if rc == 2:
        return "block", stderr.strip() or "(the hook exited 2 with nothing on stderr)", {"via": "exit 2"}
    if rc != 0:
        return "error", f"the hook exited {rc} (Claude Code would let the stop through silently): " \
                        f"{stderr.strip()[-500:] or '(no stderr)'}", {}
    text = stdout.strip()
    if not text:
        return "pass", "", {"via": "exit 0, no output"}
    try:
        answer = json.loads(text)
    except ValueError as e:
        return "error", f"stdout is not JSON ({e}): {text[:200]!r}", {}
    if not isinstance(answer, dict):
        return "error", f"stdout is JSON but not an object: {text[:200]!r}", {}
    details: dict = {"via": "exit 0, JSON", "answer_keys": sorted(answer)}
    if answer.get("continue") is False:
        details["continue_false"] = True
        reason = answer.get("stopReason") or answer.get("reason") or "(no stopReason)"
        return "block", f"The hook asked to end the session (continue: false): {reason}", details
    decision = answer.get("decision")
    if decision == "block":
        reason = answer.get("reason")
        if not isinstance(reason, str):
            return "error", f"a block decision needs a string `reason`, got {reason!r}", details
        return "block", reason or "(the hook blocked without a reason)", details
    if decision not in PASS_DECISIONS:
        return "error", f"unknown decision {decision!r} (a Stop hook blocks with \"block\")", details
    return "pass", "", details


def run(spec: dict, ctx: GateContext) -> Verdict:
    t0 = time.monotonic()
    command = command_line(spec, ctx)
    timeout = min(float(spec.get("timeout_s", DEFAULT_TIMEOUT_S)), ctx.remaining() - 1.0)
    details: dict = {"command": command}
    if timeout <= 0:
        return Verdict("error", details={**details, "error": "hook time budget spent before the command could run"})
    env = dict(os.environ, CLAUDE_PROJECT_DIR=ctx.repo)
    r = proc.run(command, cwd=ctx.repo, timeout_s=timeout, env=env, stdin_text=stdin_for(ctx))
    seconds = time.monotonic() - t0
    details.update(returncode=r.returncode, timed_out=r.timed_out, stdout_tail=r.stdout[-1000:],
                   stderr_tail=r.stderr[-1000:])
    cap = int(spec.get("max_output_chars", DEFAULT_MAX_OUTPUT))
    if r.timed_out:
        details["error"] = f"the hook did not finish within {timeout:.0f} s (its process group was killed)"
        return Verdict("error", details=details, seconds=seconds)
    if r.not_found:
        details["error"] = f"the hook command could not start (exit {r.returncode}): {r.stderr.strip()[-300:]}"
        return Verdict("error", details=details, seconds=seconds)
    if len(r.stdout) > cap or len(r.stderr) > cap:
        details["error"] = (f"the hook printed more than {cap} characters (stdout {len(r.stdout)}, "
                            f"stderr {len(r.stderr)}); Claude Code would cut it")
        return Verdict("error", details=details, seconds=seconds)
    verdict, text, more = read_answer(r.returncode, r.stdout, r.stderr)
    details.update(more)
    if verdict == "error":
        details["error"] = text
        return Verdict("error", details=details, seconds=seconds)
    return Verdict(verdict, text if verdict == "block" else "", details, seconds)
