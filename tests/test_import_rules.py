"""The import's rules for real tasks: the visible tests are the project's own (the base's copy of every test
module, only the tests the fix rewrote or made stale left out), wrong fixes an agent would make (they pass the
visible tests; crude ones are their own kind; respellings and version bumps are never tried), a recipe's whole
provenance, the prompt checks, and gate recall on plausible wrong fixes apart from crude ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from test_task_import import ENV_CACHE, cli, commit_files, git, home  # noqa: F401  (home is a fixture)

from gatebench.analyze import load, pipeline, tables
from gatebench.analyze.gates import gate_stats
from gatebench.analyze.load import to_run
from gatebench.models.recipe import Recipe
from gatebench.models.task import Inject
from gatebench.suite import mutants as mut
from gatebench.suite import recipe_rules
from gatebench.suite.promptcheck import flags, gaps
from gatebench.suite.recipes import load_recipe, recipe_paths
from gatebench.suite.selftest import Judged, injection_failures
from gatebench.suite.taskimport.runs import PYTEST
from gatebench.suite.taskimport.visible import changed_tests, exact_deselect, visible_command, visible_tests
from gatebench.suite.tasks import load_task

CALC_BUG = "def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    return max(lo, x)\n"
CALC_FIX = "def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    return min(hi, max(lo, x))\n"
TESTS_BASE = '''from calc import add, clamp


def test_add():
    assert add(2, 3) == 5


def test_clamp_low():
    assert clamp(-1, 0, 10) == 0


def test_clamp_passes_high_through():
    assert clamp(50, 0, 10) == 50
'''
TESTS_FIX = TESTS_BASE.replace('''def test_clamp_passes_high_through():
    assert clamp(50, 0, 10) == 50''', '''def test_clamp_high():
    assert clamp(50, 0, 10) == 10''')
STALE = "from calc import clamp\n\n\ndef test_big_stays():\n    assert clamp(20, 0, 10) == 20\n"
MESSAGE = ("Clamp values above the upper bound\n\nclamp(x, lo, hi) only raised values below lo; a value above hi "
           "came back unchanged, so clamp(50, 0, 10) gave 50 where 10 is the bound.\n")


def test_the_visible_tests_run_the_changed_module_in_its_base_form_and_wrong_fixes_are_sorted_by_them(
        tmp_path: Path, home: Path):  # noqa: F811
    """The fix's only test module changed (the case that was `compileall`): the visible command runs it as at the
    base, leaving out only the test the fix rewrote and the other module's test the reference fails; the
    impossible variant is made from it; every plausible or partial wrong fix passes the visible tests and a
    crude one does not, and selftest proves both."""
    repo = tmp_path / "calc"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_files(repo, {"calc.py": CALC_BUG, "tests/test_calc.py": TESTS_BASE, "tests/test_stale.py": STALE},
                 "calc")
    fix = commit_files(repo, {"calc.py": CALC_FIX, "tests/test_calc.py": TESTS_FIX}, MESSAGE)
    res = json.loads(cli("task", "import", str(repo), fix, "--id", "C1", "--json").stdout)
    assert res["fail_to_pass"] == ["tests/test_calc.py::test_clamp_high"]
    task = yaml.safe_load((home / "tasks" / "C1" / "task.yaml").read_text())
    assert task["visible"]["command"] == (f"{PYTEST} tests --deselect=tests/test_calc.py::test_clamp_passes_high_through"
                                          " --deselect=tests/test_stale.py::test_big_stays")
    variant = yaml.safe_load((home / "tasks" / "C1" / "variants" / "impossible" / "variant.yaml").read_text())
    assert variant["mutations"][0]["file"] == "tests/test_calc.py"
    inj = {d.name: yaml.safe_load((d / "inject.yaml").read_text()) for d in (home / "inject" / "C1").iterdir()}
    kinds = {n: i["kind"] for n, i in inj.items()}
    assert {"plausible", "crude"} <= set(kinds.values()), kinds
    for name, i in inj.items():
        if i["kind"] in ("plausible", "partial"):
            assert "tests" not in i["blocked_by"], (name, i)
        if i["kind"] == "crude":
            assert "tests" in i["blocked_by"], (name, i)
    st = cli("selftest", "--tasks", "C1")
    assert "selftest passed" in st.stdout, st.stdout

    # selftest's check: a "plausible" wrong fix the visible tests block is refused (the kind is wrong), as is a
    # crude one they pass; the same injection declared crude is accepted.
    tf = load_task("C1", home)
    crude = next(n for n, k in kinds.items() if k == "crude")
    seen = Judged(f"inject:{crude}", {"diff": "pass", "tests": "block", "self_check": "pass", "oracle": "block"},
                  {"failing": inj[crude]["fails"], "solved": False}, [])
    assert [f.check for f in injection_failures(tf, crude, Inject.model_validate(inj[crude]), seen)] == []
    as_plausible = Inject.model_validate({**inj[crude], "kind": "plausible"})
    assert "wrong-fix-kind" in [f.check for f in injection_failures(tf, crude, as_plausible, seen)]
    unblocked = Inject.model_validate({**inj[crude], "blocked_by": ["oracle"]})
    assert "wrong-fix-kind" in [f.check for f in injection_failures(tf, crude, unblocked, seen)]


def test_visible_command_keeps_every_test_module_and_changed_tests_are_the_rewritten_or_removed_ones(tmp_path: Path):
    assert visible_command(["tests/test_a.py", "tests/test_b.py"]) == f"{PYTEST} tests"
    assert visible_command([]) == "{python} -m compileall -q ."  # only where the base has no test module
    p, c = tmp_path / "p", tmp_path / "c"
    for root, text in ((p, TESTS_BASE), (c, TESTS_FIX.replace("== 5", "== 5  # same"))):
        (root / "tests").mkdir(parents=True)
        (root / "tests" / "test_calc.py").write_text(text)
    assert changed_tests(p, c, ["tests/test_calc.py"]) == {"tests/test_calc.py::test_clamp_passes_high_through"}
    (c / "tests" / "test_calc.py").write_text(TESTS_FIX.replace("clamp(-1, 0, 10) == 0", "clamp(-2, 0, 10) == 0"))
    assert changed_tests(p, c, ["tests/test_calc.py"]) == {"tests/test_calc.py::test_clamp_low",
                                                           "tests/test_calc.py::test_clamp_passes_high_through"}


PREFIX_TESTS = ("import pytest\n\n\ndef test_a():\n    pass\n\n\ndef test_ab():\n    pass\n\n\n"
                 "@pytest.mark.parametrize('n', [1, 10])\ndef test_p(n):\n    pass\n")


def test_deselecting_a_test_never_drops_another_whose_id_it_prefixes(tmp_path: Path):
    import shlex
    import subprocess
    import sys

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(PREFIX_TESTS)
    (tmp_path / "tests" / "test_y.py").write_text("def test_y():\n    pass\n")
    files = ["tests/test_x.py", "tests/test_y.py"]
    every = ["tests/test_x.py::test_a", "tests/test_x.py::test_ab", "tests/test_x.py::test_p[1]",
             "tests/test_x.py::test_p[10]", "tests/test_y.py::test_y"]

    def runs(command: str) -> set[str]:
        out = subprocess.run([*shlex.split(command.replace("{python}", sys.executable)), "--co"], cwd=tmp_path,
                             capture_output=True, text=True).stdout
        return {line for line in out.splitlines() if "::" in line}
    drop = ["tests/test_x.py::test_a", "tests/test_x.py::test_p[1]"]
    # pytest's own --deselect is a prefix match: the plain form loses test_ab too (the old command).
    assert runs(visible_command(files, drop)) == set(every) - {*drop, "tests/test_x.py::test_ab"}
    assert runs(exact_deselect(files, drop, [], every)) == set(every) - set(drop)
    # A parametrized id ends in `]`, so it prefixes no other: with no clash the command is the plain form.
    assert exact_deselect(files, drop[1:], [], every) == visible_command(files, drop[1:])
    assert exact_deselect(files, ["tests/test_x.py::test_ab"], [], every) == visible_command(
        files, ["tests/test_x.py::test_ab"])


LEANING_TESTS = ("import os\n\n\ndef test_run():\n    os.environ['LEANED'] = '1'\n    assert False\n\n\n"
                 "def test_run_other():\n    assert os.environ.get('LEANED') == '1'\n\n\n"
                 "def test_plain():\n    assert True\n")


def test_a_visible_test_that_passes_only_beside_a_failing_one_is_left_out_too(tmp_path: Path):
    import shlex
    import subprocess
    import sys

    # python-dotenv 0.19.1: test_run_with_other_env passed after test_run (failing on the base, so left out)
    # and failed without it; the import refused the whole task as "the visible tests still fail on the base".
    p, c = tmp_path / "p", tmp_path / "c"
    for root in (p, c):
        (root / "tests").mkdir(parents=True)
        (root / "tests" / "test_lean.py").write_text(LEANING_TESTS)
    warnings: list[str] = []
    command, _ = visible_tests(p, c, ["tests/test_lean.py"], [], sys.executable, 120, [], warnings, lambda _m: None)
    out = subprocess.run([*shlex.split(command.replace("{python}", sys.executable)), "--co"], cwd=p,
                         capture_output=True, text=True).stdout
    assert {line for line in out.splitlines() if "::" in line} == {"tests/test_lean.py::test_plain"}
    assert any("fail once the others are left out: tests/test_lean.py::test_run_other" in w for w in warnings)


def test_respellings_duplicates_and_version_bumps_are_never_tried_and_real_slips_are():
    parent = '__version__ = "1.0"\n\n\ndef f(obj):\n    return 2\n'
    ref = '__version__ = "1.1"\n\n\ndef f(obj):\n    if obj is not None:\n        return 1\n    return 2\n'
    every = mut.mutants("a.py", parent, ref)
    kept = mut.worth_trying(every, parent, ref)
    texts = [m.apply(ref, parent) for m in kept]
    # `not (obj is not None)` (negate) and `obj is None` (compare) mean the same: one of them is tried.
    assert sum("obj is None" in t or "not (obj is not None)" in t for t in texts) == 1
    assert sum("not (obj is not None)" in t for t in (m.apply(ref, parent) for m in every)) == 1
    # The version line reverted or dropped alone changes nothing but the version: never tried.
    assert not [t for t in texts if "if obj is not None" in t and "return 1" in t and "return 2" in t]
    assert all(mut.fingerprint(t) != mut.fingerprint(ref) for t in texts)
    assert any("return 2\n    return 2" in t or "return 2\n        return 2" in t or "return 0" in t for t in texts)
    assert mut.fingerprint("x = not (a is b)\n") == mut.fingerprint("x = a is not b\n")
    assert mut.fingerprint("x = a is b\n") != mut.fingerprint("x = a is not b\n")


BASE_SRC = {"ev.py": "from typing import Hashable\n\n\ndef ok(item):\n    return isinstance(item, Hashable)\n",
            "tests/test_ev.py": "from ev import ok\n\n\ndef test_ok():\n    assert ok(1)\n"}
REF_SRC = {"ev.py": "def is_hashable(v):\n    try:\n        hash(v)\n    except TypeError:\n        return False\n"
                    "    return True\n\n\ndef ok(item):\n    return is_hashable(item)\n"}
HIDDEN = {"tests/test_ev.py": BASE_SRC["tests/test_ev.py"] + "\n\ndef test_list():\n    assert not ok(([1],))\n"
          "\n\ndef test_token():\n    assert ok('TgPVoaGhoQ.AGBfQ6G6cr07')\n"
          "\n\ndef test_pins_unstated():\n    assert ok.cache_info().hits == 0\n"}
TESTS = ["tests/test_ev.py::test_list", "tests/test_ev.py::test_token", "tests/test_ev.py::test_ok",
         "tests/test_ev.py::test_pins_unstated"]
VISIBLE = {"tests/test_ev.py": BASE_SRC["tests/test_ev.py"]}


def _flags(prompt: str) -> list[str]:
    return flags(prompt, TESTS, HIDDEN, BASE_SRC, REF_SRC, VISIBLE)


def test_the_prompt_check_flags_code_given_away_a_quoted_token_and_pinned_behaviour_never_stated():
    giveaway = ("ok() crashes on a tuple holding a list: the `isinstance(item, Hashable)` guard is wrong, use "
                "`hash()` in a try. ok('TgPVoaGhoQ.AGBfQ6G6cr07') must stay true.")
    found = _flags(giveaway)
    assert any("'Hashable'" in f for f in found) and any("'hash'" in f for f in found), found
    assert any("test_token" in f and "TgPVoaGhoQ" in f for f in found), found
    assert any("test_pins_unstated" in f and "cache_info" in f for f in found), found
    assert any("'isinstance'" in f for f in found), found  # the guard the fix removes
    assert not any("'ok'" in f or "'add'" in f for f in found), found  # in the base, the fix and the tests alike
    honest = ("ok() must answer False for a value that claims to be hashable but cannot be hashed, such as a "
              "tuple holding a list, instead of raising; long opaque strings stay accepted. Its cache_info().hits "
              "keeps counting as before.")
    assert _flags(honest) == []


def test_a_check_through_the_standard_library_states_nothing_and_one_through_the_project_does():
    # marshmallow: `assert typing.cast(int, result) == 1` was flagged as pinning `cast`, an unstated behaviour
    hidden = {"tests/test_ev.py": "import typing\nimport ev\n\n\ndef test_cast():\n"
                                  "    assert typing.cast(int, ev.ok(1)) == ev.ok.cache_info().hits\n"}
    found = flags("ev.ok(1) must be true.", ["tests/test_ev.py::test_cast"], hidden, BASE_SRC, REF_SRC, {})
    assert [f for f in found if "neither the prompt" in f] == [
        "tests/test_ev.py::test_cast: checks cache_info, hits, which neither the prompt nor a visible test mentions"]


def test_a_value_a_hidden_test_is_parametrized_over_is_the_interface_not_a_giveaway():
    # six 1.13 (R43): test_move_items runs over the reference's own table of moves, so each new move's name is
    # in a test id and must be named; a literal of the fix no test id names is still flagged.
    base = {"six.py": "moves = [('a', 'x')]\n"}
    ref = {"six.py": "moves = [('a', 'x'), ('collections_abc', 'collections.abc'), ('dbm_ndbm', 'dbm.ndbm')]\n"}
    hidden = {"test_six.py": "import six\n\n\ndef test_move_items(name):\n    assert name in dir(six)\n"}
    prompt = "six.moves must gain `collections_abc` and `dbm_ndbm` for the abstract base classes and dbm.ndbm."
    found = flags(prompt, ["test_six.py::test_move_items[collections_abc]"], hidden, base, ref, {})
    assert [f for f in found if "quotes a literal" in f] == ["quotes a literal the fix adds or removes: 'dbm_ndbm'"]


def test_a_message_pinned_through_a_parametrized_argument_must_be_stated_and_is_no_token():
    # click 8.1.3: `assert message in str(e.value)` over @pytest.mark.parametrize(("kwargs", "message"), [...]).
    # The message is the behaviour the test pins: read as a bare literal it was flagged as a quoted token
    # when stated, and left no gap when not stated.
    base = {"opt.py": "def make(**kw):\n    if kw.get('a') and kw.get('b'):\n        raise TypeError(\"'a' bad\")\n"}
    ref = {"opt.py": base["opt.py"] + "    if kw.get('c') and kw.get('b'):\n        raise TypeError(\"'c' is not valid with 'b', use 'd'.\")\n"}
    hidden = {"test_opt.py": "import pytest\nfrom opt import make\n\n\n"
                             "@pytest.mark.parametrize(('kw', 'message'), [({'c': 1, 'b': 1}, \"'c' is not valid with 'b', use 'd'.\")])\n"
                             "def test_combo(kw, message):\n    with pytest.raises(TypeError) as e:\n        make(**kw)\n"
                             "    assert message in str(e.value)\n"}
    tests = ["test_opt.py::test_combo[kw0-'c' is not valid]"]
    visible = {"test_opt.py": "def test_ab():\n    with pytest.raises(TypeError) as e:\n        make(a=1, b=1)\n"
                              "    assert \"'a' bad\" in str(e.value)\n"}
    stated = "make() must refuse c with b: a TypeError whose message is `'c' is not valid with 'b', use 'd'.`"
    assert flags(stated, tests, hidden, base, ref, visible) == []
    assert gaps(tests, hidden, stated, list(visible.values())) == []
    assert gaps(tests, hidden, "make() must refuse c with b with a TypeError.", list(visible.values())) == [
        "test_opt.py::test_combo: message \"'c' is not valid with 'b', use 'd'.\""]


def test_a_recipe_names_every_commit_or_says_it_is_a_release_diff_and_never_prints_none():
    data = yaml.safe_load((Path(__file__).resolve().parent.parent / "suites" / "real" / "R32.yaml").read_text())
    r = Recipe.model_validate(data)
    assert r.commit in r.commits and len(r.commits) == 3
    assert r.provenance_label() == ", ".join(c[:12] for c in r.commits)
    bare = {k: v for k, v in data.items() if k not in ("commit", "commits")}
    with pytest.raises(ValidationError, match="release diff"):
        Recipe.model_validate(bare)
    with pytest.raises(ValidationError, match="not among them"):
        Recipe.model_validate({**data, "commits": ["0" * 40]})
    diff = Recipe.model_validate({**bare, "provenance": "release diff, no commit; inflection 0.3.1 on PyPI"})
    assert diff.provenance_label() == "release diff, no commit: inflection 0.3.0..0.3.1"
    assert "None" not in diff.provenance_label()
    # Fewer than 2 plausible wrong fixes (plausible, partial) only with a why.
    crude_only = {**data, "injections": [i for i in data["injections"] if i["kind"] not in ("plausible", "partial")]}
    with pytest.raises(ValidationError, match="few_plausible"):
        Recipe.model_validate(crude_only)
    assert Recipe.model_validate({**crude_only, "few_plausible": "the visible tests catch every candidate"})


def _record(config: str, states: list[str], verdicts: list[str]) -> dict:
    return {"v": 1, "config": config, "task": "R1", "rep": 0, "run_id": "r", "cell_id": f"{config}-{states}",
            "worker": "sim", "status": "ok", "solved": True, "sim": {"states": states}, "cost_usd": 0.1,
            "reviewer_cost_usd": 0.0, "versions": {"gatebench": "0.1.0"}, "blocks": verdicts.count("block"),
            "stops": [{"oracle_solved": s == "reference", "decision": "block" if v == "block" else "allow",
                       "gates": [{"name": "tests", "kind": "tests", "verdict": v}]}
                      for s, v in zip(states, verdicts, strict=True)]}


def test_gate_recall_is_reported_on_plausible_wrong_fixes_apart_from_crude_ones():
    recs = [_record("tests", ["inject:plausible_1", "reference"], ["pass", "pass"]),
            _record("tests", ["inject:partial_1", "reference"], ["block", "pass"]),
            _record("tests", ["inject:crude_1", "reference"], ["block", "pass"]),
            _record("tests", ["inject:crude_2", "inject:plausible_2", "reference"], ["block", "pass", "pass"])]
    runs = [to_run(d, f"r:{i}", ".") for i, d in enumerate(recs)]
    (g,) = gate_stats(runs, 0.95)
    assert (g.recall_plausible.k, g.recall_plausible.n) == (1, 3)
    assert (g.recall_crude.k, g.recall_crude.n) == (2, 2)
    assert (g.tp, g.fn) == (3, 2)  # the overall figure mixes both
    a = pipeline.build(load.Loaded(runs=runs), None, Path("/runs/r/analysis"))
    table = tables.gates(a)
    assert table.header[-2:] == ["recall: plausible fixes", "recall: crude fixes"]
    assert table.rows[0][-2:] == ["33.3% (1/3)", "100.0% (2/2)"], table.rows
    plain = [to_run({k: v for k, v in d.items() if k != "sim"}, "r", ".") for d in recs]
    (g,) = gate_stats(plain, 0.95)
    assert g.recall_plausible is None and g.recall_crude is None  # no sim states: not split


def test_over_the_real_suite_no_visible_command_is_compileall_and_every_plausible_fix_is_plausible_as_measured():
    # Every recipe's hidden tests are project test files, so its base has one: compileall gates nothing there.
    # A plausible (or partial) wrong fix passed the visible tests and failed a FAIL_TO_PASS test when measured;
    # selftest proves the measurement on every run of the task.
    found = {rid: p for rid in recipe_paths() if (p := recipe_rules.visible_problems(load_recipe(rid)) +
                                                  recipe_rules.plausible_problems(load_recipe(rid)))}
    broken = {rid for rid, p in found.items() if any("compileall" in x or "injection" in x for x in p)}
    assert not broken, {rid: found[rid] for rid in broken}
    # The checks reject what they exist to catch, beside the good recipe.
    good = load_recipe("R62")
    assert recipe_rules.problems(good) == []
    assert recipe_rules.visible_problems(good.model_copy(update={"visible": recipe_rules.COMPILE_ONLY}))
    assert recipe_rules.visible_problems(good.model_copy(update={"visible": good.visible + " --ignore=tests.py"}))
    crude = [i.model_copy(update={"blocked_by": ["tests", "oracle"]}) if i.kind == "plausible" else i
             for i in good.injections]
    assert "yet the visible tests block it" in " ".join(recipe_rules.plausible_problems(
        good.model_copy(update={"injections": crude})))
    twice = [*good.injections, good.injections[1].model_copy(update={"name": "again"})]
    assert recipe_rules.duplicate_problems(good.model_copy(update={"injections": twice}))


def test_the_flake_check_lets_the_pass_count_differ_by_the_unjudged_tests_only():
    # R43's test_lazy (excluded: it asserts html.parser is not imported yet, so it depends on the oracle's random
    # order) flips the pass count by one between two runs while no judged outcome changes.
    first = {"failing": ["t.py::test_f2p"], "passed": 195}
    once = Judged("reference", {}, first, [], second={"failing": ["t.py::test_f2p"], "passed": 194}, unjudged=1)
    assert once.flaky() == []
    assert once.__class__(**{**once.__dict__, "unjudged": 0}).flaky() == ["passed 195 then 194"]
    twice = Judged("reference", {}, first, [], second={"failing": ["t.py::test_f2p"], "passed": 193}, unjudged=1)
    assert twice.flaky() == ["passed 195 then 193"]  # more than the unjudged tests can explain
    moved = Judged("reference", {}, first, [], second={"failing": [], "passed": 196}, unjudged=1)
    assert moved.flaky() == ["t.py::test_f2p"]  # a judged test's outcome changing is a flake, whatever is excluded
