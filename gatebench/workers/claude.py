"""Worker `claude`: the real `claude -p` on the real API, with a temporary HOME and only credentials passed in."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from gatebench import seal
from gatebench.cell import CellPaths
from gatebench.claude_cli import claude_argv, claude_env
from gatebench.cli import UsageError
from gatebench.models.cell import CellMeta
from gatebench.prep import session_id_for
from gatebench.workers import require_claude
from gatebench.workers.launch import CELL_ENV, cell_args_note, cell_marker, cli_args, launch, task_prompt

# Everything of the user's environment that reaches the agent: how to authenticate, nothing else.
CREDENTIAL_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL",
                   "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_VERTEX_PROJECT_ID",
                   "CLOUD_ML_REGION", "ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL")
CREDENTIAL_PREFIXES = ("AWS_", "GOOGLE_")


def credentials(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k in CREDENTIAL_VARS or k.startswith(CREDENTIAL_PREFIXES)}


def credential_problem(env: Mapping[str, str]) -> str | None:
    """None if some way to authenticate is configured, else what is missing."""
    c = credentials(env)
    if c.get("ANTHROPIC_API_KEY") or c.get("CLAUDE_CODE_OAUTH_TOKEN") or c.get("ANTHROPIC_AUTH_TOKEN"):
        return None
    if c.get("CLAUDE_CODE_USE_BEDROCK") and any(k.startswith("AWS_") for k in c):
        return None
    if c.get("CLAUDE_CODE_USE_VERTEX") and (c.get("ANTHROPIC_VERTEX_PROJECT_ID") or any(k.startswith("GOOGLE_") for k in c)):
        return None
    return ("no credentials for the real API: set ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (or "
            "CLAUDE_CODE_USE_BEDROCK with AWS_*, or CLAUDE_CODE_USE_VERTEX with ANTHROPIC_VERTEX_PROJECT_ID)")


def run(cell: CellPaths, meta: CellMeta, opts, stop: Callable[[], str | None]) -> dict:
    claude = require_claude()
    problem = credential_problem(os.environ)
    if problem:
        raise UsageError(problem)
    sid = session_id_for(cell.root, opts.attempt)
    env = claude_env(None, cell.home, {**credentials(os.environ), **seal.worker_env(cell.root, opts.sealed), **opts.extra_env,
                                           CELL_ENV: cell_marker(cell.root)})
    argv = claude_argv(claude, task_prompt(cell.state), [*cli_args(opts, sid), *seal.worker_args(opts.sealed)])
    info = launch(argv, cwd=cell.repo, env=env, stdout=cell.stream, stderr=cell.root / "stderr.log",
                  timeout_s=opts.timeout_s, stop=stop)
    return {**info, "session_id": sid, "model": opts.model, "argv": cell_args_note(argv)}
