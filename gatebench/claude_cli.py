"""Find the pinned Claude Code CLI, build a clean environment for it, run `claude -p`.

Standard library only (reviewer gates run `claude -p` from inside the Stop hook).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gatebench.common import defaults
from gatebench.common.proc import run_raw

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CLAUDE = REPO_ROOT / ".tools" / "claude-code" / "node_modules" / ".bin" / "claude"
ENV_OVERRIDE = "GATEBENCH_CLAUDE"
FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"
KILL_GRACE_S = 2.0
OUTPUT_CAP = 1 << 30  # bytes of stdout kept: a session's stream is read whole, this only bounds a runaway

# The default models live with every other default (gatebench/common/defaults.py).
DEFAULT_WORKER_MODEL = defaults.WORKER_MODEL
DEFAULT_REVIEWER_MODEL = defaults.REVIEWER_MODEL

# Everything of the user's environment that reaches the agent: how to authenticate, nothing else.
CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL",
                   "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_VERTEX_PROJECT_ID",
                   "CLOUD_ML_REGION", "ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL")
CREDENTIAL_PREFIXES = ("AWS_", "GOOGLE_")
NO_CREDENTIALS = ("no credentials for the real API: set ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (or "
                  "CLAUDE_CODE_USE_BEDROCK with AWS_*, or CLAUDE_CODE_USE_VERTEX with ANTHROPIC_VERTEX_PROJECT_ID)")


class ClaudeNotFoundError(RuntimeError):
    """The CLI is not where it should be; the message names the path and the fix."""


def find_claude(env: Mapping[str, str] | None = None) -> Path:
    """`$GATEBENCH_CLAUDE` if set, else the copy `scripts/setup` installs under `.tools/`."""
    env = os.environ if env is None else env
    override = env.get(ENV_OVERRIDE)
    path = Path(override) if override else DEFAULT_CLAUDE
    origin = f"${ENV_OVERRIDE}" if override else "the default location"
    if not path.exists():
        raise ClaudeNotFoundError(f"Claude Code CLI not found at {path} ({origin}); run scripts/setup")
    if not os.access(path, os.X_OK):
        raise ClaudeNotFoundError(
            f"Claude Code CLI at {path} ({origin}) is not executable; run scripts/setup"
        )
    return path


def credentials(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k in CREDENTIAL_VARS or k.startswith(CREDENTIAL_PREFIXES)}


def credential_problem(env: Mapping[str, str], *, login_ok: bool = False) -> str | None:
    """None if some way to authenticate is configured, else what to set (checked before any process starts).

    `login_ok`: the CLI will run with the caller's HOME (reviewers), so a `claude login` credentials
    file there counts too; a worker runs with a fresh HOME, where only the variables reach it.
    """
    c = credentials(env)
    if c.get("ANTHROPIC_API_KEY") or c.get("CLAUDE_CODE_OAUTH_TOKEN") or c.get("ANTHROPIC_AUTH_TOKEN"):
        return None
    if c.get("CLAUDE_CODE_USE_BEDROCK") and any(k.startswith("AWS_") for k in c):
        return None
    if c.get("CLAUDE_CODE_USE_VERTEX") and (c.get("ANTHROPIC_VERTEX_PROJECT_ID") or any(k.startswith("GOOGLE_") for k in c)):
        return None
    if login_ok:
        if sys.platform == "darwin":
            return None  # `claude login` keeps its token in the macOS Keychain, which cannot be checked here
        config_dir = env.get("CLAUDE_CONFIG_DIR") or (os.path.join(env["HOME"], ".claude") if env.get("HOME") else "")
        if config_dir and os.path.isfile(os.path.join(config_dir, ".credentials.json")):
            return None
        return NO_CREDENTIALS + ", or log in with `claude login`"
    return NO_CREDENTIALS


def api_error_text(result: Mapping[str, Any] | None) -> str | None:
    """The CLI's own words for a failed API call (status, error type, message), None if it was not one.

    The `result` event of a run that ended in an API error carries `api_error_status`,
    `api_error_type` and, as `result`, the CLI's message (e.g. 401: "Invalid API key · ...", other
    statuses quote the API's own error message).
    """
    if not result:
        return None
    status, kind = result.get("api_error_status"), result.get("api_error_type")
    if status is None and kind is None and result.get("terminal_reason") != "api_error":
        return None
    message = result.get("result") if isinstance(result.get("result"), str) else ""
    head = " ".join(str(x) for x in (status, kind) if x is not None) or "(api_error, no status)"
    return f"API error {head}: {message}".rstrip(": ")


def parse_version(text: str) -> str:
    """'2.1.332 (Claude Code)' -> '2.1.332'."""
    words = text.strip().split()
    if not words:
        raise ValueError("empty output from `claude --version`")
    return words[0]


def cli_version(path: Path) -> str:
    done = subprocess.run(
        [str(path), "--version"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
    )
    if done.returncode != 0:
        raise ClaudeNotFoundError(f"{path} --version failed (exit {done.returncode}): {done.stderr.strip()}")
    return parse_version(done.stdout)


def claude_env(base_url: str | None, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment: nothing from the caller's but PATH (and TMPDIR), plus `extra`.

    With `base_url` (the fake API) the key is a dummy and retries are cut to one, so a dead
    server fails in about a second instead of minutes. With `base_url=None` (the real API)
    neither is set: the caller passes the real credentials in `extra`.
    """
    env = {
        "PATH": os.environ.get("PATH") or FALLBACK_PATH,
        "HOME": str(home),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "IS_SANDBOX": "1",  # lets bypassPermissions run as root (containers, CI)
    }
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    if base_url is not None:
        env.update(
            {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_MAX_RETRIES": "1"}
        )
    env.update(extra or {})
    return env


def claude_argv(claude: Path | str, prompt: str, extra_args: Sequence[str] = ()) -> list[str]:
    return [
        str(claude),
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "bypassPermissions",
        *extra_args,
    ]


def parse_stream(lines: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, Any] | None, list[str]]:
    """stream-json stdout -> (events, the last `result` event or None, lines that were not JSON)."""
    events: list[dict[str, Any]] = []
    bad: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            bad.append(line)
            continue
        if isinstance(obj, dict):
            events.append(obj)
        else:
            bad.append(line)
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    return events, result, bad


@dataclass(frozen=True)
class CompletedRun:
    argv: list[str]
    rc: int | None  # None only if the process could not be reaped
    stdout_lines: list[str]
    stderr: str
    events: list[dict[str, Any]]
    result: dict[str, Any] | None
    wall_s: float
    timed_out: bool
    bad_lines: list[str] = field(default_factory=list)


def run_claude(
    prompt: str,
    cwd: Path,
    env: Mapping[str, str],
    extra_args: Sequence[str] = (),
    timeout_s: float = 600.0,
    claude: Path | None = None,
    wrap: Callable[[list[str]], list[str]] | None = None,
) -> CompletedRun:
    """Run `claude -p PROMPT` (stream-json, bypassPermissions) in `cwd` with exactly `env` (and the runner's marker).
    `wrap` turns the argv into the one run (the agent's world: gatebench/cell/world.py).

    The CLI gets its own process group (gatebench.common.proc.run_raw); on timeout the whole group
    (hooks, Bash children) gets SIGTERM, then SIGKILL. Leftovers of a finished run are killed too,
    so nothing the agent started outlives its run.
    """
    argv = claude_argv(claude or find_claude(), prompt, extra_args)
    r = run_raw(wrap(argv) if wrap else argv, cwd=str(cwd), env=dict(env), timeout_s=timeout_s, cap=OUTPUT_CAP, grace_s=KILL_GRACE_S)
    if r.start_error is not None:
        raise OSError(r.start_error)
    lines = r.stdout.decode("utf-8", "replace").splitlines()
    events, result, bad = parse_stream(lines)
    return CompletedRun(
        argv=argv,
        rc=r.exit_status,
        stdout_lines=lines,
        stderr=r.stderr.decode("utf-8", "replace"),
        events=events,
        result=result,
        wall_s=round(r.seconds, 3),
        timed_out=r.timed_out,
        bad_lines=bad,
    )


# Here, not in cell/workers: cell/seal needs it too, and the workers import seal.
def require_claude() -> str:
    """The pinned CLI's path; its absence is bad input (exit 2) naming where it was looked for."""
    from gatebench.errors import UsageError

    try:
        return str(find_claude())
    except ClaudeNotFoundError as e:
        raise UsageError(str(e))
