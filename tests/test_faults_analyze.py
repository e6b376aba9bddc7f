"""analyze compares rates exactly: equal rates from different task mixes are equal, not an ulp apart.

Each ledger is built so that the float computation differs in the last bit (checked below with the
old float arithmetic), while the exact values are equal.
"""

from __future__ import annotations

import math
from pathlib import Path

from gatebench.analyze import load, pipeline


def rec(config: str, task: str, rep: int, solved: bool, cost: float = 0.1, reviewer: float = 0.0) -> dict:
    return {"v": 1, "run_id": "r1", "cell_id": f"{config}/{task}/{rep}", "config": config, "task": task, "rep": rep,
            "worker": "sim", "status": "ok", "solved": solved, "stops": [], "cost_usd": cost,
            "reviewer_cost_usd": reviewer, "versions": {"gatebench": "0.1.0"}, "blocks": 0}


def runs(config: str, solved_per_task: dict[str, int], reps: int = 3, **cost) -> list[dict]:
    return [rec(config, t, i, i < k, **cost) for t, k in solved_per_task.items() for i in range(reps)]


def analyze(records: list[dict], baseline: str = "none"):
    rs = [load.to_run(d, f"x:{i}", "/runs/r1") for i, d in enumerate(records)]
    return pipeline.build(load.Loaded(runs=rs), baseline, Path("/runs/r1/analysis"))


def float_mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)  # as solve rates were computed before: a float sum


def fsum_mean(xs: list[float]) -> float:
    return math.fsum(xs) / len(xs)  # as difficulties were: even exactly rounded, the inputs are rounded


def test_equal_rate_and_cost_from_different_task_mixes_are_both_on_the_frontier():
    # a: 0, 0, 2/3, 1, 1/3; b: all of two tasks of five. Both 2/5, both $0.30 a run (0.1 + 0.2 vs 0.3).
    a = runs("a", {"T1": 0, "T2": 0, "T3": 2, "T4": 3, "T5": 1}, cost=0.1, reviewer=0.2)
    b = runs("b", {"T1": 3, "T2": 3, "T3": 0, "T4": 0, "T5": 0}, cost=0.3)
    assert float_mean([0.0, 0.0, 2 / 3, 1.0, 1 / 3]) < float_mean([1.0] * 2 + [0.0] * 3)  # floats: a "loses" to b
    an = analyze(a + b, baseline="a")
    assert an.pareto == ["a", "b"]
    assert [c.solve_rate.value for c in an.configs] == [0.4, 0.4]


def test_tasks_of_exactly_equal_difficulty_keep_the_name_order():
    # T2: 1/3, 1, 1 over three configs; T10: 2/3, 2/3, 1. Both 7/9; as floats T10 is an ulp "harder".
    recs = (runs("none", {"T2": 1, "T10": 2}) + runs("b", {"T2": 3, "T10": 2}) + runs("c", {"T2": 3, "T10": 3}))
    assert fsum_mean([1 / 3, 1.0, 1.0]) > fsum_mean([2 / 3, 2 / 3, 1.0])
    an = analyze(recs)
    assert an.matrix.tasks == ["T2", "T10"]
    assert an.matrix.difficulty[0] == an.matrix.difficulty[1]


def test_equal_per_task_differences_give_the_point_not_a_bootstrapped_interval():
    # g - none: 1 - 2/3 and 1/3 - 0, exactly 1/3 each, as floats an ulp apart (5 tasks: the fewest with an interval)
    none, g = {"T1": 2, "T2": 0, "T3": 2, "T4": 0, "T5": 2}, {"T1": 3, "T2": 1, "T3": 3, "T4": 1, "T5": 3}
    recs = runs("none", none) + runs("g", g)
    assert 1 - 2 / 3 != 1 / 3
    d = analyze(recs).deltas[0]
    assert d.config == "g" and d.tasks == 5
    assert d.estimate.value == d.estimate.lo == d.estimate.hi == 1 / 3
    # Differences that really differ still get an interval.
    recs = runs("none", {**none, "T1": 1}) + runs("g", g)
    d = analyze(recs).deltas[0]
    assert d.estimate.lo < d.estimate.hi
