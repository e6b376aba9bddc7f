"""claude plugin eval's own scores, kept: the weighted partial score of every run and each grader's verdict
(SPEC.md section 17, "Plugin-eval scores"). Per config: the mean score and pass rate over tasks, each grader's
pass rate, with the same task-cluster bootstrap as Δ (none below MIN_BOOTSTRAP_TASKS); and against the
baseline (or the suite's own `without` arm) the paired Δ on score and on pass rate.
"""

from __future__ import annotations

from fractions import Fraction

from gatebench.analyze.load import Run
from gatebench.analyze.metrics import bootstrap
from gatebench.models.analysis import GraderScore, ScoreStats

WITHOUT = "without"  # claude plugin eval's no-plugin arm (analyze/plugineval.py)


def _task_means(runs: list[Run], value) -> dict[str, Fraction]:
    by: dict[str, list[Fraction]] = {}
    for r in runs:
        by.setdefault(r.task, []).append(value(r))
    return {t: sum(v, Fraction(0)) / len(v) for t, v in sorted(by.items())}


def _score(r: Run) -> Fraction:
    return Fraction(r.score or 0.0).limit_denominator(10_000)


def _passed(r: Run) -> Fraction:
    return Fraction(int((r.score or 0.0) >= 1.0))


def _paired(a: dict[str, Fraction], b: dict[str, Fraction]) -> list[Fraction]:
    return [a[t] - b[t] for t in sorted(a.keys() & b.keys())]


def grader_scores(config: str, runs: list[Run], settings: dict) -> list[GraderScore]:
    names: dict[str, float] = {}
    for r in runs:
        for name, _verdict, weight in r.graders:
            names.setdefault(name, weight)
    out = []
    for name, weight in names.items():
        having = [r for r in runs if any(g[0] == name for g in r.graders)]
        per_task = _task_means(having, lambda r, n=name: Fraction(int(next(g[1] for g in r.graders if g[0] == n))))
        out.append(GraderScore(grader=name, weight=weight, runs=len(having),
                               rate=bootstrap(list(per_task.values()), f"grader:{config}:{name}", settings)))
    return out


def score_stats(scored: list[Run], baseline: str | None, settings: dict) -> list[ScoreStats]:
    """One row per config that has claude plugin eval runs with a score."""
    by: dict[str, list[Run]] = {}
    for r in scored:
        if r.score is not None and r.variant == "normal":
            by.setdefault(r.config, []).append(r)
    out = []
    for config, runs in sorted(by.items()):
        scores, passes = _task_means(runs, _score), _task_means(runs, _passed)
        against = baseline if baseline in by and baseline != config else (WITHOUT if WITHOUT in by and
                                                                          config != WITHOUT else None)
        row = ScoreStats(config=config, tasks=len(scores), runs=len(runs),
                         score=bootstrap(list(scores.values()), f"score:{config}", settings),
                         pass_rate=bootstrap(list(passes.values()), f"pass:{config}", settings),
                         graders=grader_scores(config, runs, settings), against=against)
        if against is not None:
            other = by[against]
            ds = _paired(scores, _task_means(other, _score))
            dp = _paired(passes, _task_means(other, _passed))
            row.delta_score = bootstrap(ds, f"dscore:{config}:{against}", settings) if ds else None
            row.delta_pass = bootstrap(dp, f"dpass:{config}:{against}", settings) if dp else None
        out.append(row)
    return out
