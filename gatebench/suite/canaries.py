"""The proof of a task's canaries: every twin fails on the reference, beside originals that still pass, and on
the base and every injection (SPEC section 13): a twin that passes is a finding, so honest wrong code must fail
it too. Every run of the proof lays every option of each site (`twins: None`), so the k twins any later run
draws are among those proven. A canary is never assumed to
work: one that fails the proof is named, with the fix (`canaries: {exclude: [...]}` in task.yaml).

Plain data in, plain data out: `prove` reads oracle results (run_binding with `PROOF_RUNS` options) and
returns what holds; selftest and task import run the oracles.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gatebench.common.defaults import GUESS_ODDS
from gatebench.oracle import canaries as oracle_canaries
from gatebench.oracle.canaries import function_id

# The reference is judged three times, each run with fresh names: every twin before its original (a twin
# whose side effect breaks the original shows only then), every twin after, and at random. All twins, no cap.
PROOF_RUNS = ({"cap": None, "twins": None, "place": "before"}, {"cap": None, "twins": None, "place": "after"},
              {"cap": None, "twins": None, "place": "random"})
OTHER_RUN = {"cap": None, "twins": None, "place": "before"}  # the base and each injection


@dataclass
class Proof:
    """What `prove` found for one task: `failures` names each canary that must not run (id -> why)."""

    twinned: list[str] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    excluded: list[str] = field(default_factory=list)
    untwinned: dict[str, str] = field(default_factory=dict)  # id -> why it has no twin (not an exclusion)
    failures: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # runs that could not judge (an error)
    states: int = 0
    blind: float | None = None  # the odds of a blind guess in a run as the oracle lays it (`guess_odds`)
    adaptive: dict[str, float] = field(default_factory=dict)  # end state -> an adaptive guesser's odds there

    def line(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items(), key=lambda x: -x[1])) or "none"
        extra = f", {len(self.untwinned)} without a site" if self.untwinned else ""
        return (f"{len(self.twinned)} canaries ({kinds}), {len(self.excluded)} excluded{extra}; "
                f"{len(self.failures)} failing the proof over {self.states} end states{self.odds_text()}")

    def odds_text(self) -> str:
        if self.blind is None:
            return ""
        worst = max(self.adaptive.items(), key=lambda x: x[1], default=None)
        adaptive = f", adaptive 1 in {1 / worst[1]:,.0f} ({worst[0]})" if worst else ""
        # Each against the bound by name: an adaptive guesser's odds are above it on most tasks (SPEC 13a).
        met = [f"{name} {'met' if odds <= GUESS_ODDS else 'NOT met'}"
               for name, odds in (("blind", self.blind), *((("adaptive", worst[1]),) if worst else ()))]
        return (f"; guess odds blind 1 in {1 / self.blind:,.0f}{adaptive} "
                f"(bound 1 in {1 / GUESS_ODDS:,.0f}: {', '.join(met)})")


def _place(i: int) -> str:
    return str(PROOF_RUNS[i]["place"]) if i < len(PROOF_RUNS) else "random"


def prove(reference: list[dict], others: dict[str, dict], excluded: list[str]) -> Proof:
    """`reference`: oracle results of the reference under PROOF_RUNS; `others`: end state -> its result under
    OTHER_RUN (the base, each injection); `excluded`: the task's `canaries.exclude`."""
    p = Proof(excluded=sorted(map(function_id, excluded)), states=1 + len(others))
    seen: set[str] = set()
    for i, r in enumerate(reference):
        c = r.get("canaries") or {}
        if r.get("error"):
            p.problems.append(f"reference run {i + 1}: {r['error']}")
            continue
        seen.update(c.get("twinned") or [])
        for k, n in (c.get("kinds") or {}).items():
            p.kinds[k] = max(p.kinds.get(k, 0), n)
        for tid in c.get("passed") or []:
            p.failures.setdefault(tid, f"its twin passed on the reference (run {i + 1}, twins {_place(i)}): "
                                       "it does not contradict the original")
        twinned = set(c.get("twinned") or [])
        for failing in r.get("failing") or []:
            tid = function_id(failing.removesuffix(" (not run)"))
            if tid in twinned:
                p.failures.setdefault(tid, f"the original fails on the reference beside its twin (run {i + 1}, twins "
                                           f"{_place(i)}): the twin changes state the original depends on")
            else:
                p.failures.setdefault(tid, f"fails on the reference beside the canaries (run {i + 1}, twins "
                                           f"{_place(i)}) with no twin of its own: another test's twin breaks it")
        for tid, why in (c.get("skipped") or {}).items():
            if tid not in p.excluded and "not drawn" not in why:
                p.untwinned[tid] = why
    for state, r in sorted(others.items()):
        c = r.get("canaries") or {}
        both = set(c.get("contradicted") or [])
        for tid in c.get("passed") or []:
            p.failures.setdefault(tid, f"a twin passes beside its passing original on {state}: no implementation "
                                       "should pass both" if tid in both else
                                       f"a twin passes on {state}: honest wrong code would be flagged")
    p.twinned = sorted(seen)
    return p


def exclusion_hint(failures: dict[str, str], recipe: str | None = None) -> str:
    """The fix: a real-suite task's task.yaml is laid again from its recipe, so the exclusion goes there."""
    ids = ", ".join(sorted(failures))
    if recipe:
        return f"add to {recipe.split('@')[0]}: canaries_exclude: [{ids}]"
    return "add to task.yaml: canaries: {exclude: [" + ids + "]}"


def lay_plan(binding: dict, root: Path, seed: int | None = None) -> tuple[oracle_canaries.Plan, Path]:
    """The canaries of one oracle run of a task as it lays them (its binding's options, k twins), laid into a copy
    of the hidden folder at `root` (not there yet), nothing run: the plan, and the folder of the rendered files."""
    dest = binding["dest"] if (binding.get("layout") or "dest") != "original" else ""
    hidden = root / dest if dest else root
    shutil.copytree(binding["hidden_dir"], hidden)
    opts = {**(binding.get("canaries") or {}), "fail_to_pass": binding.get("fail_to_pass") or [], "seed": seed}
    return oracle_canaries.lay(str(root), binding["hidden_dir"], dest, binding["expected"], opts), hidden


def planned(binding: dict, seed: int | None = None) -> oracle_canaries.Plan:
    """`lay_plan` into a throw-away folder: the plan alone."""
    with tempfile.TemporaryDirectory(prefix="gatebench-plan-") as tmp:
        return lay_plan(binding, Path(tmp, "copy"), seed)[0]


# Seeded plans a task's odds are averaged over where its runs sample their rest (`samples_rest`): R67's one-plan
# figure ranged from 1 in 26 to 1 in 1,123,668 over 40 plans, so one plan met or missed the bound by luck. Each plan
# costs 50-400 ms (the hidden modules read and printed, nothing run).
DRAWS = 16


def run_plans(binding: dict, draws: int = DRAWS) -> list[oracle_canaries.Plan]:
    """The plans of `draws` seeded oracle runs of a task; one where no run samples (every run's groups are alike)."""
    opts = {**(binding.get("canaries") or {}), "fail_to_pass": binding.get("fail_to_pass") or []}
    n = draws if oracle_canaries.samples_rest(binding["expected"], opts) else 1
    return [planned(binding, seed=s) for s in range(n)]


def blind_odds(plans: list[oracle_canaries.Plan]) -> float:
    """A blind guess's chance of being right in one run: its odds averaged over the runs' plans."""
    return statistics.fmean(oracle_canaries.guess_odds(p) for p in plans)


def adaptive_odds(plan: oracle_canaries.Plan, failing: list[str]) -> float:
    """An adaptive guesser's odds on an end state that fails `failing`: it runs every group's members first and
    keeps the one that passes, so it guesses only in the twinned groups whose original fails there (every
    member then fails); a failing test with no twin it voids for free (odds 1 there)."""
    fails = {function_id(t.removesuffix(" (not run)")) for t in failing}
    return oracle_canaries.guess_odds(plan, only=sorted(fails))


def odds(p: Proof, binding: dict, failing_by_state: dict[str, list[str]]) -> None:
    """Fill the proof's guess odds, each averaged over the runs' plans: blind, and adaptive over each end state
    that fails an expected test."""
    plans = run_plans(binding)
    p.blind = blind_odds(plans)
    p.adaptive = {state: statistics.fmean(adaptive_odds(x, f) for x in plans)
                  for state, f in failing_by_state.items() if f}
