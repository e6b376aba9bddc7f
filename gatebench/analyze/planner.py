"""What it would take: runs and dollars for a chosen half-width of a comparison's 95% interval.

From the run's own per-task values (between-config Δ: the per-task rate differences; within-run Δ:
the per-task mean of final - first-stop), the spread s over T tasks gives the interval's half-width
h(T) = t_{T-1} * s / sqrt(T) (the width analyze's expanded-percentile bootstrap reproduces). The plan
grows the suite in tasks at the same runs per task (the design the calibration script checks): the
smallest T' with h(T') <= target, i.e. runs = T' * runs per task, dollars = runs * the observed cost
per run of each arm. Adding reps on the same tasks cannot shrink the between-task part of s, so the
plan is stated in tasks and runs, not reps.
"""

from __future__ import annotations

import math
from typing import Literal

from gatebench.analyze import stats
from gatebench.analyze.load import Run
from gatebench.analyze.metrics import MIN_BOOTSTRAP_TASKS, paired_tasks, task_rate
from gatebench.models.analysis import Plan

MAX_TASKS = 1_000_000  # beyond this the plan says "not reachable" rather than loop
ASSURANCE = 0.8  # the plan reaches the target with this probability, not merely on average


def sd(values: list[float]) -> float | None:
    if len(values) < 2:
        return None
    m = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (len(values) - 1))


def sd_bound(s: float, tasks: int, p: float) -> float:
    """s * sqrt(k / chi2_p(k)), k = tasks - 1: p = 0.2 gives the one-sided 80% upper confidence bound of
    the sd (Browne 1995), p = 0.8 the 80% lower bound. chi-square quantile by Wilson-Hilferty.

    A dozen tasks estimate the sd to about +-20%, and a planned size goes with its square: planning on
    the point estimate reaches the target only about half the time.
    """
    k = tasks - 1
    z = stats.z_quantile(p)
    chi2 = k * (1.0 - 2.0 / (9.0 * k) + z * math.sqrt(2.0 / (9.0 * k))) ** 3
    return s * math.sqrt(k / max(chi2, 1e-9))


def half_width(s: float, tasks: int, confidence: float = 0.95) -> float:
    return stats.t_quantile(0.5 + confidence / 2.0, tasks - 1) * s / math.sqrt(tasks)


def tasks_needed(s: float, target: float, confidence: float = 0.95) -> int | None:
    """Smallest T >= 2 with t_{T-1} * s / sqrt(T) <= target (None if beyond MAX_TASKS)."""
    z = stats.z_quantile(0.5 + confidence / 2.0)
    guess = max(2, math.ceil((z * s / target) ** 2))
    if guess > MAX_TASKS:
        return None
    t = guess
    while t > 2 and half_width(s, t - 1, confidence) <= target:
        t -= 1
    while half_width(s, t, confidence) > target:
        t += 1
    return t


def _mean(xs: list[float]) -> float:
    return math.fsum(xs) / len(xs) if xs else 0.0


def make_plan(config: str, comparison: Literal["between", "within"], baseline: str | None, values: list[float],
              arms: list[tuple[int, float]], target: float, confidence: float) -> Plan:
    """arms: per arm (scored runs now, mean cost per run); the runs per task of every arm grow together."""
    tasks = len(values)
    s = sd(values)
    runs_now = sum(n for n, _ in arms)
    per_task = runs_now / tasks if tasks else 0.0
    usd_per_task = sum(n * c for n, c in arms) / tasks if tasks else 0.0
    few = tasks < MIN_BOOTSTRAP_TASKS  # the Δ table prints no interval: this table states none either
    plan = Plan(config=config, comparison=comparison, baseline=baseline, tasks=tasks, sd=s,
                halfwidth=half_width(s, tasks, confidence) if s is not None and not few else None,
                target_halfwidth=target, runs_per_task=per_task, runs_now=runs_now,
                usd_now=usd_per_task * tasks)
    if s is None:
        plan.note = "fewer than 2 tasks: no spread to plan from"
        return plan
    if s == 0:
        plan.note = "every task gave the same value: no spread to plan from; run more tasks"
        return plan
    point = tasks_needed(s, target, confidence)
    need = tasks_needed(sd_bound(s, tasks, 1.0 - ASSURANCE), target, confidence)
    plan.tasks_needed_point = point
    # The next step never overshoots: grow to what even a low sd (its 80% lower bound) needs, then
    # analyze again; the bigger sample re-estimates the sd, so the last step lands near the target.
    step = tasks_needed(sd_bound(s, tasks, ASSURANCE), target, confidence)
    plan.next_tasks = max(tasks, step) if step is not None else None
    if plan.next_tasks is not None:
        plan.next_runs = max(0, math.ceil(plan.next_tasks * per_task) - runs_now)
        plan.next_usd = max(0.0, (plan.next_tasks - tasks) * usd_per_task)
    if need is None:
        plan.note = f"more than {MAX_TASKS} tasks needed"
        return plan
    plan.tasks_needed = need
    if few:
        plan.note = (f"fewer than {MIN_BOOTSTRAP_TASKS} tasks: no interval now (SPEC section 17, Few tasks); "
                     "the plan's sd is a rough guess")
    plan.runs_needed = math.ceil(need * per_task)
    plan.extra_runs = max(0, plan.runs_needed - runs_now)
    plan.usd_needed = need * usd_per_task
    plan.extra_usd = max(0.0, plan.usd_needed - plan.usd_now)
    return plan


def between_values(cfg: dict[str, list[Run]], base: dict[str, list[Run]]) -> tuple[list[float], list[str]]:
    tasks = paired_tasks(cfg, base)
    return [task_rate(cfg[t]) - task_rate(base[t]) for t in tasks], tasks


def within_values(cfg: dict[str, list[Run]]) -> tuple[list[float], int]:
    known = {t: [r for r in rs if r.first_stop is not None] for t, rs in sorted(cfg.items())}
    known = {t: rs for t, rs in known.items() if rs}
    values = [_mean([int(r.solved) - int(bool(r.first_stop)) for r in rs]) for rs in known.values()]
    return values, sum(len(rs) for rs in known.values())


def _cost(rs: list[Run]) -> float:
    return _mean([r.cost + r.reviewer_cost for r in rs])


def plans(grouped: dict[str, dict[str, list[Run]]], configs: list[str], baseline: str | None, target: float,
          confidence: float = 0.95) -> list[Plan]:
    out = []
    for c in configs:
        cfg = grouped[c]
        if baseline is not None and c != baseline and baseline in grouped:
            base = grouped[baseline]
            values, tasks = between_values(cfg, base)
            if values:
                arms = [(sum(len(cfg[t]) for t in tasks), _cost([r for t in tasks for r in cfg[t]])),
                        (sum(len(base[t]) for t in tasks), _cost([r for t in tasks for r in base[t]]))]
                out.append(make_plan(c, "between", baseline, values, arms, target, confidence))
        if c == baseline:
            continue  # its within-run Δ is 0 by construction
        values, runs = within_values(cfg)
        if values:
            all_runs = [r for rs in cfg.values() for r in rs if r.first_stop is not None]
            out.append(make_plan(c, "within", None, values, [(runs, _cost(all_runs))], target, confidence))
    return out
