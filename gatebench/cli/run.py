"""`gatebench run`: run one prepared cell with a worker."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

HELP = "run the agent (worker sim or claude) in one prepared cell"
DESCRIPTION = """Run a worker in a cell made by `gatebench prep`: `sim` (offline: the real Claude Code CLI against
gatebench's fake API playing a seeded scripted agent) or `claude` (the real API; needs credentials).
Writes worker.json, stream.jsonl and the transcript under the cell; with --finalize also result.json."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from gatebench.workers import WorkerOptions

    d = WorkerOptions()
    p.add_argument("cell", type=Path, help="cell folder (or its repo/)")
    p.add_argument("--worker", default="sim", help="sim (default, offline) or claude")
    p.add_argument("--model", default=d.model, help=f"model id, pinned (default {d.model})")
    p.add_argument("--max-turns", type=int, default=d.max_turns, help=f"turn cap (default {d.max_turns})")
    p.add_argument("--timeout-s", type=float, default=d.timeout_s, help=f"wall cap in seconds (default {d.timeout_s:g})")
    p.add_argument("--max-budget-usd", type=float, default=d.max_budget_usd,
                   help=f"dollar cap for this cell (default {d.max_budget_usd:g})")
    p.add_argument("--policy", default=d.policy, help="sim policy in configs/sim/ or a YAML path (default: default)")
    p.add_argument("--attempt", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--prep-s", type=float, help=argparse.SUPPRESS)
    p.add_argument("--finalize", action="store_true", help="score the cell afterwards (gatebench finalize)")
    p.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)


def _term(*_: object) -> None:
    # SIGTERM from the matrix: unwind like Ctrl-C, so the launcher stops the CLI and everything it started.
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from gatebench.cell import find_cell
    from gatebench.cli import UsageError
    from gatebench.workers import WorkerOptions, run_worker

    signal.signal(signal.SIGTERM, _term)
    cell = find_cell(args.cell)
    if cell is None:
        raise UsageError(f"{args.cell}: not inside a prepared cell (no cell.json found); run `gatebench prep` first")
    if args.max_turns < 1 or args.timeout_s <= 0 or args.max_budget_usd <= 0:
        raise UsageError("--max-turns, --timeout-s and --max-budget-usd must be positive")
    opts = WorkerOptions(model=args.model, max_turns=args.max_turns, timeout_s=args.timeout_s,
                         max_budget_usd=args.max_budget_usd, policy=args.policy, attempt=args.attempt)
    info = run_worker(args.worker, cell, opts)
    if not args.quiet:
        why = info.get("error") or info.get("killed")
        print(f"worker {args.worker} finished: rc={info.get('rc')} wall={info.get('wall_s')}s"
              + (f" ({why})" if why else ""))
    if args.finalize:
        from gatebench.cli.finalize import summary_line
        from gatebench.finalize import finalize

        timing = {"prep_s": args.prep_s} if args.prep_s is not None else None
        rec = finalize(cell, attempt_no=args.attempt, extra_timing=timing)
        if not args.quiet:
            print(summary_line(rec.model_dump(mode="json")))
    return 0
