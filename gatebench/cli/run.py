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
    from gatebench.cli.caps import add_cap_arguments

    p.add_argument("cell", type=Path, help="cell folder (or its repo/)")
    add_cap_arguments(p)
    p.add_argument("--attempt", type=int, default=1, help=argparse.SUPPRESS)
    p.add_argument("--prep-s", type=float, help=argparse.SUPPRESS)
    p.add_argument("--finalize", action="store_true", help="score the cell afterwards (gatebench finalize)")
    p.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)


def _term(*_: object) -> None:
    # SIGTERM from the matrix: unwind like Ctrl-C, so the launcher stops the CLI and everything it started.
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from gatebench.cell.cell import find_cell
    from gatebench.cell.workers import run_worker
    from gatebench.cli.caps import worker_options
    from gatebench.errors import UsageError

    signal.signal(signal.SIGTERM, _term)
    opts = worker_options(args, attempt=args.attempt)  # bad flags first: nothing is touched
    cell = find_cell(args.cell)
    if cell is None:
        raise UsageError(f"{args.cell}: not inside a prepared cell (no cell.json found); run `gatebench prep` first")
    from gatebench.cell.seal import require_seal

    opts.sealed = require_seal(args.unsealed)  # exit 2 naming what leaked, before the agent starts
    info = run_worker(args.worker, cell, opts)
    if not args.quiet:
        why = info.get("error") or info.get("killed")
        print(f"worker {args.worker} finished: rc={info.get('rc')} wall={info.get('wall_s')}s"
              + (f" ({why})" if why else ""))
    if args.finalize:
        from gatebench.cell.finalize import finalize
        from gatebench.cli.finalize import summary_line

        timing = {"prep_s": args.prep_s} if args.prep_s is not None else None
        rec = finalize(cell, attempt_no=args.attempt, extra_timing=timing)
        if not args.quiet:
            print(summary_line(rec.model_dump(mode="json")))
    return 0
