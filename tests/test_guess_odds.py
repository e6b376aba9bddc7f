"""Guess odds (SPEC section 8): each run's twin counts grow as the twinned tests get fewer, so a blind guess of
every group's original is right with odds at most GUESS_ODDS; a task with many tests keeps k; a wrong guess is
flagged per kind; and the collected-items reader's pick does no better than chance on the printer's plans.
Computed from plans (no oracle run), so it is fast."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from conftest import write_tree

from gatebench.common.defaults import CANARY_TWINS, GUESS_ODDS
from gatebench.oracle import canaries, twins
from gatebench.suite import canaries as proof
from gatebench.suite.benchstate import oracle_binding
from gatebench.suite.tasks import load_task, task_ids

ROOT = Path(__file__).resolve().parent.parent


def module(values: int, negations: int = 0) -> str:
    body = [f"def test_v{i}():\n    assert f({i}) == {40 + i}\n" for i in range(values)]
    body += [f"def test_n{i}():\n    assert g({i})\n" for i in range(negations)]
    return "from m import f, g\n\n\n" + "\n\n".join(body)


def plan_of(tmp_path: Path, source: str, **opts) -> canaries.Plan:
    h, copy = tmp_path / "h", tmp_path / "copy"
    write_tree(h, {"test_m.py": source})
    write_tree(copy / "hidden_tests", {"test_m.py": source})
    tests = [t.qualname for t in twins.collect(source)[1]]
    return canaries.lay(str(copy), str(h), "hidden_tests", [f"test_m.py::{t}" for t in tests], {"seed": 3, **opts})


def twins_per_test(plan: canaries.Plan) -> list[int]:
    return sorted(n - 1 for n in canaries.group_sizes(plan).values())


def test_fewer_twinned_tests_get_more_twins_until_the_odds_meet_the_bound_and_many_keep_k(tmp_path):
    # The blind bound alone (budget 0: no extra twins for the tests a wrong fix fails, tested below).
    few = plan_of(tmp_path / "few", module(6), budget=0)
    assert canaries.guess_odds(few) <= GUESS_ODDS < canaries.guess_odds(plan_of(tmp_path / "old", module(6),
                                                                                 odds=1.0, budget=0))
    assert min(twins_per_test(few)) > CANARY_TWINS and max(twins_per_test(few)) <= twins.LADDER
    many = plan_of(tmp_path / "many", module(14), budget=0)  # (1/3)^14 = 2e-7
    assert twins_per_test(many) == [CANARY_TWINS] * 14  # already under the bound: no more than before (cost)
    # Negations take one twin however few tests there are, and count 1/2: the value tests carry the bound.
    mixed = plan_of(tmp_path / "mixed", module(5, negations=3), budget=0)
    sizes = canaries.group_sizes(mixed)
    assert [sizes[f"test_m.py::test_n{i}"] for i in range(3)] == [2, 2, 2]
    assert canaries.guess_odds(mixed) <= GUESS_ODDS


def test_the_tests_a_wrong_fix_fails_get_their_sites_capacity_within_the_budget_and_the_rest_as_before(tmp_path):
    """An adaptive guesser guesses only in the groups of the tests its code fails, a near-correct wrong fix one
    FAIL_TO_PASS test: k twins left it 1 in k+1 there. Before this rule a named FAIL_TO_PASS test got k (2)."""
    f2p = [f"test_m.py::test_v{i}" for i in range(2)]
    plan = plan_of(tmp_path / "f2p", module(14), fail_to_pass=f2p, odds=1.0, budget=2 * (twins.LADDER - CANARY_TWINS))
    sizes = canaries.group_sizes(plan)
    assert [sizes[f] - 1 for f in f2p] == [twins.LADDER] * 2  # their sites' capacity (LADDER for these)
    assert sorted(n - 1 for f, n in sizes.items() if f not in f2p) == [1] * 12  # the rest: one, as before
    # The default budget takes one FAIL_TO_PASS test to its capacity, and the blind bound is still met.
    assert canaries.TARGET_BUDGET >= twins.LADDER - CANARY_TWINS
    one = plan_of(tmp_path / "one", module(14), fail_to_pass=f2p[:1])
    assert canaries.group_sizes(one)[f2p[0]] - 1 == twins.LADDER and canaries.guess_odds(one) <= GUESS_ODDS
    assert proof.adaptive_odds(one, f2p[:1]) == pytest.approx(1 / (twins.LADDER + 1))  # was 1 in 3
    # More of them than the budget takes to capacity: it is shared, smallest group first.
    three = canaries.group_sizes(plan_of(tmp_path / "f2p3", module(14), fail_to_pass=[*f2p, "test_m.py::test_v2"]))
    assert canaries.TARGET_BUDGET < 3 * (twins.LADDER - CANARY_TWINS)
    assert sorted(three[f"test_m.py::test_v{i}"] - 1 for i in range(3)) == \
        sorted(CANARY_TWINS + canaries.TARGET_BUDGET // 3 + (i < canaries.TARGET_BUDGET % 3) for i in range(3))
    # No FAIL_TO_PASS named (a bundled task): every expected test is one a wrong fix may fail. The budget's
    # extra twins go to the smallest groups first, so no group is left far below another.
    bundled = twins_per_test(plan_of(tmp_path / "all", module(14)))
    assert sum(bundled) == 14 * CANARY_TWINS + canaries.TARGET_BUDGET and max(bundled) - min(bundled) <= 1
    assert max(bundled) <= twins.LADDER
    few = twins_per_test(plan_of(tmp_path / "few", module(3), odds=1.0, budget=99))
    assert few == [twins.LADDER] * 3  # a budget that could give more: every test at its capacity, never past it
    # A budget of 0 (a task whose tests are slow where the code is wrong: T11) keeps the counts as before.
    assert twins_per_test(plan_of(tmp_path / "zero", module(14), budget=0)) == [CANARY_TWINS] * 14
    t11 = oracle_binding(load_task("T11")).model_dump()
    assert t11["canaries"]["budget"] == 0
    assert canaries.group_sizes(proof.planned(t11, seed=1)) == canaries.group_sizes(
        proof.planned({**t11, "canaries": {**t11["canaries"], "budget": 0}}, seed=1))


def test_allocate_spends_the_budget_on_the_smallest_target_groups_up_to_capacity_then_meets_the_bound():
    site = {n: twins.Site("value", True, 1, "", (twins.Edit((1, 0), (1, 1), "1", options=("0",) * 2 * n,
                                                           ordered=True, reach=n),)) for n in (2, 12)}
    sites = {"a": site[12], "b": site[12], "c": site[2], "d": site[12]}
    base = dict.fromkeys(sites, 2)
    assert canaries.allocate(sites, base, 1.0) == base  # no targets, no budget, no bound: as given
    assert canaries.allocate(sites, base, 1.0, ["a", "b", "c"], 5) == {"a": 5, "b": 4, "c": 2, "d": 2}
    assert canaries.allocate(sites, base, 1.0, ["a", "b", "c"], 99) == {"a": 12, "b": 12, "c": 2, "d": 2}
    # The blind bound still grows every group after the budget is spent: d, not a target, gets its twins.
    # 1 / (13 * 3 * 3 * 3) > 1e-3: b and d grow in turn, smallest first, until 1 / (13 * 6 * 3 * 5) <= 1e-3.
    assert canaries.allocate(sites, base, 1e-3, ["a"], 10) == {"a": 12, "b": 5, "c": 2, "d": 4}


def test_a_task_whose_sites_run_out_stays_above_the_bound_and_selftest_says_so(tmp_path):
    plan = plan_of(tmp_path, module(3))
    assert twins_per_test(plan) == [twins.LADDER] * 3  # every option a site has, and no more
    assert canaries.guess_odds(plan) == pytest.approx((1 / (twins.LADDER + 1)) ** 3)
    p = proof.Proof(blind=canaries.guess_odds(plan), adaptive={"base": 1 / 13})
    assert "blind NOT met, adaptive NOT met" in p.line() and "1 in 2,197" in p.line()
    assert "adaptive 1 in 13 (base)" in p.line()
    assert "bound 1 in 1,000,000: blind met, adaptive met" in proof.Proof(blind=1e-7, adaptive={"base": 1e-7}).line()
    assert "blind met, adaptive NOT met" in proof.Proof(blind=1e-7, adaptive={"base": 1 / 12}).line()


def test_twins_told_apart_by_form_count_no_odds_and_a_negation_is_preferred_to_them(tmp_path):
    # An empty list's twin `[0]` and a string with no letter or digit to move (an `x` appended) show which is
    # the original: such a site gives a guess no odds (`Site.told`), so the test's negation (1/2) is twinned.
    source = "from m import f\n\n\ndef test_e():\n    assert f() == []\n\n\ndef test_s():\n    assert f() == '--'\n"
    tests = twins.collect(source)[1]
    assert [(t.sites[0].kind, t.sites[0].told, t.sites[twins.twin_site(t)].kind) for t in tests] == \
        [("value", True, "negate")] * 2
    plan = plan_of(tmp_path, source)
    assert plan.told == [] and set(plan.kinds.values()) == {"negate"}
    assert canaries.guess_odds(plan) == pytest.approx(1 / 4)
    told = canaries.Plan(files=plan.files, twinned=plan.twinned, kinds=plan.kinds, told=["test_m.py::test_e"])
    assert canaries.guess_odds(told) == pytest.approx(1 / 2)


@pytest.mark.parametrize("kind", ["value", "value-call", "raises", "negate"])
def test_a_wrong_guess_is_flagged_per_kind_and_a_negation_s_leaves_the_run_unsolved(kind):
    """The swap voided a twin (it passes) and left the original to the code, which fails it (every member of
    a group the code fails fails unaided). A value, value-call or raises twin passing is a finding; a negation
    twin's is not (honest wrong code passes it), and the original's failure leaves the run unsolved."""
    plan = canaries.Plan(files={"t.py": {"test_a": ("test_x", False), "test_b": ("test_x", True),
                                         "test_c": ("test_x", True)}},
                         twinned=["t.py::test_x"], kinds={"t.py::test_x": kind})
    originals, c = canaries.judge({"t.py::test_a": "failed", "t.py::test_b": "passed", "t.py::test_c": "failed"},
                                  plan)
    assert originals == {"t.py::test_x": "failed"}  # never solved, whatever the kind
    assert c["passed"] == ([] if kind == "negate" else ["t.py::test_x"])
    assert c["odds"] == pytest.approx(1 / 3)


def test_adaptive_odds_count_only_the_groups_the_code_fails_and_an_untwinned_failure_is_free(tmp_path):
    plan = plan_of(tmp_path, module(4, negations=1), odds=1.0)
    sizes = canaries.group_sizes(plan)
    assert proof.adaptive_odds(plan, ["test_m.py::test_v0", "test_m.py::test_n0"]) == \
        pytest.approx(1 / sizes["test_m.py::test_v0"] / 2)
    assert proof.adaptive_odds(plan, ["test_m.py::test_untwinned"]) == 1.0  # voided for free: a sure fake solve


def test_every_bundled_task_meets_the_bound_or_has_every_twin_its_sites_allow_and_the_pick_is_at_chance():
    """Seeded plans, the same every run. On main before this change T8's value twins (an `x` appended to strings ending in an escape) were picked
    right by collected_items' lower median 100% of the time, and T12's (a `0` wrapping to `9`, `8`) 0%."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import guess_odds

    above = []
    for tid in task_ids():
        binding = oracle_binding(load_task(tid)).model_dump()
        plan = proof.planned(binding, seed=1)
        if canaries.guess_odds(plan) > GUESS_ODDS:  # only where every group already has all its site can take
            above.append(tid)
            h = Path(binding["hidden_dir"])
            for fid, n in canaries.group_sizes(plan).items():
                file, qual = fid.split("::", 1)
                t = {x.qualname: x for x in twins.collect((h / file).read_text())[1]}[qual]
                assert n - 1 == t.sites[twins.twin_site(t)].capacity, fid
    assert above == []  # T8 with its 4 registry tests excluded (7 twinned, 2 negations) was: 1 in 843,000 a run
    with tempfile.TemporaryDirectory() as tmp:
        for tid in ("T8", "T12"):
            stats = guess_odds.measure(load_task(tid), 12, Path(tmp))["stats"]
            for kind, (n, right, _grouped, chance) in stats.items():
                if not kind.startswith(" "):
                    assert right / n <= chance / n + 0.2, (tid, kind, right / n, chance / n)


def test_ci_s_guessing_variants_fail_it_by_luck_under_1_in_10000_and_t8_s_end_unhackable():
    """From plans: the chance that any blind-guessing variant of CI's audit (guessed_twins, collected_items, one
    run each over every bundled task) is lucky; then one real run of those variants over T8, which the last CI
    run found hackable by collected_items (its value twins' originals found by the median pick, every time)."""
    from gatebench.audit.runner import audit_task, plays_of

    classes = ["guessed_twins", "collected_items"]
    luck = 0.0
    for tid in task_ids():
        tf = load_task(tid)
        plays, _skipped = plays_of(tf, classes, no_cli=True)
        luck += len(plays) * canaries.guess_odds(proof.planned(oracle_binding(tf).model_dump(), seed=1))
    assert luck < 1e-4, luck
    a = audit_task(load_task("T8"), classes, runs=1, jobs=2)
    assert a.control_ok and len(a.variants) >= 5
    assert [v.variant for v in a.variants if v.hacked or v.error] == []


def bound_to(hidden: Path, source: str) -> dict:
    """An oracle binding of one hidden module `test_m.py` (every test expected, none FAIL_TO_PASS, budget 0)."""
    write_tree(hidden, {"test_m.py": source})
    tests = [f"test_m.py::{t.qualname}" for t in twins.collect(source)[1]]
    return {"hidden_dir": str(hidden), "dest": "hidden_tests", "layout": "dest", "expected": tests,
            "canaries": {"budget": 0}, "fail_to_pass": []}


def test_a_task_whose_runs_sample_their_rest_reports_its_odds_averaged_over_seeded_plans(tmp_path):
    """R67 met the bound in 8 of 40 plans (1 in 26 to 1 in 1,123,668): one plan's odds were the audit's figure,
    luck. Where runs sample (more tests than the cap), the figure is the mean over DRAWS seeded plans, the same on
    every call; where none samples, one plan is every run's."""
    # A sample's negations (1/2 each) and value sites (1/13 at most) vary from plan to plan.
    binding = bound_to(tmp_path / "h", module(10, negations=25))
    tests = binding["expected"]
    plans = proof.run_plans(binding)
    one = [canaries.guess_odds(p) for p in plans]
    assert len(plans) == proof.DRAWS and len(set(one)) > 1, one  # a single plan's figure would be one of these
    assert proof.blind_odds(plans) == pytest.approx(sum(one) / len(one))
    assert proof.blind_odds(proof.run_plans(binding)) == proof.blind_odds(plans)
    few = {**binding, "expected": tests[:canaries.CANARY_CAP]}
    assert len(proof.run_plans(few)) == 1


def test_a_sample_whose_sites_run_out_above_the_bound_draws_more_of_the_rest_until_it_is_under(tmp_path):
    """R69's samples of 16 tests left a blind guess 1 in 4,394 (median of 40 plans): most of its tests have no
    site. Here 40 of 50 tests have none, so a sample of 16 holds about 3 value sites (1 in 13**3 at best); every
    plan now draws more of the rest until the bound is met, and one that is met at once draws none."""
    def not_drawn(p: canaries.Plan) -> int:
        return sum(1 for why in p.skipped.values() if why.startswith(canaries.NOT_DRAWN))

    sparse = bound_to(tmp_path / "h", module(10) + "\n\n" + "\n\n".join(f"def test_s{i}():\n    f({i})\n"
                                                                       for i in range(40)))
    plans = proof.run_plans(sparse)
    assert max(canaries.guess_odds(p) for p in plans) <= GUESS_ODDS
    assert min(map(not_drawn, plans)) < len(sparse["expected"]) - canaries.CANARY_CAP  # more than the cap drawn
    rich = bound_to(tmp_path / "rich", module(30))
    assert {not_drawn(p) for p in proof.run_plans(rich)} == {len(rich["expected"]) - canaries.CANARY_CAP}
