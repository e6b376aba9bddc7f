"""The `claude` backend's reading of the CLI's stream, against stand-in executables (no model, no CLI).

The real CLI is exercised in test_review_cli.py; here each way a `claude -p` run can end is played
by a tiny script, so every error path is covered in milliseconds.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from gatebench.claude_cli import ENV_OVERRIDE, credentials
from gatebench.hook.state import GUARD_ENV
from gatebench.review.backends import ReviewJob, claude, reviewer_env
from gatebench.review.prompt import ReviewInputs

VERDICT = {"verdict": "block", "findings": [{"file": "a.py", "line": 1, "severity": "high", "claim": "bad",
                                             "evidence": "f(0) raises"}], "summary": "s"}


def result_event(**over) -> dict:
    ev = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 2,
          "result": "```json\n" + json.dumps(VERDICT) + "\n```", "total_cost_usd": 0.0421,
          "usage": {"input_tokens": 1000, "output_tokens": 50, "cache_read_input_tokens": 7},
          "modelUsage": {"claude-haiku-5-5": {"costUSD": 0.0421}}}
    ev.update(over)
    return ev


def fake_claude(tmp: Path, lines: list[dict | str], rc: int = 0, sleep: float = 0) -> Path:
    out = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    code = (f"import sys, json, os, time\nsys.stdin.read()\n"
            f"json.dump({{'argv': sys.argv[1:], 'guard': os.environ.get({GUARD_ENV!r}), "
            f"'session': os.environ.get('CLAUDE_CODE_SESSION_ID'), 'cwd': os.getcwd()}}, "
            f"open({str(tmp / 'seen.json')!r}, 'w'))\n"
            f"time.sleep({sleep})\nsys.stdout.write({out!r})\nsys.exit({rc})\n")
    exe = tmp / "claude"
    exe.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c {shlex.quote(code)} \"$@\"\n")
    exe.chmod(0o755)
    return exe


def job(tmp: Path, exe: Path | None, timeout: float = 20, creds: dict | None = None) -> ReviewJob:
    base = {k: v for k, v in os.environ.items() if k not in credentials(os.environ)}
    creds = {"ANTHROPIC_API_KEY": "test-key"} if creds is None else creds
    env = reviewer_env({**base, **creds, "HOME": str(tmp), "CLAUDE_CODE_SESSION_ID": "outer-session",
                        ENV_OVERRIDE: str(exe or tmp / "missing" / "claude")})
    spec = {"name": "adv", "backend": "claude", "model": "haiku", "max_turns": 5,
            "allowed_tools": ["Read", "Grep"], "require_evidence": True}
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    inputs = ReviewInputs("t", "d", [], "")
    return ReviewJob("adv", spec, "[gatebench-review] reviewer=adv\nprompt", inputs, str(work), timeout, env,
                     sys.executable)


def test_success_reads_verdict_cost_tokens_and_model(tmp_path):
    exe = fake_claude(tmp_path, [{"type": "system", "subtype": "init"}, result_event()])
    r = claude.run(job(tmp_path, exe))
    assert r.verdict == "block" and r.findings[0]["evidence"] == "f(0) raises"
    assert r.cost_usd == 0.0421 and r.usage == {"input_tokens": 1000, "output_tokens": 50,
                                                "cache_read_input_tokens": 7}
    assert r.turns == 2 and r.model == "claude-haiku-5-5" and r.backend == "claude"
    seen = json.loads((tmp_path / "seen.json").read_text())
    argv = seen["argv"]
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert argv[argv.index("--tools") + 1] == "Read,Grep"
    assert argv[argv.index("--permission-mode") + 1] == "dontAsk"
    assert argv[argv.index("--max-turns") + 1] == "5" and argv[argv.index("--model") + 1] == "haiku"
    assert "--no-session-persistence" in argv and "--allowedTools" not in argv
    assert seen["guard"] == "1" and seen["session"] is None  # guarded, and not a child of the gated session
    assert seen["cwd"] == str(tmp_path / "work")


@pytest.mark.parametrize("lines, rc, reason", [
    ([{"type": "system", "subtype": "init"}, {"type": "assistant"}], 0, "truncated stream: no `result` event"),
    ([{"type": "system", "subtype": "init"}, '{"type": "result", "subt'], 1, "truncated stream"),
    ([result_event(subtype="error_max_turns", is_error=True, result=None,
                   errors=["Reached maximum number of turns (5)"])], 1, "error_max_turns"),
    ([result_event(is_error=True, terminal_reason="api_error")], 1, "api_error"),
    # The CLI's own words for an API error reach the user: status, type and message.
    ([result_event(is_error=True, terminal_reason="api_error", api_error_status=401,
                   api_error_type="authentication_error", result="Invalid API key · Fix external API key")],
     1, "API error 401 authentication_error: Invalid API key · Fix external API key"),
    ([result_event()], 3, "claude exited 3"),
    ([result_event(result="Looks fine to me.")], 0, "prose only"),
    ([result_event(result=None)], 0, "no text answer"),
])
def test_failed_runs_are_errors_with_cost_kept(tmp_path, lines, rc, reason):
    r = claude.run(job(tmp_path, fake_claude(tmp_path, lines, rc)))
    assert r.verdict == "error" and reason in r.error, r.error
    if any(isinstance(x, dict) and x.get("type") == "result" for x in lines):
        assert r.cost_usd == 0.0421  # a failed review still cost money: it is counted


def test_timeout_and_missing_cli(tmp_path):
    r = claude.run(job(tmp_path, fake_claude(tmp_path, [result_event()], sleep=30), timeout=1))
    assert r.verdict == "error" and "timed out after 1 s" in r.error
    gone = claude.run(job(tmp_path, None))
    assert gone.verdict == "error" and "not found" in gone.error


@pytest.mark.parametrize("creds, runs", [
    ({}, False),
    ({"CLAUDE_CODE_USE_BEDROCK": "1"}, False),  # Bedrock named, but no AWS_* credentials
    ({"CLAUDE_CODE_OAUTH_TOKEN": "t"}, True),
    ({"CLAUDE_CODE_USE_VERTEX": "1", "ANTHROPIC_VERTEX_PROJECT_ID": "p"}, True),
])
def test_no_credentials_is_an_error_before_any_process(tmp_path, creds, runs):
    exe = fake_claude(tmp_path, [result_event()])
    r = claude.run(job(tmp_path, exe, creds=creds))
    assert (tmp_path / "seen.json").exists() == runs  # the stub records every call it gets
    if not runs:
        assert r.verdict == "error" and "set ANTHROPIC_API_KEY" in r.error and "claude login" in r.error
    else:
        assert r.verdict == "block"


def test_a_claude_login_in_the_reviewers_home_counts_as_credentials(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / ".credentials.json").write_text("{}")
    r = claude.run(job(tmp_path, fake_claude(tmp_path, [result_event()]), creds={}))
    assert r.verdict == "block" and (tmp_path / "seen.json").exists()
