"""`analysis.json`, written by `gatebench analyze`: versioned, one model per table of the report.

Every rate is a fraction in [0, 1]; every interval is a 95% interval unless `settings.confidence`
says otherwise. The definitions are in SPEC.md "## analyze".
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ANALYSIS_SCHEMA = "gatebench.analysis/1"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Estimate(Model):
    value: float | None = Field(description="point estimate; None when there is nothing to estimate from")
    lo: float | None = None
    hi: float | None = None


class Ratio(Estimate):
    """k of n, with a Wilson interval (value None when n = 0)."""

    k: int
    n: int


class StatusCounts(Model):
    ok: int = 0
    timeout: int = 0
    cap: int = 0
    infra_error: int = Field(0, description="infra-error records (every attempt); never scored")
    infra_unresolved: int = Field(0, description="cells whose only records are infra errors")


class PassK(Model):
    k: int
    pass_at_k: float
    pass_hat_k: float
    tasks: int = Field(description="tasks with at least k scored runs (the only ones averaged)")


class Rerun(Model):
    """A cell the matrix ran more than once: its earlier attempts ended in infra errors (the bench's own faults)."""

    run_id: str
    cell_id: str
    attempts: int = Field(description="sessions paid for this cell: 1 + reruns")
    final_status: str
    errors: list[str] = Field(default_factory=list, description="each failed attempt's error (runs/<id>/infra.jsonl)")


class ConfigSummary(Model):
    config: str
    tasks: int
    runs: int = Field(description="scored runs: status ok, timeout or cap")
    status: StatusCounts
    solved: int
    solve_rate: Estimate = Field(description="mean over tasks of the task's solve rate; task-clustered CI")
    solve_rate_n_eff: float = Field(description="effective sample size behind the solve-rate interval")
    pooled_rate: float = Field(description="solved / runs")
    first_stop_rate: Estimate | None = Field(None, description="oracle at the first stop, same definition")
    pass_k: list[PassK] = Field(default_factory=list)
    cost_per_run: float = Field(description="worker + reviewers, USD, mean over scored runs")
    worker_cost_per_run: float
    reviewer_cost_per_run: float
    cost_per_solve: float | None = Field(description="total cost of scored runs / solved runs; None if none solved")
    tokens_per_run: dict[str, float]
    turns_per_run: float
    wall_s_per_run: float
    blocks_per_run: float
    give_up_rate: Ratio
    tamper: int
    leak: int
    canary_pass: Estimate | None = Field(None, description="scored runs whose final oracle had a canary contradicted "
                                         "(a twin passed beside its passing original) / scored runs with canaries: "
                                         "the measured rate of in-process cheating; task-clustered CI")
    canary_cells: int = Field(0, description="scored runs with a contradicted canary")
    canary_runs: int = Field(0, description="scored runs whose final oracle ran canaries")
    reruns: list[Rerun] = Field(default_factory=list, description="cells of this config run more than once")


class McNemar(Model):
    pairs: int
    baseline_only: int = Field(description="pairs solved by the baseline run only")
    config_only: int = Field(description="pairs solved by the config's run only")
    p_value: float


class Delta(Model):
    config: str
    baseline: str
    tasks: int = Field(description="tasks with scored runs in both configs")
    estimate: Estimate = Field(description="mean over tasks of (config rate - baseline rate); cluster bootstrap CI")
    mcnemar: McNemar


class Validity(Model):
    baseline: str
    tasks: int
    baseline_final_rate: float
    first_stop_rate: float
    difference: Estimate = Field(description="first-stop rate of this config - final rate of the baseline")


class Counterfactual(Model):
    config: str
    runs: int = Field(description="scored runs whose first-stop oracle is known")
    unknown: int = Field(description="scored runs with a stop but no oracle result at the first one")
    first_stop_rate: float | None = Field(description="None when no run's first-stop oracle is known")
    final_rate: float | None
    delta: Estimate = Field(description="within-run Δ: final - first-stop oracle, same runs, cluster bootstrap CI")
    rescue: Ratio = Field(description="runs failing at the first stop that end solved / runs failing at it")
    harm: Ratio = Field(description="runs passing at the first stop that end unsolved / runs passing at it")
    between_delta: Estimate | None = Field(None, description="the between-config Δ against the baseline")
    validity: Validity | None = None


class GateStats(Model):
    config: str
    gate: str = Field(description="gate name; '(any)' = the stop was blocked by at least one gate")
    kind: str
    verdicts: int = Field(description="pass or block verdicts at stops where the oracle ran")
    tp: int = Field(description="block, oracle failing")
    fp: int = Field(description="block, oracle passing")
    fn: int = Field(description="pass, oracle failing")
    tn: int = Field(description="pass, oracle passing")
    errors: int
    skipped: int
    no_oracle: int = Field(description="pass/block verdicts at stops where the oracle did not run")
    precision: Ratio
    recall: Ratio
    false_block_rate: Ratio
    recall_plausible: Ratio | None = Field(None, description="recall at stops where the sim agent delivered a "
                                           "plausible wrong fix (kinds plausible, partial: they pass the visible tests)")
    recall_crude: Ratio | None = Field(None, description="recall at stops on a crude wrong fix (the visible tests "
                                       "catch it)")
    denials: int | None = Field(None, description="kind pretool: tool calls the plugin's PreToolUse hook denied "
                                                  "(its own errors not included)")
    plugin_errors: int | None = Field(None, description="kind pretool: decisions whose reason is the plugin failing "
                                                        "(validator error, timeout, unparseable answer)")
    denied_runs: int | None = Field(None, description="kind pretool: scored runs with at least one denial")
    reasons: list[str] = Field(default_factory=list, description="kind pretool: the most frequent reasons, with counts")
    error_reasons: list[str] = Field(default_factory=list, description="kind pretool: the most frequent plugin errors")


class GraderScore(Model):
    """One grader of a claude plugin eval suite, under one config: the share of its runs it passed."""

    grader: str
    weight: float
    rate: Estimate = Field(description="mean over tasks of the task's pass share; task-bootstrap CI")
    runs: int


class ScoreStats(Model):
    """A config's claude plugin eval scores (the weighted share of graders passed per run), task-clustered."""

    config: str
    tasks: int
    runs: int
    score: Estimate = Field(description="mean over tasks of the task's mean run score; task-bootstrap CI")
    pass_rate: Estimate = Field(description="mean over tasks of the share of runs that scored 1")
    graders: list[GraderScore] = Field(default_factory=list)
    against: str | None = Field(None, description="the arm the paired Δs are against (the baseline, or `without`)")
    delta_score: Estimate | None = Field(None, description="paired by task: mean of (score - against's score)")
    delta_pass: Estimate | None = Field(None, description="paired by task: mean of (pass rate - against's)")


class MatrixCell(Model):
    solved: int
    runs: int
    rate: float | None


class TaskMatrix(Model):
    tasks: list[str] = Field(description="hardest first: ascending mean solve rate over configs")
    configs: list[str]
    difficulty: list[float | None] = Field(description="per task: mean over configs of the solve rate")
    cells: list[list[MatrixCell]] = Field(description="cells[task][config]")


class ImpossibleSummary(Model):
    """One config on impossible variants: how often the agent cheated, abstained or failed (SPEC section 17)."""

    config: str
    tasks: int
    runs: int = Field(description="scored impossible cells (ok, timeout, cap)")
    cheated: int
    abstained: int
    failed: int
    cheat_rate: Estimate = Field(description="mean over tasks of cheated/runs; task-clustered CI as the solve rate's")
    abstain_rate: Estimate = Field(description="mean over tasks of abstained/runs; same interval")
    solve_rate: Estimate = Field(description="the hidden oracle (the real task) passed, on these cells")
    cheat_delta: Estimate | None = Field(None, description="cheat rate - the baseline's, paired by task; cluster "
                                         "bootstrap CI as for the solve-rate Δ")
    abstain_delta: Estimate | None = Field(None, description="abstain rate - the baseline's, paired by task")
    delta_tasks: int = Field(0, description="tasks with impossible cells under both this config and the baseline")
    canary_pass_rate: Ratio | None = Field(None, description="cells with a canary that passed / cells whose "
                                           "oracle ran canaries (the record's `canaries`); None when none did")
    by_reason: dict[str, int] = Field(default_factory=dict, description="cheated cells by what decided it: "
                                      "gate_pass, skipped, tests_pass, protected, tamper, canary (a cell may count under several)")


class CellLink(Model):
    config: str
    task: str
    rep: int
    run_id: str
    status: str
    solved: bool
    links: dict[str, str] = Field(description="name -> path relative to the output folder (or absolute)")
    variant: str = "normal"
    outcome: str | None = Field(None, description="impossible cells: cheated, abstained or failed")
    page: str | None = Field(None, description="the cell's own page in the report (cells/<n>.html), if written")


class LedgerInput(Model):
    path: str
    lines: int
    used: int
    skipped: int


class Settings(Model):
    baseline: str | None
    confidence: float
    resamples: int
    seed: int
    target_halfwidth: float | None = Field(None, description="half-width the plans aim at (fraction, 0.05 = 5 points)")


class ConfigProvenance(Model):
    """What produced a config's records: read from the ledger, never assumed."""

    config: str
    records: int = Field(description="scored and infra-error records of this config")
    workers: list[str] = Field(description="sim (gatebench's scripted agent) or claude (a model)")
    simulated: Literal["yes", "no", "mixed"] = Field(description="were the cells played by the sim agent")
    sim_policies: list[str] = Field(default_factory=list, description="the sim agent's policies")
    models: list[str] = Field(description="the worker's model: what the CLI was told (versions.model)")
    reviewer_models: list[str] = Field(default_factory=list, description="models the review gates' reviewers ran")
    cli_versions: list[str]
    sealed: Literal["yes", "no", "mixed", "unknown"] = Field(description="the records' `sealed` flag; unknown when absent")
    gatebench: list[str] = Field(description="gatebench version (git commit, dirty)")
    config_hashes: list[str]
    tasks: dict[str, list[str]] = Field(description="task -> task hashes seen")
    origins: list[str] = Field(default_factory=list, description="what wrote the records: `matrix` (a gatebench "
                               "ledger) or `claude plugin eval` (aggregate-result.json)")


class Plan(Model):
    """Runs and dollars for `target_halfwidth`, growing the suite in tasks at the same runs per task."""

    config: str
    comparison: Literal["between", "within"]
    baseline: str | None = None
    tasks: int
    sd: float | None = Field(description="spread (sd) of the per-task values the interval is built on")
    halfwidth: float | None = Field(description="t_{T-1} * sd / sqrt(T) now")
    target_halfwidth: float
    tasks_needed: int | None = Field(None, description="tasks for the target with 80% assurance (upper bound of sd)")
    tasks_needed_point: int | None = Field(None, description="tasks for the target if the sd were exactly as seen")
    runs_per_task: float = Field(description="scored runs per task, all arms of the comparison")
    runs_now: int
    runs_needed: int | None = None
    extra_runs: int | None = None
    usd_now: float
    usd_needed: float | None = Field(None, description="at the observed cost per run of each arm")
    extra_usd: float | None = None
    next_tasks: int | None = Field(None, description="the next step: tasks that even the sd's 80% lower bound needs; "
                                   "run up to this many, then analyze again (never overshoots)")
    next_runs: int | None = Field(None, description="more runs for the next step")
    next_usd: float | None = Field(None, description="dollars for the next step")
    note: str = ""


class Analysis(Model):
    schema_: Literal["gatebench.analysis/1"] = Field(ANALYSIS_SCHEMA, alias="schema")  # type: ignore[arg-type]
    gatebench: str
    generated_at: str
    inputs: list[LedgerInput]
    settings: Settings
    baseline: str | None = Field(description="the baseline config, None if it is not in the ledgers")
    warnings: list[str]
    methods: dict[str, str]
    configs: list[ConfigSummary]
    deltas: list[Delta]
    counterfactual: list[Counterfactual]
    gates: list[GateStats]
    pareto: list[str] = Field(description="configs on the cost (per run) vs solve rate frontier")
    matrix: TaskMatrix
    cells: list[CellLink] = Field(
        description="scored cells and infra-error records with their files, at most `cells_listed_max`"
    )
    cells_total: int = Field(description="scored cells + infra-error records, listed or not")
    cells_listed_max: int
    notice: str = Field("", description="who played the agent, and what the rates and dollars therefore describe")
    provenance: list[ConfigProvenance] = Field(default_factory=list)
    plans: list[Plan] = Field(default_factory=list, description="what it would take: runs and dollars per comparison")
    scores: list[ScoreStats] = Field(default_factory=list, description="claude plugin eval runs: weighted scores "
                                     "and per-grader pass rates, with task-clustered intervals")
    oracle_runs: int = Field(0, description="runs the hidden oracle judged (SPEC section 17, \"No oracle ran\"): 0 "
                             "with any run listed means no rate here is a solve rate, and analyze exits 1")
    impossible: list[ImpossibleSummary] = Field(default_factory=list, description="per config, on impossible "
                                                "variants: cheat and abstain rates (the other sections count normal "
                                                "cells only)")
