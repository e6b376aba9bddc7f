"""Calibration by simulation: do analyze's intervals cover the true effects at their nominal rate?

Each simulated matrix draws fresh tasks from the population (synth.py) and goes through the same
code path as a real ledger (record dicts -> load.to_run -> cells.group -> metrics). The truth is
the population expectation (synth.true_*), the estimand analyze's intervals are built for.
Naive intervals that ignore the task clustering are scored beside them, so the difference shows.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from gatebench.analyze import cells, load, metrics, stats, synth

# A realistic gate: a pristine-tests gate that catches most broken states and a noisier reviewer;
# the agent fixes a caught state one time in three on average, more on some tasks than others.
POPULATION = synth.Population(mu=0.3, sigma=1.5)
BASELINE = synth.SynthConfig("none")
GATED = synth.SynthConfig(
    "tests+adv",
    gates=(synth.SynthGate("tests", "tests", recall=0.6, false_block=0.05),
           synth.SynthGate("adv", "review", recall=0.4, false_block=0.10, cost_usd=0.04)),
    fix_logit=synth.logit(0.3), fix_sd=1.0, harm=0.10, budget=3,
)


@dataclass
class Tally:
    hits: int = 0
    total: int = 0
    widths: list[float] = field(default_factory=list)

    def add(self, lo: float | None, hi: float | None, truth: float) -> None:
        if lo is None or hi is None:
            return
        self.total += 1
        self.hits += lo - 1e-12 <= truth <= hi + 1e-12
        self.widths.append(hi - lo)

    @property
    def coverage(self) -> float:
        return self.hits / self.total if self.total else float("nan")

    @property
    def mean_width(self) -> float:
        return math.fsum(self.widths) / len(self.widths) if self.widths else float("nan")


def grouped_runs(m: synth.Matrix) -> dict:
    return cells.group([load.to_run(d, "synth", "") for d in m.records if d["status"] != "infra_error"])


def naive_rate(tasks: dict) -> tuple[float, float]:
    runs = [r for rs in tasks.values() for r in rs]
    return stats.wilson(sum(r.solved for r in runs), len(runs))


def naive_unpaired(a: dict, b: dict) -> tuple[float, float]:
    """Two independent proportions over all runs (Wald), as if no run shared a task."""
    ra = [r.solved for rs in a.values() for r in rs]
    rb = [r.solved for rs in b.values() for r in rs]
    pa, pb = sum(ra) / len(ra), sum(rb) / len(rb)
    se = math.sqrt(pa * (1 - pa) / len(ra) + pb * (1 - pb) / len(rb))
    z = stats.z_quantile(0.975)
    return pb - pa - z * se, pb - pa + z * se


def naive_paired(a: dict, b: dict) -> tuple[float, float]:
    """Run pairs (i-th run of a task in each arm) as independent pairs: paired but unclustered."""
    d = [int(rb.solved) - int(ra.solved) for t in sorted(a.keys() & b.keys()) for ra, rb in
         zip(a[t], b[t], strict=False)]
    mean = math.fsum(d) / len(d)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in d) / (len(d) - 1))
    half = stats.z_quantile(0.975) * sd / math.sqrt(len(d))
    return mean - half, mean + half


def unpaired_clustered(a: dict, b: dict) -> tuple[float, float]:
    """Two arms analyzed as independent samples of tasks: t interval on the difference of task means."""
    ra = [metrics.task_rate(rs) for rs in a.values()]
    rb = [metrics.task_rate(rs) for rs in b.values()]
    ma, mb = math.fsum(ra) / len(ra), math.fsum(rb) / len(rb)
    va = math.fsum((x - ma) ** 2 for x in ra) / (len(ra) - 1) / len(ra)
    vb = math.fsum((x - mb) ** 2 for x in rb) / (len(rb) - 1) / len(rb)
    half = stats.t_quantile(0.975, len(ra) + len(rb) - 2) * math.sqrt(va + vb)
    return mb - ma - half, mb - ma + half


def coverage_delta(cfg: synth.SynthConfig, base: synth.SynthConfig, pop: synth.Population, tasks: int, reps: int,
                   matrices: int, seed: int, resamples: int) -> dict[str, Tally]:
    truth = synth.true_delta(cfg, base, pop)
    settings = {"confidence": 0.95, "resamples": resamples, "seed": seed}
    out = {k: Tally() for k in ("bootstrap", "bootstrap_fixed_tasks", "naive_paired", "naive_unpaired",
                                "rate", "rate_naive")}
    rate_truth = synth.true_solve_rate(cfg, pop)
    for i in range(matrices):
        m = synth.generate([base, cfg], tasks, reps, seed=seed * 1_000_003 + i, pop=pop)
        g = grouped_runs(m)
        settings["seed"] = seed * 1_000_003 + i
        d = metrics.delta(cfg.name, base.name, g, settings).estimate
        out["bootstrap"].add(d.lo, d.hi, truth)
        out["bootstrap_fixed_tasks"].add(d.lo, d.hi, synth.fixed_task_delta(m, cfg, base))
        out["naive_paired"].add(*naive_paired(g[base.name], g[cfg.name]), truth)
        out["naive_unpaired"].add(*naive_unpaired(g[base.name], g[cfg.name]), truth)
        rate, _ = metrics.rate_estimate([(sum(r.solved for r in rs), len(rs)) for rs in g[cfg.name].values()], 0.95)
        out["rate"].add(rate.lo, rate.hi, rate_truth)
        out["rate_naive"].add(*naive_rate(g[cfg.name]), rate_truth)
    return out


def efficiency(cfg: synth.SynthConfig, base: synth.SynthConfig, pop: synth.Population, tasks: int, reps: int,
               matrices: int, seed: int, resamples: int) -> dict[str, Tally]:
    """Equal runs: the within-run Δ from `reps` gated runs per task, vs two arms of reps/2 each."""
    if reps % 2:
        raise ValueError("efficiency needs an even number of reps (two arms of reps/2)")
    truth = synth.true_delta(cfg, base, pop)
    settings = {"confidence": 0.95, "resamples": resamples, "seed": seed}
    out = {k: Tally() for k in ("within_run", "two_arm_paired", "two_arm_unpaired", "validity")}
    for i in range(matrices):
        s = seed * 1_000_003 + i
        settings["seed"] = s
        g1 = grouped_runs(synth.generate([cfg], tasks, reps, seed=s, pop=pop))
        cf = metrics.counterfactual(cfg.name, g1, None, None, settings).delta
        out["within_run"].add(cf.lo, cf.hi, truth)
        g2 = grouped_runs(synth.generate([base, cfg], tasks, reps // 2, seed=s + 500_000_000, pop=pop))
        d = metrics.delta(cfg.name, base.name, g2, settings).estimate
        out["two_arm_paired"].add(d.lo, d.hi, truth)
        out["two_arm_unpaired"].add(*unpaired_clustered(g2[base.name], g2[cfg.name]), truth)
        v = metrics.counterfactual(cfg.name, g2, base.name, None, settings).validity
        if v is not None:
            out["validity"].add(v.difference.lo, v.difference.hi, 0.0)
    return out


def runs_for_half_width(runs: int, mean_width: float, target: float = 0.05) -> int:
    """Runs needed for a +-target CI, growing the suite in tasks at the same reps (width ~ 1/sqrt(runs))."""
    return math.ceil(runs * (mean_width / 2.0 / target) ** 2)


def aa_config(cfg: synth.SynthConfig, name: str) -> synth.SynthConfig:
    return dataclasses.replace(cfg, name=name)


@dataclass
class PlanCheck:
    """Planner check: the plan from a pilot matrix, followed, against the half-width it promised."""

    target: float
    ratios: list[float] = field(default_factory=list)  # achieved half-width / target, per matrix
    planned_tasks: list[int] = field(default_factory=list)
    no_plan: int = 0  # pilots with no spread to plan from

    def share(self, lo: float, hi: float) -> float:
        return sum(lo <= r <= hi for r in self.ratios) / len(self.ratios) if self.ratios else float("nan")

    @property
    def reached(self) -> float:
        """Share of followed plans whose half-width came within 20% of the target (or under it)."""
        return self.share(0.0, 1.2)

    @property
    def within_20(self) -> float:
        """Share within 20% either way (a plan that over-spends by a lot misses this one)."""
        return self.share(0.8, 1.2)


def follow_plans(cfg: synth.SynthConfig, base: synth.SynthConfig, pop: synth.Population, tasks: int, reps: int,
                 matrices: int, seed: int, comparison: str, target: float = 0.05,
                 max_tasks: int = 20_000) -> PlanCheck:
    """Pilot matrix -> planner -> a fresh matrix of the planned size -> its half-width.

    The followed matrix's half-width is t_{T-1} * sd / sqrt(T) over its per-task values: the width the
    expanded-percentile bootstrap reproduces (a bootstrap over thousands of tasks per matrix would cost
    minutes and change nothing at this size).
    """
    from gatebench.analyze import planner

    out = PlanCheck(target)
    arms = [base, cfg] if comparison == "between" else [cfg]
    for i in range(matrices):
        s = seed * 1_000_003 + i
        g = grouped_runs(synth.generate(arms, tasks, reps, seed=s, pop=pop))
        plan = next(p for p in planner.plans(g, [a.name for a in arms], base.name if comparison == "between"
                                             else None, target) if p.comparison == comparison)
        if plan.tasks_needed is None:
            out.no_plan += 1
            continue
        need = min(plan.tasks_needed, max_tasks)
        out.planned_tasks.append(need)
        g2 = grouped_runs(synth.generate(arms, need, reps, seed=s + 700_000_000, pop=pop))
        out.ratios.append(_width_ratio(g2, cfg.name, base.name, comparison, target))
    return out


def _width_ratio(g: dict, cfg: str, base: str, comparison: str, target: float) -> float:
    """The half-width the grouped runs reach for this comparison, as a share of the target."""
    from gatebench.analyze import planner

    if comparison == "between":
        values, _ = planner.between_values(g[cfg], g[base])
    else:
        values, _ = planner.within_values(g[cfg])
    sd = planner.sd(values)
    return planner.half_width(sd, len(values)) / target if sd else 0.0


def _renamed(g: dict, prefix: str) -> dict:
    return {c: {f"{prefix}{t}": rs for t, rs in tasks.items()} for c, tasks in g.items()}


def _merge(a: dict, b: dict) -> dict:
    return {c: {**a.get(c, {}), **b.get(c, {})} for c in a.keys() | b.keys()}


def follow_steps(cfg: synth.SynthConfig, base: synth.SynthConfig, pop: synth.Population, tasks: int, reps: int,
                 matrices: int, seed: int, comparison: str, target: float = 0.05, rounds: int = 6,
                 max_tasks: int = 20_000) -> PlanCheck:
    """The advice followed as given: grow to `next_tasks`, analyze again, repeat until it says no more.

    New tasks are fresh draws from the population added to the ones already run (the pilot is kept).
    """
    from gatebench.analyze import planner

    out = PlanCheck(target)
    arms = [base, cfg] if comparison == "between" else [cfg]
    names = [a.name for a in arms]
    for i in range(matrices):
        s = seed * 1_000_003 + i
        g = grouped_runs(synth.generate(arms, tasks, reps, seed=s, pop=pop))
        n = tasks
        for rnd in range(rounds):
            plan = next(p for p in planner.plans(g, names, base.name if comparison == "between" else None, target)
                        if p.comparison == comparison)
            if plan.next_tasks is None or plan.next_tasks <= n:
                break
            more = min(plan.next_tasks, max_tasks) - n
            if more <= 0:
                break
            g = _merge(g, _renamed(grouped_runs(synth.generate(arms, more, reps, seed=s + (rnd + 1) * 100_000_007,
                                                               pop=pop)), f"R{rnd}-"))
            n += more
        out.planned_tasks.append(n)
        out.ratios.append(_width_ratio(g, cfg.name, base.name, comparison, target))
    return out
