#!/usr/bin/env python3
"""How many tasks a cluster bootstrap needs: coverage of analyze's Δ interval (the expanded-percentile cluster
bootstrap, stats.cluster_bootstrap_mean) against the t interval, by number of tasks (clusters). SPEC.md section
17, "Few tasks". Prints one line per k; the smallest k from which the bootstrap's coverage stays within 2.5 pt of
the nominal 95% is what analyze.metrics.MIN_BOOTSTRAP_TASKS holds.

    .venv/bin/python scripts/few_clusters.py [--sims 400] [--resamples 400] [--reps 3] [--kmax 16]

Model: per task, a base solve probability ~ Beta(2, 2) and the config's = base + an effect ~ N(0.15, 0.15)
(clipped to [0, 1]); `reps` runs of each; the task's value is the difference of its two observed rates. The true
Δ is the population mean of p_config - p_base (computed by a large draw).
"""

from __future__ import annotations

import argparse
import random

from gatebench.analyze import stats


def draw_task(rng: random.Random, reps: int) -> tuple[float, float]:
    p = rng.betavariate(2, 2)
    q = min(1.0, max(0.0, p + rng.gauss(0.15, 0.15)))
    rate = lambda x: sum(rng.random() < x for _ in range(reps)) / reps  # noqa: E731
    return rate(q) - rate(p), q - p


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sims", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=400)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kmax", type=int, default=16)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    truth = sum(draw_task(rng, 1)[1] for _ in range(200_000)) / 200_000
    print(f"true Δ {100 * truth:.2f} pt; {a.sims} simulated suites per k, {a.reps} runs per task and arm")
    print(" k  bootstrap coverage  t coverage  (t interval clipped to [-1, 1])")
    for k in range(2, a.kmax + 1):
        hit_b = hit_t = 0
        for s in range(a.sims):
            values = [draw_task(rng, a.reps)[0] for _ in range(k)]
            _e, lo, hi = stats.cluster_bootstrap_mean(values, a.resamples, f"{k}:{s}")
            _e, tlo, thi = stats.t_interval_mean(values)
            hit_b += lo is not None and hi is not None and lo <= truth <= hi
            hit_t += tlo is not None and thi is not None and max(-1, tlo) <= truth <= min(1, thi)
        print(f"{k:2d}  {100 * hit_b / a.sims:6.1f}%            {100 * hit_t / a.sims:6.1f}%", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
