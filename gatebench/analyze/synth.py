"""Synthetic ledgers whose true effects are known by construction.

Used by the calibration script, the 100k-record benchmark and the tests. The generative model is
the one the bench assumes (SPEC.md "## analyze", "Calibration"):

- The suite is a sample of tasks from a population. Task t has a logit difficulty
  b_t ~ N(mu, sigma); a run's state at its FIRST stop passes the oracle with p_t = expit(b_t),
  whatever the config (an agent cannot see a gate before it fires).
- A config is an ordered list of gates; at each stop, gate g blocks a failing state with
  probability `recall` and a passing one with probability `false_block`, independently; once one
  blocks, the later gates are skipped (short circuit).
- After a block the agent works again: a failing state becomes passing with probability
  fix_ct = expit(fix_logit + u_ct), u_ct ~ N(0, fix_sd) (gates help more on some tasks than
  others); a passing state breaks with probability `harm`; with probability `timeout` the run
  hits its time cap instead (status "timeout", not solved).
- After `budget` blocks the next blocking stop is a give-up. The final oracle is the state at the
  last stop.

True values are population expectations (integrals over b and u), not averages over the tasks a
matrix happened to draw: every simulated matrix draws its own tasks.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from statistics import NormalDist


def expit(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class SynthGate:
    name: str
    kind: str
    recall: float  # P(block | oracle failing)
    false_block: float  # P(block | oracle passing)
    cost_usd: float = 0.0  # per verdict (reviewers)


@dataclass(frozen=True)
class SynthConfig:
    name: str
    gates: tuple[SynthGate, ...] = ()
    fix_logit: float = 0.0
    fix_sd: float = 0.0
    harm: float = 0.0
    timeout: float = 0.0
    budget: int = 3


@dataclass(frozen=True)
class Population:
    mu: float = 0.0
    sigma: float = 1.5


@dataclass
class Matrix:
    records: list[dict]
    tasks: list[str]
    difficulty: dict[str, float] = field(default_factory=dict)  # task -> logit b_t
    fix: dict[tuple[str, str], float] = field(default_factory=dict)  # (config, task) -> P(fix after a block)


# --- Exact per-task outcome probabilities -------------------------------------------------------


def _block_probs(cfg: SynthConfig) -> tuple[float, float]:
    miss_fail = math.prod(1.0 - g.recall for g in cfg.gates)
    miss_pass = math.prod(1.0 - g.false_block for g in cfg.gates)
    return 1.0 - miss_fail, 1.0 - miss_pass


def final_pass_prob(cfg: SynthConfig, p_first: float, fix: float) -> float:
    """P(final oracle passes and the run was not cut by a timeout) for one task."""
    if not cfg.gates:
        return p_first
    bf, bp = _block_probs(cfg)
    pass_, fail_ = p_first, 1.0 - p_first
    done = 0.0
    for _ in range(cfg.budget):
        # Stops that are allowed end the run in their state.
        done += pass_ * (1.0 - bp)
        pass_blocked, fail_blocked = pass_ * bp, fail_ * bf
        go_on = 1.0 - cfg.timeout
        pass_ = go_on * (pass_blocked * (1.0 - cfg.harm) + fail_blocked * fix)
        fail_ = go_on * (pass_blocked * cfg.harm + fail_blocked * (1.0 - fix))
    # Budget spent: the next stop ends the run whatever the gates say (allow or give_up).
    return done + pass_


def _simpson_normal(f, mu: float, sd: float, n: int = 401) -> float:
    if sd <= 0:
        return f(mu)
    nd = NormalDist(mu, sd)
    a, h = mu - 9 * sd, 18 * sd / (n - 1)
    total = 0.0
    for i in range(n):
        x = a + i * h
        w = 1 if i in (0, n - 1) else (4 if i % 2 else 2)
        total += w * f(x) * nd.pdf(x)
    return total * h / 3


def true_first_stop_rate(pop: Population) -> float:
    return _simpson_normal(expit, pop.mu, pop.sigma)


def true_solve_rate(cfg: SynthConfig, pop: Population) -> float:
    """Population expectation of a config's solve rate (equal weight per task)."""
    if not cfg.gates:
        return true_first_stop_rate(pop)

    def over_fix(b: float) -> float:
        p = expit(b)
        return _simpson_normal(lambda u: final_pass_prob(cfg, p, expit(cfg.fix_logit + u)), 0.0, cfg.fix_sd, 101)

    return _simpson_normal(over_fix, pop.mu, pop.sigma, 201)


def true_delta(cfg: SynthConfig, baseline: SynthConfig, pop: Population) -> float:
    return true_solve_rate(cfg, pop) - true_solve_rate(baseline, pop)


# --- Records ------------------------------------------------------------------------------------


_VERSIONS = {"gatebench": "0.1.0", "cli_version": "2.1.332", "model": "synth", "python": "3.11"}


def _run(cfg: SynthConfig, p_first: float, fix: float, rng: random.Random) -> dict:
    """One run's outcome and stop log, drawn from the model above."""
    state = rng.random() < p_first
    first = state
    stops: list[dict] = []
    blocks = 0
    status = "ok"
    give_up = False
    reviewer_cost = 0.0
    while True:
        verdicts = []
        blocked = False
        for g in cfg.gates:
            if blocked:
                verdicts.append({"name": g.name, "kind": g.kind, "verdict": "skipped", "seconds": 0.0, "cost_usd": 0.0})
                continue
            hit = rng.random() < (g.false_block if state else g.recall)
            reviewer_cost += g.cost_usd
            verdicts.append(
                {"name": g.name, "kind": g.kind, "verdict": "block" if hit else "pass", "seconds": 0.5, "cost_usd": g.cost_usd}
            )
            blocked = blocked or hit
        if blocked and blocks >= cfg.budget:
            decision = "give_up"
            give_up = True
        else:
            decision = "block" if blocked else "allow"
        stops.append(
            {"attempt": len(stops) + 1, "decision": decision, "gates": verdicts, "oracle_solved": state,
             "files_changed": 1, "seconds": 1.0}
        )
        if decision != "block":
            break
        blocks += 1
        if rng.random() < cfg.timeout:
            status = "timeout"
            break
        state = (rng.random() >= cfg.harm) if state else (rng.random() < fix)
    solved = state and status == "ok"
    return {"first": first, "solved": solved, "status": status, "stops": stops, "blocks": blocks,
            "give_up": give_up, "reviewer_cost": reviewer_cost}


def make_record(run_id: str, cfg_name: str, task: str, rep: int, outcome: dict, rng: random.Random) -> dict:
    turns = 6 + 4 * outcome["blocks"] + rng.randrange(6)
    inp = 20000 + 3000 * turns
    cost = round(0.002 * turns + 1e-6 * inp, 6)
    cell = f"{cfg_name}/{task}/{rep}"
    base = f"cells/{cfg_name}/{task}/{rep}"  # relative to the run folder, as the ledger sits there
    return {
        "v": 1, "run_id": run_id, "cell_id": cell, "config": cfg_name, "task": task, "rep": rep,
        "worker": "synth", "attempt_no": 1, "status": outcome["status"], "error": None,
        "solved": outcome["solved"], "first_stop_solved": outcome["first"], "stops": outcome["stops"],
        "oracle": {"solved": outcome["solved"], "passed": 5 if outcome["solved"] else 3,
                   "failed": 0 if outcome["solved"] else 2},
        "blocks": outcome["blocks"], "give_up": outcome["give_up"], "tamper": False, "leak": False,
        "turns": turns, "api_requests": turns, "tool_calls": {"Edit": turns // 2, "Bash": turns // 3},
        "tool_errors": 0, "api_errors": 0,
        "usage": {"input_tokens": inp, "output_tokens": 400 * turns, "cache_read_input_tokens": 15000 * turns,
                  "cache_creation_input_tokens": 2000},
        "cost_usd": cost, "reviewer_cost_usd": round(outcome["reviewer_cost"], 6),
        "wall_s": round(20.0 + 8.0 * turns + rng.random() * 10, 3),
        "versions": dict(_VERSIONS),
        "sim": {"policy": "synth", "seed": rng.randrange(2**31), "first_state": "reference" if outcome["first"] else "inject:plausible"},
        "paths": {"events": f"{base}/events.jsonl", "transcript": f"{base}/transcript.jsonl",
                  "stream": f"{base}/stream.jsonl", "work": f"{base}/work"},
    }


def infra_error_record(run_id: str, cfg_name: str, task: str, rep: int) -> dict:
    return {
        "v": 1, "run_id": run_id, "cell_id": f"{cfg_name}/{task}/{rep}", "config": cfg_name, "task": task,
        "rep": rep, "worker": "synth", "attempt_no": 1, "status": "infra_error", "error": "synthetic infra error",
        "solved": False, "versions": dict(_VERSIONS),
    }


def generate(
    configs: list[SynthConfig],
    tasks: int,
    reps: int,
    seed: int,
    pop: Population | None = None,
    run_id: str = "synth",
    infra_error: float = 0.0,
) -> Matrix:
    """One matrix: `tasks` tasks drawn from the population, every config x task x rep."""
    pop = pop or Population()
    rng = random.Random(seed)
    names = [f"T{i + 1}" for i in range(tasks)]
    difficulty = {t: rng.gauss(pop.mu, pop.sigma) for t in names}
    fix = {(c.name, t): expit(c.fix_logit + rng.gauss(0.0, c.fix_sd)) if c.fix_sd > 0 else expit(c.fix_logit)
           for c in configs for t in names}
    records = []
    for c in configs:
        for t in names:
            p_first = expit(difficulty[t])
            for r in range(reps):
                retried = bool(infra_error) and rng.random() < infra_error
                if retried:
                    # The cell fails for infrastructure and the matrix retries it (attempt 2 is scored).
                    records.append(infra_error_record(run_id, c.name, t, r))
                rec = make_record(run_id, c.name, t, r, _run(c, p_first, fix[(c.name, t)], rng), rng)
                rec["attempt_no"] = 2 if retried else 1
                records.append(rec)
    return Matrix(records=records, tasks=names, difficulty=difficulty, fix=fix)


def fixed_task_delta(m: Matrix, cfg: SynthConfig, baseline: SynthConfig) -> float:
    """The Δ of the tasks this matrix drew (not the population's): mean of their exact per-task Δ."""
    total = 0.0
    for t in m.tasks:
        p = expit(m.difficulty[t])
        total += final_pass_prob(cfg, p, m.fix[(cfg.name, t)]) - final_pass_prob(baseline, p, m.fix[(baseline.name, t)])
    return total / len(m.tasks)


def write_ledger(path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


# A default pair used by tests and scripts: a no-gate baseline and a test gate with a reviewer.
BASELINE = SynthConfig("none")
GATED = SynthConfig(
    "tests+adv",
    gates=(SynthGate("tests", "tests", recall=0.6, false_block=0.05),
           SynthGate("adv", "review", recall=0.5, false_block=0.15, cost_usd=0.04)),
    fix_logit=logit(0.45), fix_sd=1.0, harm=0.08, budget=3,
)
