"""Backend `claude`: `claude -p` in a read-only copy of the work tree (stdlib only).

No settings are loaded (`--setting-sources ""`, so neither the user's nor the project's hooks run)
and the hook guard variable is set, so the reviewer's own stops never re-enter gatebench. Only the
definition's read-only tools exist for it (`--tools`), and they reach only its copy; the prompt goes on stdin (a large diff would
pass the argv limit), and its session is not persisted (no transcript lands in the worker's HOME).
Cost and tokens come from the CLI's `result` event.
"""

from __future__ import annotations

import shutil
import time

from gatebench.claude_cli import (
    ENV_OVERRIDE,
    ClaudeNotFoundError,
    api_error_text,
    credential_problem,
    find_claude,
    parse_stream,
)
from gatebench.common import defaults
from gatebench.review import runproc
from gatebench.review.backends import ReviewJob, keep_log
from gatebench.review.verdict import ReviewResult, VerdictError, decode, error, from_text


def argv(claude: str, spec: dict) -> list[str]:
    tools = ",".join(spec.get("allowed_tools") or [])
    args = [
        claude, "-p",
        "--output-format", "stream-json", "--verbose",
        "--setting-sources", "",
        "--strict-mcp-config",
        "--no-session-persistence",
        "--tools", tools,  # "" = no tools at all
        # No --allowedTools on purpose: in dontAsk mode reads inside the cwd (the copy) are allowed and
        # reads anywhere else are denied, so a bench reviewer cannot open hidden tests or the state dir.
        "--permission-mode", "dontAsk",
        "--max-turns", str(int(spec.get("max_turns", defaults.REVIEWER_MAX_TURNS))),
    ]
    if spec.get("model"):
        args += ["--model", str(spec["model"])]
    return args


def claude_path(env: dict[str, str]) -> str:
    """The pinned CLI (scripts/setup, or $GATEBENCH_CLAUDE); an installed gate may use `claude` on PATH."""
    try:
        return str(find_claude(env))
    except ClaudeNotFoundError:
        found = None if env.get(ENV_OVERRIDE) else shutil.which("claude", path=env.get("PATH"))
        if found:
            return found
        raise


def _meta(result_event: dict | None, spec: dict, seconds: float) -> dict:
    r = result_event or {}
    usage = r.get("usage") if isinstance(r.get("usage"), dict) else {}
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    model = spec.get("model")
    if isinstance(r.get("modelUsage"), dict) and r["modelUsage"]:
        model = ",".join(sorted(r["modelUsage"]))
    return {
        "backend": "claude",
        "model": model,
        "cost_usd": float(r.get("total_cost_usd") or 0.0),
        "usage": {k: int(usage[k]) for k in keys if isinstance(usage.get(k), int)},  # type: ignore[index, union-attr]
        "turns": r.get("num_turns") if isinstance(r.get("num_turns"), int) else None,
        "seconds": round(seconds, 3),
    }


def run(job: ReviewJob) -> ReviewResult:
    t0 = time.monotonic()
    try:
        claude = claude_path(job.env)
    except ClaudeNotFoundError as e:
        return error(job.name, str(e), backend="claude", model=job.spec.get("model"))
    problem = credential_problem(job.env, login_ok=True)
    if problem:  # said before any process starts: a run without credentials only yields an opaque api_error
        return error(job.name, problem, backend="claude", model=job.spec.get("model"))
    r = runproc.run(argv(claude, job.spec), cwd=job.workdir, env=job.env, timeout_s=job.timeout_s,
                    stdin=job.prompt.encode("utf-8"))
    keep_log(job.log_path, r.stdout + (b"\n--- stderr ---\n" + r.stderr if r.stderr.strip() else b""))
    stderr = r.stderr.decode("utf-8", "replace").strip()[-400:]
    try:
        text = decode(r.stdout)
    except VerdictError as e:
        return error(job.name, f"CLI stream: {e}", **_meta(None, job.spec, time.monotonic() - t0))
    _events, result, _bad = parse_stream(text.splitlines())
    meta = _meta(result, job.spec, time.monotonic() - t0)
    if r.start_error:
        return error(job.name, r.start_error, **meta)
    if r.timed_out:
        return error(job.name, f"timed out after {job.timeout_s:.0f} s (process group killed)", text, **meta)
    if r.overflow:
        return error(job.name, f"output too large (over {runproc.OUTPUT_CAP} bytes)", **meta)
    if result is None:
        return error(job.name, f"truncated stream: no `result` event (exit {r.returncode}) {stderr}".strip(),
                     text, **meta)
    api_error = api_error_text(result)
    if api_error:
        return error(job.name, f"the reviewer's run failed: {api_error}", text, **meta)
    if result.get("is_error") or result.get("subtype") != "success":
        why = result.get("errors") or result.get("terminal_reason") or result.get("subtype")
        return error(job.name, f"the reviewer's run failed ({result.get('subtype')}): {why}", text, **meta)
    if r.returncode != 0:
        return error(job.name, f"claude exited {r.returncode}: {stderr}", text, **meta)
    answer = result.get("result")
    if not isinstance(answer, str):
        return error(job.name, "the `result` event carries no text answer", text, **meta)
    return from_text(job.name, answer, require_evidence=bool(job.spec.get("require_evidence", True)), **meta)
