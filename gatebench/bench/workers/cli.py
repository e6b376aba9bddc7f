"""The one CLI run both workers make of a cell: its argv (the run's shared caps, the prompt), its record."""

from __future__ import annotations

from pathlib import Path


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
