#!/usr/bin/env python3
"""What the agent's world costs: the same sim cell (T1, config tests) unsealed, sealed the old way (Claude Code's
sandbox, guard and deny rules, no world) and sealed in the world, side by side in one run, order rotated.

    .venv/bin/python scripts/bench_world.py [--rounds 3] [--task T1] [--config tests]

Prints the mean and median wall of the worker (the CLI session) and of the whole cell (prep + worker + finalize)
per arm, and the ratios world/unsealed (goal <= 1.20) and world/old seal (what the world itself adds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gatebench.cell import world
from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize
from gatebench.cell.prep import prep
from gatebench.cell.workers import WorkerOptions, run_worker

ARMS = ("unsealed", "old seal", "world")


def one(root: Path, arm: str, task: str, config: str) -> tuple[float, float]:
    cell = CellPaths(root / f"{arm.replace(' ', '-')}-{time.monotonic_ns()}")
    t0 = time.monotonic()
    prep(task, config, cell.root)
    real = world.wrap
    if arm == "old seal":
        world.wrap = lambda argv, spec, claude: argv  # type: ignore[assignment]
    try:
        info = run_worker("sim", cell, WorkerOptions(timeout_s=600, sealed=arm != "unsealed"))
    finally:
        world.wrap = real
    rec = finalize(cell)
    if info.get("rc") != 0 or rec.status != "ok":
        sys.exit(f"{arm}: the cell did not run cleanly: rc {info.get('rc')}, {rec.status}: {rec.error}")
    return float(info["wall_s"]), time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--task", default="T1")
    ap.add_argument("--config", default="tests")
    args = ap.parse_args()
    worker: dict[str, list[float]] = {a: [] for a in ARMS}
    cell: dict[str, list[float]] = {a: [] for a in ARMS}
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-world-") as t:
        one(Path(t), "world", args.task, args.config)  # warm: imports, bytecode, the CLI's first start
        for i in range(args.rounds):
            for arm in ARMS[i % 3:] + ARMS[:i % 3]:
                w, c = one(Path(t), arm, args.task, args.config)
                worker[arm].append(w)
                cell[arm].append(c)
    for name, d in (("worker", worker), ("cell", cell)):
        means = {a: statistics.mean(v) for a, v in d.items()}
        print(f"world: {name} wall mean " + ", ".join(f"{a} {means[a]:.2f} s" for a in ARMS)
              + " (medians " + ", ".join(f"{statistics.median(d[a]):.2f}" for a in ARMS) + f"); world/unsealed "
              f"{means['world'] / means['unsealed']:.2f} (goal <= 1.20), world/old seal "
              f"{means['world'] / means['old seal']:.2f}; {args.rounds} rounds of {args.task} x {args.config}",
              flush=True)


if __name__ == "__main__":
    main()
