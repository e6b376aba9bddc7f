"""Worker `claude`: the real `claude -p` on the real API, with a temporary HOME and only credentials passed in."""

from __future__ import annotations

import os
from collections.abc import Callable

from gatebench.cell.cell import CellPaths
from gatebench.cell.workers import require_claude
from gatebench.cell.workers.cli import run_cli
from gatebench.claude_cli import (  # noqa: F401  (credential names re-exported for callers)
    CREDENTIAL_PREFIXES,
    CREDENTIAL_VARS,
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
    return run_cli(claude, cell, meta, opts, stop, base_url=None, extra_env=credentials(os.environ))
