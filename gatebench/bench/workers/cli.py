"""The one CLI run both workers make of a cell: its argv (the run's shared caps, the prompt), its record.

The workers differ only in the API the CLI talks to (`base_url`: the fake one, or None for the real one)
and what of the caller's environment it gets (`extra_env`: the real API's credentials).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from gatebench.bench import seal
from gatebench.bench.arms import plugin_args
from gatebench.bench.cell import CellPaths, session_id_for
from gatebench.bench.workers.launch import CELL_ENV, attempt_marker, launch
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
    info = launch(argv, cwd=cell.repo, env=env, stdout=cell.stream, stderr=cell.root / "stderr.log",
                  timeout_s=opts.timeout_s, stop=stop)
    return {**info, "session_id": sid, "model": opts.model, "argv": cell_args_note(argv)}


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
