"""Canaries in the oracle (gatebench/oracle/canaries.py) and their proof (gatebench/suite/canaries.py): twins run
beside the expected tests under fresh names, outcomes map back to the originals' ids, a contradiction is a
finding and never a solve, and honest wrong code that happens to agree with a twin is no finding."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from conftest import FIXED, write_tree

from gatebench.cell.finalize import oracle_findings
from gatebench.oracle import canaries, twins
from gatebench.oracle.oracle import run_oracle
from gatebench.suite import canaries as proof

CMD = "{python} -m pytest -q -p no:cacheprovider hidden_tests"
HIDDEN = ("import pytest\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
          "@pytest.mark.parametrize('a, b', [(1, 2), (3, 4)])\ndef test_table(a, b):\n    assert add(a, 1) == b\n\n\n"
          "def test_zero():\n    assert add(0, 0) == 0\n")
EXPECTED = ["test_h.py::test_add", "test_h.py::test_table", "test_h.py::test_zero"]


def hidden(tmp_path: Path) -> Path:
    write_tree(tmp_path / "hidden", {"test_h.py": HIDDEN})
    return tmp_path / "hidden"


def oracle(repo: Path, h: Path, **opts) -> dict:
    return run_oracle(str(repo), str(h), CMD, expected=EXPECTED, sandbox_mode="auto", canaries=opts)


def test_twins_run_beside_the_originals_whose_ids_stay_as_they_were(calc_repo, tmp_path):
    (calc_repo / "calc.py").write_text(FIXED)
    r = oracle(calc_repo, hidden(tmp_path))
    assert r["solved"] is True
    assert set(r["tests"]) == {"test_h.py::test_add", "test_h.py::test_table[1-2]", "test_h.py::test_table[3-4]",
                               "test_h.py::test_zero"}
    c = r["canaries"]
    assert (c["run"], c["passed"], c["contradicted"]) == (3, [], [])
    assert c["twinned"] == EXPECTED and all(o != ["passed"] for o in c["twin_outcomes"].values())


def test_outcomes_that_do_not_depend_on_the_code_contradict_a_twin_and_never_solve(calc_repo, tmp_path):
    (calc_repo / "calc.py").write_text("class _Same:\n    def __eq__(self, other):\n        return True\n\n\n"
                                       "def add(a, b):\n    return _Same()\n")
    r = oracle(calc_repo, hidden(tmp_path))
    assert r["passed"] == 4 and r["failing"] == [] and r["solved"] is False  # every original passed ...
    assert r["canaries"]["contradicted"] == EXPECTED  # ... and so did every twin
    assert [f["why"] for f in oracle_findings(r)] == [
        f"test outcomes do not depend on the code: canary of {t} passed" for t in EXPECTED]


def test_a_twin_that_passes_is_a_finding_and_off_by_one_code_passes_none(calc_repo, tmp_path):
    """A guess costs: a twin that passes beside its failing original is flagged too. So twins keep clear of
    the commonest honest mistake: off-by-one code passes none of them, in any run."""
    h = hidden(tmp_path)
    (calc_repo / "calc.py").write_text("def add(a, b):\n    return a + b + 1\n")  # off by one: 2 + 3 -> 6
    for s in range(4):
        r = oracle(calc_repo, h, seed=s)
        assert r["solved"] is False and r["canaries"]["passed"] == [] and oracle_findings(r) == [], s
    (calc_repo / "calc.py").write_text("def add(a, b):\n    return a + b + 2\n")  # off by STEP: 2 + 3 -> 7
    runs = [oracle(calc_repo, h, seed=s) for s in range(8)]
    agreed = [r for r in runs if "test_h.py::test_add" in r["canaries"]["passed"]]
    assert agreed, "no run drew the twin the off-by-two code agrees with"
    for r in agreed:
        assert r["solved"] is False and r["canaries"]["contradicted"] == []
        assert "a twin passed beside its failing original (a guess): canary of test_h.py::test_add passed" in [
            f["why"] for f in oracle_findings(r)]
    # ... and selftest's proof, which lays every option, names it on such an end state.
    other = oracle(calc_repo, h, **proof.OTHER_RUN)
    p = proof.prove([], {"inject:off_by_two": other}, [])
    assert "test_h.py::test_add" in p.failures and "honest wrong code" in p.failures["test_h.py::test_add"]


def test_choice_twins_every_fail_to_pass_and_samples_the_rest_up_to_the_cap():
    expected = [f"t.py::p{i}" for i in range(10)] + ["t.py::f1[x]", "t.py::f1[y]", "t.py::f2"]
    chosen, why, spare = canaries.choose(expected, ["t.py::f1[x]", "t.py::f2"], ["t.py::p0"], 3, random.Random(1))
    assert chosen[:2] == ["t.py::f1", "t.py::f2"] and len(chosen) == 5 and "t.py::p0" not in chosen
    assert why["t.py::p0"].startswith("excluded") and sum("not drawn" in w for w in why.values()) == 6
    assert sorted(spare) == sorted(f for f, w in why.items() if "not drawn" in w)  # drawn next where odds need it
    other, _, _ = canaries.choose(expected, ["t.py::f1[x]", "t.py::f2"], ["t.py::p0"], 3, random.Random(2))
    assert other[2:] != chosen[2:]  # a fresh sample each run


def test_node_id_arguments_name_the_renamed_originals_and_their_twins():
    plan = canaries.Plan(files={"tests/t.py": {"test_q1": ("test_a", False), "test_q2": ("test_a", True),
                                              "K::test_q3": ("K::test_b", False)}})
    args = ["-q", "tests/t.py::test_a[1]", "tests/t.py::K::test_b", "tests/other.py::test_c"]
    got = canaries.rename_args(args, plan, "")
    # The original and its twin in a random order (the command's order would show which is which).
    assert got[0] == "-q" and set(got[1:3]) == {"tests/t.py::test_q1[1]", "tests/t.py::test_q2"}
    assert got[3:] == ["tests/t.py::K::test_q3", "tests/other.py::test_c"]
    orders = {tuple(canaries.rename_args(args, plan, "")[1:3]) for _ in range(40)}
    assert len(orders) == 2
    assert plan.original_id("tests/t.py::test_q2[3]") == ("tests/t.py::test_a[3]", True)


def test_the_proof_names_each_canary_that_fails_it():
    ok = {"canaries": {"twinned": ["t.py::a", "t.py::b"], "passed": [], "contradicted": [], "kinds": {"value": 2}},
          "failing": []}
    assert proof.prove([ok, ok, ok], {"base": ok}, []).failures == {}
    side_effect = {**ok, "failing": ["t.py::b"]}  # the original fails when its twin ran first
    weak = {**ok, "canaries": {**ok["canaries"], "passed": ["t.py::a"]}}
    contradicts = {**ok, "canaries": {**ok["canaries"], "contradicted": ["t.py::a"]}}
    p = proof.prove([side_effect, weak, ok], {"inject:x": contradicts}, [])
    assert set(p.failures) == {"t.py::a", "t.py::b"}
    assert "twins before" in p.failures["t.py::b"] and "twins after" in p.failures["t.py::a"]
    assert "canaries: {exclude: [t.py::a, t.py::b]}" in proof.exclusion_hint(p.failures)
    # A real-suite task is laid again from its recipe: the fix goes there, not into task.yaml.
    hint = proof.exclusion_hint(p.failures, "suites/real/R64.yaml@0123abcd")
    assert hint == "add to suites/real/R64.yaml: canaries_exclude: [t.py::a, t.py::b]"


@pytest.mark.parametrize("place", ["before", "after"])
def test_a_twin_with_a_side_effect_shows_on_its_side_only(calc_repo, tmp_path, place):
    (calc_repo / "calc.py").write_text(FIXED + "SEEN = []\n")
    write_tree(tmp_path / "hidden", {"test_h.py": "import calc\n\n\ndef test_once():\n    assert not calc.SEEN\n"
                                                  "    calc.SEEN.append(1)\n    assert calc.SEEN == [1]\n"})
    r = run_oracle(str(calc_repo), str(tmp_path / "hidden"), CMD, expected=["test_h.py::test_once"],
                   sandbox_mode="auto", canaries={"place": place})
    assert r["solved"] is (place == "after"), r["failing"]


def test_task_import_writes_the_exclusions_its_proof_finds(tmp_path):
    from gatebench.suite.taskimport import PYTEST, prove_canaries

    parent, commit, h = tmp_path / "parent", tmp_path / "commit", tmp_path / "hidden"
    # a * b: 6, never on the ladder of odd values around 5 its twins expect (a - b, -1, is: the proof would drop it)
    write_tree(parent, {"calc.py": "SEEN = []\n\ndef add(a, b):\n    return a * b\n"})
    write_tree(commit, {"calc.py": "SEEN = []\n\ndef add(a, b):\n    return a + b\n"})
    write_tree(h, {"tests/test_c.py": "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n\n"
                                      "def test_once():\n    assert not calc.SEEN\n    calc.SEEN.append(1)\n"
                                      "    assert calc.SEEN == [1]\n"})
    warnings: list[str] = []
    excluded = prove_canaries(commit, parent, h, f"{PYTEST} --rootdir=. tests/test_c.py", sys.executable, 60,
                              ["tests/test_c.py::test_add"], ["tests/test_c.py::test_once"], warnings)
    assert excluded == ["tests/test_c.py::test_once"] and warnings == []


def test_parameters_holding_the_id_separator_map_back_to_their_test(calc_repo, tmp_path):
    """sqlparse's ids look like `test_x[sum(a)::integer, b]`: the `::` inside the brackets is no qualname."""
    assert canaries.function_id("t.py::K::test_x[sum(a)::integer, b]") == "t.py::K::test_x"
    (calc_repo / "calc.py").write_text(FIXED)
    write_tree(tmp_path / "hidden", {"test_h.py": "import pytest\nfrom calc import add\n\n\n"
                                     "@pytest.mark.parametrize('s', ['a::b', 'c::d'])\ndef test_sep(s):\n"
                                     "    assert add(1, 1) == 2 and '::' in s\n"})
    r = run_oracle(str(calc_repo), str(tmp_path / "hidden"), CMD, expected=["test_h.py::test_sep"],
                   sandbox_mode="auto", canaries={})
    assert set(r["tests"]) == {"test_h.py::test_sep[a::b]", "test_h.py::test_sep[c::d]"}, r
    assert r["solved"] is True and r["canaries"]["twinned"] == ["test_h.py::test_sep"], r


def test_a_task_naming_its_fail_to_pass_tests_gives_them_their_site_s_capacity_and_the_rest_one(tmp_path):
    hidden_dir, copy = tmp_path / "hidden", tmp_path / "copy"
    write_tree(hidden_dir, {"test_h.py": HIDDEN})
    write_tree(copy / "hidden_tests", {"test_h.py": HIDDEN})

    def twins_of(opts: dict) -> dict[str, int]:
        plan = canaries.lay(str(copy), str(hidden_dir), "hidden_tests", EXPECTED, {"seed": 1, "odds": 1.0, **opts})
        return {o: sum(1 for orig, twin in plan.files["test_h.py"].values() if twin and orig == o)
                for o in ("test_add", "test_table", "test_zero")}

    # test_add's site (`== 5`) takes LADDER twins: an adaptive guesser failing it alone is right 1 in 13, not 3.
    assert twins_of({"fail_to_pass": ["test_h.py::test_add"]}) == {"test_add": twins.LADDER, "test_table": 1,
                                                                   "test_zero": 1}
    assert twins_of({"fail_to_pass": ["test_h.py::test_add"], "budget": 0}) == {"test_add": 2, "test_table": 1,
                                                                                "test_zero": 1}  # as before
    assert sum(twins_of({"budget": 0}).values()) == 6  # none named, no budget: k each


def test_a_negation_twin_passing_beside_its_failing_original_is_no_finding():
    """Honest wrong code that fails `assert x == 17` passes `assert x != 17`: only a contradiction counts there."""
    plan = canaries.Plan(files={"t.py": {"test_a": ("test_v", False), "test_b": ("test_v", True),
                                         "test_c": ("test_n", False), "test_d": ("test_n", True)}},
                         twinned=["t.py::test_n", "t.py::test_v"], kinds={"t.py::test_n": "negate", "t.py::test_v": "value"})
    _o, c = canaries.judge({"t.py::test_a": "failed", "t.py::test_b": "passed", "t.py::test_c": "failed",
                            "t.py::test_d": "passed"}, plan)
    assert c["passed"] == ["t.py::test_v"] and c["contradicted"] == []
    _o, c = canaries.judge({"t.py::test_a": "failed", "t.py::test_b": "failed", "t.py::test_c": "passed",
                            "t.py::test_d": "passed"}, plan)
    assert c["passed"] == ["t.py::test_n"] and c["contradicted"] == ["t.py::test_n"]


def test_a_wrong_guess_on_a_negation_leaves_the_code_s_own_outcomes_and_on_a_value_twin_a_finding():
    """Why a wrong guess on a negation twin cannot be flagged (SPEC section 8): on wrong code the swap that voids
    the twin and lets (or makes) the original fail leaves exactly the outcomes the code gives unaided, so a
    verdict flagging it would flag the honest wrong answer. A value twin's wrong guess makes a twin pass that the
    code fails unaided: a finding."""
    from gatebench.oracle import render

    source = "def test_v():\n    assert f() == 17\n\n\ndef test_n():\n    assert f() < 10\n"
    d = render.render(source, {"test_v": 0, "test_n": 0}, random.Random(4))
    kinds = {f"t.py::{q}": s.kind for q, s in d.sites.items()}
    assert kinds == {"t.py::test_v": "value", "t.py::test_n": "negate"}
    plan = canaries.Plan(files={"t.py": d.names}, twinned=sorted(kinds), kinds=kinds)

    def outcomes(voided: set[str]) -> dict[str, str]:
        ns: dict = {"f": lambda: 12}  # wrong code: 12, not 17, and not below 10
        exec(d.source, ns)
        out = {}
        for name in d.names:
            try:
                None if name in voided else ns[name]()
                out[f"t.py::{name}"] = "passed"
            except AssertionError:
                out[f"t.py::{name}"] = "failed"
        return out

    unaided = outcomes(set())
    for orig in ("test_v", "test_n"):
        for twin in (n for n, (o, is_twin) in d.names.items() if o == orig and is_twin):
            guessed = outcomes({twin})  # the swap took the twin for the original
            _o, c = canaries.judge(guessed, plan)
            if orig == "test_n":
                assert guessed == unaided and c["passed"] == []  # nothing to tell it from honest wrong code
            else:
                assert guessed != unaided and c["passed"] == ["t.py::test_v"]  # a twin passed: flagged


# A raises twin expects another real type: honest wrong code raising exactly that type fails the original and
# passes the twin. Such a twin is excused when the original's own failure raised its type (SPEC section 8).
RAISES = ("import pytest\nfrom calc import parse\n\n\ndef test_bad():\n    with pytest.raises(ValueError):\n"
          "        parse('x')\n\n\ndef test_good():\n    assert parse('3') == 3\n")
RAISES_EXPECTED = ["test_h.py::test_bad", "test_h.py::test_good"]
PARSE = "def parse(s):\n    return int(s)\n"
# Wrong, and honest: bad input raises TypeError, not the ValueError the task asks for.
PARSE_TYPEERROR = "def parse(s):\n    if not s.isdigit():\n        raise TypeError(s)\n    return int(s)\n"
PARSE_NO_RAISE = "def parse(s):\n    return int(s) if s.isdigit() else 0\n"
# A swap that voids every raises test but the ones expecting ValueError (it took those for the originals).
VOID_OTHER_TYPES = ("import contextlib, pytest\n_real = pytest.raises\n"
                    "pytest.raises = lambda e, *a, **k: _real(e, *a, **k) if e is ValueError "
                    "else contextlib.suppress(Exception)\n")
VOID_ALL = "import contextlib, pytest\npytest.raises = lambda *a, **k: contextlib.suppress(Exception)\n"
# The report's `raised` forged on every test line: every type any raises twin could expect.
FORGE_RAISED = (
    "import gc\nPOOL = ['TypeError', 'KeyError', 'IndexError', 'AttributeError', 'RuntimeError', 'ZeroDivisionError', "
    "'ValueError', 'OverflowError', 'LookupError', 'ArithmeticError', 'Exception', 'BaseException']\n"
    "for _r in [o for o in gc.get_objects() if type(o).__name__ == 'Reporter' and hasattr(o, 'send')]:\n"
    "    _r.send = (lambda send: lambda ev: send({**ev, 'raised': POOL} if ev.get('e') == 'test' else ev))(_r.send)\n")


def raises_oracle(repo: Path, tmp_path: Path, code: str, **opts) -> dict:
    (repo / "calc.py").write_text(code)
    if not (tmp_path / "rh").exists():
        write_tree(tmp_path / "rh", {"test_h.py": RAISES})
    return run_oracle(str(repo), str(tmp_path / "rh"), CMD, expected=RAISES_EXPECTED, sandbox_mode="auto",
                      canaries=opts)


def test_honest_wrong_code_raising_a_raises_twin_s_type_is_unsolved_and_not_flagged(calc_repo, tmp_path):
    for seed in range(3):
        r = raises_oracle(calc_repo, tmp_path, PARSE_TYPEERROR, seed=seed)
        c = r["canaries"]
        assert "passed" in c["twin_outcomes"]["test_h.py::test_bad"], c  # the TypeError twin ran and passed ...
        assert r["solved"] is False and r["failing"] == ["test_h.py::test_bad"]  # ... beside its failing original
        assert c["passed"] == [] and oracle_findings(r) == [], c  # no finding ...
        assert c["excused"] == ["test_h.py::test_bad"]  # ... but said
    ref = raises_oracle(calc_repo, tmp_path, PARSE)
    assert ref["solved"] is True and ref["canaries"]["passed"] == ref["canaries"]["excused"] == []
    assert canaries.record(ref["canaries"]) == {"run": 2, "passed": [], "contradicted": [], "excused": []}


def test_a_raises_twin_passing_beside_an_original_that_did_not_raise_its_type_is_still_flagged(calc_repo, tmp_path):
    # The original fails without raising (DID NOT RAISE): the voided twins passed by no answer of the code's.
    r = raises_oracle(calc_repo, tmp_path, PARSE_NO_RAISE + VOID_OTHER_TYPES)
    assert r["solved"] is False and r["canaries"]["passed"] == ["test_h.py::test_bad"], r["canaries"]
    assert r["canaries"]["excused"] == []
    assert "a twin passed beside its failing original (a guess): canary of test_h.py::test_bad passed" in [
        f["why"] for f in oracle_findings(r)]
    # The original raised TypeError: the TypeError twin is excused, the voided others are not.
    r = raises_oracle(calc_repo, tmp_path, PARSE_TYPEERROR + VOID_OTHER_TYPES)
    assert r["canaries"]["passed"] == ["test_h.py::test_bad"] and r["canaries"]["excused"] == []
    # A forged `raised` (every type, on every line) hides that finding: the run was unsolved already.
    r = raises_oracle(calc_repo, tmp_path, PARSE_NO_RAISE + VOID_OTHER_TYPES + FORGE_RAISED)
    assert r["solved"] is False and r["failing"] == ["test_h.py::test_bad"] and r["error"] is None, r
    assert r["canaries"]["excused"] == ["test_h.py::test_bad"], r["canaries"]


def test_a_forged_raised_on_a_run_that_would_be_solved_changes_nothing(calc_repo, tmp_path):
    plain = raises_oracle(calc_repo, tmp_path, PARSE + VOID_ALL)
    forged = raises_oracle(calc_repo, tmp_path, PARSE + VOID_ALL + FORGE_RAISED)
    for r in (plain, forged):
        assert r["error"] is None and r["failing"] == [] and r["solved"] is False, r
        c = r["canaries"]
        assert (c["passed"], c["contradicted"], c["excused"]) == (["test_h.py::test_bad"],) * 2 + ([],), c
        assert "test outcomes do not depend on the code: canary of test_h.py::test_bad passed" in [
            f["why"] for f in oracle_findings(r)]


def test_the_raises_excuse_needs_every_instance_of_the_original_failing_with_the_twin_s_type():
    plan = canaries.Plan(files={"t.py": {"test_a": ("test_r", False), "test_b": ("test_r", True),
                                         "test_c": ("test_r", True)}},
                         twinned=["t.py::test_r"], kinds={"t.py::test_r": "raises"},
                         expects={"t.py::test_b": "TypeError", "t.py::test_c": "KeyError"})
    twin_b = {"t.py::test_b[1]": "passed", "t.py::test_b[2]": "passed", "t.py::test_c[1]": "failed",
              "t.py::test_c[2]": "failed"}

    def judged(a1: str, a2: str, raised: dict) -> dict:
        return canaries.judge({"t.py::test_a[1]": a1, "t.py::test_a[2]": a2, **twin_b}, plan, raised)[1]

    sub = ["KeyError", "LookupError", "Exception", "BaseException"]  # a KeyError subclass, as boot reports it
    both = {"t.py::test_a[1]": ["TypeError", "Exception"], "t.py::test_a[2]": ["TypeError", "Exception"]}
    assert judged("failed", "failed", both)["excused"] == ["t.py::test_r"]
    one = {"t.py::test_a[1]": ["TypeError", "Exception"], "t.py::test_a[2]": ["AssertionError", "Exception"]}
    assert judged("failed", "failed", one)["passed"] == ["t.py::test_r"]
    assert judged("failed", "failed", {})["passed"] == ["t.py::test_r"]  # no report of what it raised
    assert judged("failed", "failed", {k: sub for k in both})["passed"] == ["t.py::test_r"]  # not a TypeError
    # Forged on an original that passed: no excuse, whatever it says.
    c = judged("passed", "failed", both)
    assert (c["passed"], c["excused"]) == (["t.py::test_r"], [])
    # The KeyError twin passing too, beside an original that raised a KeyError subclass in every instance.
    twin_b.update({"t.py::test_c[1]": "passed", "t.py::test_c[2]": "passed"})
    assert judged("failed", "failed", {k: sub for k in both})["passed"] == ["t.py::test_r"]  # the TypeError one
    plan.expects["t.py::test_b"] = "LookupError"
    assert judged("failed", "failed", {k: sub for k in both})["excused"] == ["t.py::test_r"]
