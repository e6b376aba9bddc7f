"""The one CLI run both workers make of a cell: its argv (the run's shared caps, the prompt), its record.

The workers differ only in the API the CLI talks to (`base_url`: the fake one, or None for the real one)
and what of the caller's environment it gets (`extra_env`: the real API's credentials).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from gatebench.cell import seal, world
from gatebench.cell.arms import plugin_args
from gatebench.cell.cell import CellPaths, session_id_for
from gatebench.cell.stopserver import StopServer
from gatebench.cell.workers.launch import CELL_ENV, attempt_marker, launch
from gatebench.claude_cli import claude_argv, claude_env
from gatebench.models.cell import CellMeta


def run_cli(claude: str, cell: CellPaths, meta: CellMeta, opts, stop: Callable[[], str | None], *,
            base_url: str | None, extra_env: Mapping[str, str] | None = None) -> dict:
    """Run the cell's `claude -p` to its end or a cap: launch's record plus the session, model and argv."""
    sid = session_id_for(cell.root, opts.attempt)
    env = claude_env(base_url, cell.home, {**(extra_env or {}), **seal.worker_env(cell.root, opts.sealed),
                                           **opts.extra_env, CELL_ENV: opts.marker or attempt_marker(cell.root)})
    argv = claude_argv(claude, task_prompt(cell.state),
                       [*cli_args(opts, sid), *plugin_args(meta), *seal.worker_args(opts.sealed)])
    # Sealed, the CLI runs in the agent's world; sealed or not, its hooks are the stop server's clients.
    run_argv = world.wrap(argv, world.load_world(cell.state), claude) if opts.sealed else argv
    with stop_server(cell, env):
        info = launch(run_argv, cwd=cell.repo, env=env, stdout=cell.stream, stderr=cell.root / "stderr.log",
                      timeout_s=opts.timeout_s, stop=stop)
    return {**info, "session_id": sid, "model": opts.model, "argv": cell_args_note(argv)}


def hook_tmp(cell_root: Path) -> Path:
    """The TMPDIR of the hook run outside the world (the oracle's copies): beside the worker's, never in it."""
    tmp = seal.worker_tmp(cell_root)
    return tmp.with_name(tmp.name + "-hook")


def hook_argv(state: Path, verb: str) -> list[str]:
    """The hook gatebench runs for a cell: what prep once wrote into the settings, now run by the stop server."""
    from gatebench.installer.settings import HOOK_SCRIPT

    return [sys.executable, "-S", HOOK_SCRIPT, verb, "--state", os.path.abspath(state)]


def stop_server(cell: CellPaths, cli_env: Mapping[str, str]) -> StopServer:
    """The cell's stop server: the hook gets the CLI's environment, the settings' `env` and what the CLI adds
    for a hook (CLAUDE_PROJECT_DIR, CLAUDECODE), a TMPDIR outside the world, and nothing from the client."""
    try:
        settings = json.loads((cell.repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        settings = {}
    extra = settings.get("env") if isinstance(settings, dict) else None
    extra = extra if isinstance(extra, dict) else {}
    tmp = hook_tmp(cell.root)
    tmp.mkdir(mode=0o700, exist_ok=True)
    env = {**cli_env, **{str(k): str(v) for k, v in extra.items()}, "CLAUDE_PROJECT_DIR": str(cell.repo.resolve()),
           "CLAUDECODE": "1", "TMPDIR": str(tmp)}
    return StopServer(world.stop_socket(seal.worker_tmp(cell.root)), lambda verb: hook_argv(cell.state, verb),
                      env=env, cwd=cell.repo, timeout_s=HOOK_TIMEOUT_S, log=cell.root / "stop-server.log")


HOOK_TIMEOUT_S = 3600.0  # the CLI's own hook timeout (the config's hook budget + margin) ends the client first


def cli_args(opts, session_id: str) -> list[str]:
    """The caps and pins every config of a run shares."""
    return ["--model", opts.model, "--max-turns", str(opts.max_turns), "--max-budget-usd", f"{opts.max_budget_usd:g}",
            "--session-id", session_id]


def task_prompt(state_dir: Path) -> str:
    import json

    data = json.loads((state_dir / "config.json").read_text(encoding="utf-8"))
    return data["task"]["prompt"]


def cell_args_note(argv: list[str]) -> list[str]:
    """argv for the record, with the (long) prompt elided."""
    out = list(argv)
    if "-p" in out:
        i = out.index("-p")
        if i + 1 < len(out):
            out[i + 1] = f"<prompt: {len(out[i + 1])} chars>"
    return out
