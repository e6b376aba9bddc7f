"""`gatebench prep`: one cell, ready to run."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "make a work copy of a task with the gate installed in bench mode (a cell)"
DESCRIPTION = """Copy tasks/TASK/repo into OUT/repo with a fresh git history (one baseline commit), install the
Stop hook with the resolved config in OUT/state (outside the work copy), add permission deny rules for
the task's hidden, reference and inject folders and the state dir, and take the baseline snapshot.
Built in a temporary sibling folder and renamed into place: a failure leaves nothing behind."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("task", help="task id, e.g. T1")
    p.add_argument("--config", default="none", help="config name in configs/ or a YAML path (default: none)")
    p.add_argument("--out", type=Path, help="cell folder to create (default: work/TASK)")
    p.add_argument("--rep", type=int, default=0, help="repetition number (sets the sim seed; default 0)")
    p.add_argument("--seed", type=int, help="sim agent seed (default: derived from task and rep)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument("--variant", default="normal", choices=("normal", "impossible"),
                   help="normal (default), or impossible: the task's prompt with one visible test changed to "
                        "contradict it (tasks/TASK/variants/impossible/variant.yaml); the cell's record gets an outcome: "
                        "cheated, abstained or failed")


def run(args: argparse.Namespace) -> int:
    from gatebench.cell.cell import CellPaths
    from gatebench.cell.prep import prep
    from gatebench.paths import project_root

    out = args.out or project_root() / "work" / args.task
    meta = prep(args.task, args.config, out, rep=args.rep, seed=args.seed, force=args.force, variant=args.variant)
    c = CellPaths(out.absolute())
    print(f"prepared {meta.task} with config {meta.config} in {c.root}"
          + (f" (variant {meta.variant})" if meta.variant != "normal" else ""))
    print(f"  work copy: {c.repo} (baseline {meta.baseline_commit[:12]})")  # type: ignore[index]
    print(f"  state dir: {c.state}")
    print(f"  next:      gatebench run {c.root} --worker sim   (or --worker claude)")
    return 0
