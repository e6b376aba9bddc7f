"""The worker and its caps, as `run` and `matrix` both take them (one definition, so they cannot drift).

Not a verb: gatebench/cli/__init__.py lists verbs in VERBS, and this module is not one.
"""

from __future__ import annotations

import argparse


def add_cap_arguments(p: argparse.ArgumentParser) -> None:
    # The defaults come from the stdlib defaults module: `--help` must not import the runner.
    from gatebench.common import defaults as d

    p.add_argument("--worker", default="sim", help="sim (default, offline, free) or claude (real API, paid)")
    p.add_argument("--model", default=d.WORKER_MODEL, help=f"model id, the same for every cell (default {d.WORKER_MODEL})")
    p.add_argument("--max-turns", type=int, default=d.WORKER_MAX_TURNS, help=f"turn cap per cell (default {d.WORKER_MAX_TURNS})")
    p.add_argument("--timeout-s", type=float, default=d.WORKER_TIMEOUT_S,
                   help=f"wall cap per cell in seconds (default {d.WORKER_TIMEOUT_S:g})")
    p.add_argument("--max-budget-usd", type=float, default=d.WORKER_MAX_BUDGET_USD,
                   help=f"dollar cap per cell, passed to the CLI (default {d.WORKER_MAX_BUDGET_USD:g})")
    p.add_argument("--policy", default=d.WORKER_POLICY,
                   help="sim agent policy in configs/sim/ or a YAML path (default: default)")
    p.add_argument("--unsealed", action="store_true",
                   help="run the agent without the seal (no Bash sandbox; needs no bubblewrap); records say sealed: false")


def worker_options(args: argparse.Namespace, **extra: object):
    """WorkerOptions from the parsed caps; a cap that is not positive is bad input (exit 2)."""
    from gatebench.cell.workers import WorkerOptions
    from gatebench.errors import UsageError

    if args.max_turns < 1 or args.timeout_s <= 0 or args.max_budget_usd <= 0:
        raise UsageError("--max-turns, --timeout-s and --max-budget-usd must be positive")
    return WorkerOptions(model=args.model, max_turns=args.max_turns, timeout_s=args.timeout_s,
                         max_budget_usd=args.max_budget_usd, policy=args.policy, **extra)  # type: ignore[arg-type]
