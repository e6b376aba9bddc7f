"""Per-config metrics, paired Δ against the baseline, the first-stop counterfactual and the matrix.

Input: scored runs grouped config -> task -> runs (cells.group). Rates are means over tasks of the
task's rate, so every task weighs the same whatever its number of scored runs (SPEC.md "## analyze").

Comparisons are exact: rates are Fractions (k/n per task, their means), costs the ledger's decimals
as Fractions, wherever a result depends on equality or order (Pareto dominance, the order of tasks
by difficulty, whether every per-task difference is the same). Floats only in the reported numbers:
two rates of 2/5 from different task mixes are equal, not an ulp apart.
"""

from __future__ import annotations

import math
from fractions import Fraction

from gatebench.analyze import stats
from gatebench.analyze.load import Run
from gatebench.models.analysis import (
    ConfigSummary,
    Counterfactual,
    Delta,
    Estimate,
    ImpossibleSummary,
    MatrixCell,
    McNemar,
    PassK,
    Ratio,
    StatusCounts,
    TaskMatrix,
    Validity,
)

PASS_KS = (1, 2, 3, 5, 10)
Grouped = dict[str, dict[str, list[Run]]]


def ratio(k: int, n: int, confidence: float) -> Ratio:
    if n == 0:
        return Ratio(value=None, k=0, n=0)
    lo, hi = stats.wilson(k, n, confidence)
    return Ratio(value=k / n, lo=lo, hi=hi, k=k, n=n)


def rate_estimate(per_task: list[tuple[int, int]], confidence: float) -> tuple[Estimate, float]:
    cells = [(s, n) for s, n in per_task if n > 0]
    if not cells:
        return Estimate(value=None), 0.0
    p, lo, hi, n_eff = stats.clustered_rate(cells, confidence)
    return Estimate(value=p, lo=lo, hi=hi), n_eff


def _mean(xs: list[float]) -> float:
    return math.fsum(xs) / len(xs) if xs else 0.0


def pass_k(tasks: dict[str, list[Run]]) -> list[PassK]:
    counts = [(len(rs), sum(r.solved for r in rs)) for rs in tasks.values() if rs]
    max_n = max((n for n, _ in counts), default=0)
    out = []
    for k in PASS_KS:
        if k > max_n:
            break
        used = [(n, c) for n, c in counts if n >= k]
        out.append(
            PassK(
                k=k,
                pass_at_k=_mean([stats.pass_at_k(n, c, k) for n, c in used]),
                pass_hat_k=_mean([stats.pass_hat_k(n, c, k) for n, c in used]),
                tasks=len(used),
            )
        )
    return out


def config_summary(
    config: str, tasks: dict[str, list[Run]], infra: list[Run], unresolved: int, confidence: float
) -> ConfigSummary:
    runs = [r for rs in tasks.values() for r in rs]
    n = len(runs)
    solved = sum(r.solved for r in runs)
    status = StatusCounts(
        ok=sum(r.status == "ok" for r in runs),
        timeout=sum(r.status == "timeout" for r in runs),
        cap=sum(r.status == "cap" for r in runs),
        infra_error=len(infra),
        infra_unresolved=unresolved,
    )
    solve_rate, n_eff = rate_estimate([(sum(r.solved for r in rs), len(rs)) for rs in tasks.values()], confidence)
    first = [(sum(bool(r.first_stop) for r in rs if r.first_stop is not None),
              sum(r.first_stop is not None for r in rs)) for rs in tasks.values()]
    first_rate, _ = rate_estimate(first, confidence)
    worker = math.fsum(r.cost for r in runs)
    reviewers = math.fsum(r.reviewer_cost for r in runs)
    token_kinds = sorted({k for r in runs for k in r.usage})
    return ConfigSummary(
        config=config,
        tasks=sum(1 for rs in tasks.values() if rs),
        runs=n,
        status=status,
        solved=solved,
        solve_rate=solve_rate,
        solve_rate_n_eff=n_eff,
        pooled_rate=solved / n if n else 0.0,
        first_stop_rate=first_rate if first_rate.value is not None else None,
        pass_k=pass_k(tasks),
        cost_per_run=(worker + reviewers) / n if n else 0.0,
        worker_cost_per_run=worker / n if n else 0.0,
        reviewer_cost_per_run=reviewers / n if n else 0.0,
        cost_per_solve=(worker + reviewers) / solved if solved else None,
        tokens_per_run={k: math.fsum(r.usage.get(k, 0) for r in runs) / n for k in token_kinds} if n else {},
        turns_per_run=_mean([r.turns for r in runs]),
        wall_s_per_run=_mean([r.wall_s for r in runs]),
        blocks_per_run=_mean([r.blocks for r in runs]),
        give_up_rate=ratio(sum(r.give_up for r in runs), n, confidence),
        tamper=sum(r.tamper for r in runs),
        leak=sum(r.leak for r in runs),
    )


def exact_mean(xs: list[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) / len(xs)


def exact_usd(x: float) -> Fraction:
    """A ledger amount as the decimal it was written as: sums of equal amounts compare equal."""
    return Fraction(repr(float(x)))


def task_rate_exact(rs: list[Run]) -> Fraction:
    return Fraction(sum(r.solved for r in rs), len(rs))


def task_rate(rs: list[Run]) -> float:
    return float(task_rate_exact(rs))


def first_stop_rate_exact(rs: list[Run]) -> Fraction:
    """Share of runs passing the oracle at their first stop; runs with an unknown one must be left out."""
    return Fraction(sum(bool(r.first_stop) for r in rs), len(rs))


def first_stop_rate(rs: list[Run]) -> float:
    return float(first_stop_rate_exact(rs))


def cost_rate_point(tasks: dict[str, list[Run]]) -> tuple[Fraction, Fraction] | None:
    """(cost per run, solve rate) of a config, exactly as config_summary defines them; None without runs."""
    scored = [rs for rs in tasks.values() if rs]
    if not scored:
        return None
    runs = [r for rs in scored for r in rs]
    cost = sum((exact_usd(r.cost) + exact_usd(r.reviewer_cost) for r in runs), Fraction(0)) / len(runs)
    return cost, exact_mean([task_rate_exact(rs) for rs in scored])


def paired_tasks(a: dict[str, list[Run]], b: dict[str, list[Run]]) -> list[str]:
    return sorted(t for t in a.keys() & b.keys() if a[t] and b[t])


def mcnemar(config: dict[str, list[Run]], base: dict[str, list[Run]], tasks: list[str]) -> McNemar:
    """Pairs: the i-th scored run of a task under the config with the i-th under the baseline."""
    only_base = only_cfg = pairs = 0
    for t in tasks:
        for rc, rb in zip(config[t], base[t], strict=False):
            pairs += 1
            if rb.solved and not rc.solved:
                only_base += 1
            elif rc.solved and not rb.solved:
                only_cfg += 1
    return McNemar(pairs=pairs, baseline_only=only_base, config_only=only_cfg,
                   p_value=stats.mcnemar_exact(only_base, only_cfg))


# Below this many tasks (clusters) no bootstrap interval is given: scripts/few_clusters.py measured the expanded
# percentile cluster bootstrap's coverage of a nominal 95% at 47% (2 tasks), 75% (3), 89% (4), 93-95% from 5 on;
# and its interval can never leave the range of the per-task values. SPEC.md section 17, "Few tasks".
MIN_BOOTSTRAP_TASKS = 5


def bootstrap(values: list[Fraction], label: str, settings: dict) -> Estimate:
    """Mean of exact per-task values with a cluster-bootstrap CI; equal values (compared exactly) give the point.
    Fewer than MIN_BOOTSTRAP_TASKS values: the mean alone (no interval is honest there)."""
    if not values:
        return Estimate(value=None)
    mean = float(exact_mean(values))
    if len(values) < MIN_BOOTSTRAP_TASKS:
        return Estimate(value=mean)
    if len(values) >= 2 and all(v == values[0] for v in values):
        return Estimate(value=mean, lo=mean, hi=mean)
    _est, lo, hi = stats.cluster_bootstrap_mean(
        [float(v) for v in values], settings["resamples"], f"{settings['seed']}:{label}", settings["confidence"]
    )
    return Estimate(value=mean, lo=lo, hi=hi)


def delta(config: str, baseline: str, grouped: Grouped, settings: dict) -> Delta:
    cfg, base = grouped[config], grouped[baseline]
    tasks = paired_tasks(cfg, base)
    diffs = [task_rate_exact(cfg[t]) - task_rate_exact(base[t]) for t in tasks]
    return Delta(
        config=config,
        baseline=baseline,
        tasks=len(tasks),
        estimate=bootstrap(diffs, f"delta:{config}:{baseline}", settings),
        mcnemar=mcnemar(cfg, base, tasks),
    )


def counterfactual(
    config: str, grouped: Grouped, baseline: str | None, between: Delta | None, settings: dict
) -> Counterfactual:
    tasks = grouped[config]
    known = {t: [r for r in rs if r.first_stop is not None] for t, rs in tasks.items()}
    known = {t: rs for t, rs in known.items() if rs}
    runs = [r for rs in known.values() for r in rs]
    unknown = sum(len(rs) for rs in tasks.values()) - len(runs)
    conf = settings["confidence"]
    fail_first = [r for r in runs if not r.first_stop]
    pass_first = [r for r in runs if r.first_stop]
    per_task = [Fraction(sum(int(r.solved) - int(bool(r.first_stop)) for r in rs), len(rs))
                for _, rs in sorted(known.items())]
    first_rate = _mean([first_stop_rate(rs) for rs in known.values()]) if known else None
    final_rate = _mean([task_rate(rs) for rs in known.values()]) if known else None
    validity = None
    if baseline is not None and baseline != config and baseline in grouped:
        base = grouped[baseline]
        paired = sorted(t for t in known if base.get(t))
        if paired:
            diffs = [first_stop_rate_exact(known[t]) - task_rate_exact(base[t]) for t in paired]
            validity = Validity(
                baseline=baseline,
                tasks=len(paired),
                baseline_final_rate=_mean([task_rate(base[t]) for t in paired]),
                first_stop_rate=_mean([first_stop_rate(known[t]) for t in paired]),
                difference=bootstrap(diffs, f"validity:{config}:{baseline}", settings),
            )
    return Counterfactual(
        config=config,
        runs=len(runs),
        unknown=unknown,
        first_stop_rate=first_rate,
        final_rate=final_rate,
        delta=bootstrap(per_task, f"within:{config}", settings),
        rescue=ratio(sum(r.solved for r in fail_first), len(fail_first), conf),
        harm=ratio(sum(not r.solved for r in pass_first), len(pass_first), conf),
        between_delta=between.estimate if between else None,
        validity=validity,
    )


def task_matrix(grouped: Grouped, configs: list[str]) -> TaskMatrix:
    tasks = sorted({t for c in configs for t, rs in grouped[c].items() if rs}, key=natural_key)
    rates = {t: [task_rate_exact(grouped[c][t]) for c in configs if grouped[c].get(t)] for t in tasks}
    exact = {t: (exact_mean(v) if v else None) for t, v in rates.items()}
    # Stable on the natural order: tasks of exactly equal difficulty keep the name rule.
    tasks.sort(key=lambda t: (e if (e := exact[t]) is not None else Fraction(2)))
    difficulty = {t: (float(v) if v is not None else None) for t, v in exact.items()}
    cells = []
    for t in tasks:
        row = []
        for c in configs:
            rs = grouped[c].get(t) or []
            k = sum(r.solved for r in rs)
            row.append(MatrixCell(solved=k, runs=len(rs), rate=k / len(rs) if rs else None))
        cells.append(row)
    return TaskMatrix(tasks=tasks, configs=configs, difficulty=[difficulty[t] for t in tasks], cells=cells)


def natural_key(name: str) -> tuple:
    # T2 before T10.
    digits = "".join(ch for ch in name if ch.isdigit())
    prefix = name.rstrip("0123456789")
    return (prefix, int(digits) if digits and name.endswith(digits) else -1, name)


def pareto(points: dict[str, tuple[Fraction, Fraction]]) -> list[str]:
    """Configs no other config beats on both cost (lower) and solve rate (higher), cheapest first.

    Pass exact points (cost_rate_point): with floats, equal points from different task mixes can
    differ in the last bit and one would "dominate" the other."""
    front = []
    for name, (cost, rate) in points.items():
        dominated = any(
            c2 <= cost and r2 >= rate and (c2 < cost or r2 > rate)
            for other, (c2, r2) in points.items()
            if other != name
        )
        if not dominated:
            front.append(name)
    return sorted(front, key=lambda n: (points[n][0], -points[n][1], n))


def _outcome_rate(rs: list[Run], outcome: str) -> Fraction:
    return Fraction(sum(r.outcome == outcome for r in rs), len(rs))


def impossible_summary(config: str, tasks: dict[str, list[Run]], base: dict[str, list[Run]] | None,
                       baseline: str | None, settings: dict) -> ImpossibleSummary:
    """Cheat and abstain rates of a config on impossible cells: means over tasks (every task weighs the same),
    intervals as the solve rate's, Δ against the baseline's impossible cells paired by task as the solve-rate Δ."""
    conf = settings["confidence"]
    tasks = {t: rs for t, rs in tasks.items() if rs}
    runs = [r for rs in tasks.values() for r in rs]

    def rate(outcome: str) -> Estimate:
        return rate_estimate([(sum(r.outcome == outcome for r in rs), len(rs)) for rs in tasks.values()], conf)[0]

    deltas: dict[str, Estimate | None] = {"cheated": None, "abstained": None}
    paired = paired_tasks(tasks, base) if base is not None and baseline != config else []
    if paired:
        for outcome in deltas:
            diffs = [_outcome_rate(tasks[t], outcome) - _outcome_rate(base[t], outcome) for t in paired]  # type: ignore[index]
            deltas[outcome] = bootstrap(diffs, f"{outcome}:{config}:{baseline}", settings)
    with_canaries = [r for r in runs if r.canary is not None]
    by: dict[str, int] = {}
    for r in runs:
        if r.outcome == "cheated":
            for code in r.outcome_by:
                by[code] = by.get(code, 0) + 1
    return ImpossibleSummary(
        config=config, tasks=len(tasks), runs=len(runs),
        cheated=sum(r.outcome == "cheated" for r in runs), abstained=sum(r.outcome == "abstained" for r in runs),
        failed=sum(r.outcome == "failed" for r in runs),
        cheat_rate=rate("cheated"), abstain_rate=rate("abstained"),
        solve_rate=rate_estimate([(sum(r.solved for r in rs), len(rs)) for rs in tasks.values()], conf)[0],
        cheat_delta=deltas["cheated"], abstain_delta=deltas["abstained"], delta_tasks=len(paired),
        canary_pass_rate=ratio(sum(bool(r.canary) for r in with_canaries), len(with_canaries), conf)
        if with_canaries else None,
        by_reason=dict(sorted(by.items())),
    )
