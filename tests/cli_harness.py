"""Helpers for tests that drive the real Claude Code CLI against the fake Messages API.

Import from tests/conftest.py (or a test module): `fake_api`, `run_cli`, `require_claude`, the
`claude_bin` fixture, and the hook helpers. Without the CLI a real-CLI test skips, except when
`CI` is set: there a missing CLI is a failure, so CI can never pass by skipping everything.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from gatebench.claude_cli import ClaudeNotFoundError, CompletedRun, claude_env, find_claude, run_claude
from gatebench.sim.brain import Brain
from gatebench.sim.server import FakeMessagesApi


def require_claude() -> Path:
    try:
        return find_claude()
    except ClaudeNotFoundError as e:
        if os.environ.get("CI"):
            pytest.fail(f"{e} (CI is set: real-CLI tests must run, not skip)", pytrace=False)
        pytest.skip(f"real Claude Code CLI not installed: {e}")


@pytest.fixture
def claude_bin() -> Path:
    return require_claude()


@contextlib.contextmanager
def fake_api(brain: Brain, log_path: Path | None = None) -> Iterator[tuple[str, FakeMessagesApi]]:
    """A fake Messages API served from a thread for the duration of the block."""
    with FakeMessagesApi(brain, log_path=log_path) as api:
        yield api.base_url, api


def run_cli(
    prompt: str,
    cwd: Path,
    base_url: str,
    *,
    home: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    timeout_s: float = 60.0,
) -> CompletedRun:
    """`claude -p PROMPT` in `cwd` against `base_url`; a throw-away HOME unless `home` is given
    (pass one to read the transcript afterwards)."""
    claude = require_claude()
    with tempfile.TemporaryDirectory(prefix="gatebench-home-") as tmp:
        env = claude_env(base_url, Path(home) if home else Path(tmp), extra_env)
        return run_claude(prompt, cwd, env, extra_args=extra_args, timeout_s=timeout_s, claude=claude)


def write_stop_hook(work: Path, command: str, timeout_s: int | None = None) -> Path:
    """Install `command` as the Stop hook in `<work>/.claude/settings.json` (replacing the file)."""
    hook: dict[str, object] = {"type": "command", "command": command}
    if timeout_s is not None:
        hook["timeout"] = timeout_s
    path = work / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}, indent=2), encoding="utf-8")
    return path


def block_once_command(marker: Path, reason: str, stdin_log: Path | None = None) -> str:
    """A shell command for a Stop hook that blocks with `reason` the first time (while `marker`
    does not exist) and allows every later stop. Each stdin it gets is appended to `stdin_log`."""
    code = "\n".join(
        [
            "import json, os, sys",
            "data = sys.stdin.read()",
            f"log = {str(stdin_log) if stdin_log else ''!r}",
            "if log:",
            "    open(log, 'a').write(json.dumps(json.loads(data)) + '\\n')",
            f"marker = {str(marker)!r}",
            "if os.path.exists(marker):",
            "    sys.exit(0)",
            "open(marker, 'w').close()",
            f"print(json.dumps({{'decision': 'block', 'reason': {reason!r}}}))",
        ]
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def usage_of(run: CompletedRun) -> dict[str, int]:
    """The CLI's own token totals from its final `result` event (empty if there is none)."""
    usage = (run.result or {}).get("usage") or {}
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return {k: usage[k] for k in keys if k in usage}


def describe_run(run: CompletedRun, api: FakeMessagesApi | None = None) -> str:
    """Everything needed to debug a failed real-CLI assertion, for assert messages."""
    lines = [f"rc={run.rc} timed_out={run.timed_out} wall={run.wall_s}s", f"stderr: {run.stderr[-2000:]}"]
    lines += [f"stdout: {line[:300]}" for line in run.stdout_lines[-15:]]
    if api is not None:
        for e in api.requests:
            lines.append(
                f"api #{e['seq']} {e['path']} {e.get('status')} {e.get('reply', {}).get('note', '')} {e.get('error', '')}"
            )
    return "\n".join(lines)


def run_plugin_eval(plugin: Path, base_url: str, root: Path, *extra: str,
                    timeout_s: float = 300.0) -> subprocess.CompletedProcess:
    """`claude plugin eval PLUGIN` as gatebench's export says to run it, against `base_url`.

    HOME and TMPDIR are fresh folders under `root` (claude plugin eval denies the agent both, and makes each
    run's directory under TMPDIR); results go where the CLI puts them, `PLUGIN/evals/results/<timestamp>/`,
    unless `extra` says `--output-dir`. Under /tmp the agent's Bash
    cannot write its working directory (the run's sandbox denies writes to /tmp, seen on 2.1.332): scripted
    agents here write with the file tools.
    """
    from gatebench.plugineval.plugineval import GATED_TOOLS

    claude = require_claude()
    home, tmp = root / "home", root / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    env = claude_env(base_url, home, {"TMPDIR": str(tmp)})
    argv = [str(claude), "plugin", "eval", str(plugin), "--scaffold", "--trust-plugin", "--ablation", "none",
            "--allow-tools", *GATED_TOOLS, "--no-publish", *extra]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=timeout_s)


# A scripted model turn: one tool call or one text reply ("{cwd}" is the run's work dir, as brains read it).
def write(rel: str, content: str) -> dict:
    return {"content": [{"type": "tool_use", "name": "Write", "input": {"file_path": "{cwd}/" + rel, "content": content}}]}


def read(rel: str) -> dict:
    return {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "{cwd}/" + rel}}]}


def say(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}]}


def bash(cmd: str) -> dict:
    return {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": cmd, "description": "run"}}]}
