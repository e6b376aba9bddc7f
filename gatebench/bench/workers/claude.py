"""Worker `claude`: the real `claude -p` on the real API, with a temporary HOME and only credentials passed in."""

from __future__ import annotations

import os
from collections.abc import Callable

from gatebench.bench import seal
from gatebench.bench.arms import plugin_args
from gatebench.bench.cell import CellPaths, session_id_for
from gatebench.bench.workers import require_claude
from gatebench.bench.workers.cli import cell_args_note, cli_args, task_prompt
from gatebench.bench.workers.launch import CELL_ENV, attempt_marker, launch
from gatebench.claude_cli import (  # noqa: F401  (credential names re-exported for callers)
    CREDENTIAL_PREFIXES,
    CREDENTIAL_VARS,
    claude_argv,
    claude_env,
    credential_problem,
    credentials,
)
from gatebench.errors import UsageError
from gatebench.models.cell import CellMeta


def run(cell: CellPaths, meta: CellMeta, opts, stop: Callable[[], str | None]) -> dict:
    claude = require_claude()
    problem = credential_problem(os.environ)
    if problem:
        raise UsageError(problem)
    sid = session_id_for(cell.root, opts.attempt)
    env = claude_env(None, cell.home, {**credentials(os.environ), **seal.worker_env(cell.root, opts.sealed),
                                       **opts.extra_env, CELL_ENV: opts.marker or attempt_marker(cell.root)})
    argv = claude_argv(claude, task_prompt(cell.state), [*cli_args(opts, sid), *plugin_args(meta), *seal.worker_args(opts.sealed)])
    info = launch(argv, cwd=cell.repo, env=env, stdout=cell.stream, stderr=cell.root / "stderr.log",
                  timeout_s=opts.timeout_s, stop=stop)
    return {**info, "session_id": sid, "model": opts.model, "argv": cell_args_note(argv)}
