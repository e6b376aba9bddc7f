"""The installed test policy through the hook process (fast; the real-CLI runs are in test_installed_semver.py)."""

from __future__ import annotations

from conftest import FIXED, TEST, gatebench_cli, hook_input, run_hook, state_of

FLIP = '''import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
'''


def install(repo, tmp_path, gates="  - kind: diff\n  - kind: tests\n"):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"name: cfg\ngates:\n{gates}")
    gatebench_cli("install", str(repo), "--config", str(cfg))
    return state_of(repo)


def test_a_conftest_that_flips_failures_cannot_pass_the_tests_gate(calc_repo, tmp_path):
    state = install(calc_repo, tmp_path, gates="  - kind: tests\n")
    (calc_repo / "conftest.py").write_text(FLIP)
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out["decision"] == "block", ev
    gate = ev["gates"][0]
    assert gate["details"]["weakened_restored"] == ["conftest.py"]
    assert "original versions of these tests fail on your code: tests/test_calc.py::test_add" in out["reason"]
    out, ev = run_hook(state, hook_input(calc_repo))  # the same again: its original still fails, so blocked again
    assert out["decision"] == "block" and "original versions of these tests fail" in out["reason"]
    # beside it: with the real fix the originals pass; the conftest is still named once, then the user is told
    (calc_repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out["decision"] == "block" and "fail on your code" not in out["reason"], out
    assert "conftest.py: test harness changed" in out["reason"]
    out, ev = run_hook(state, hook_input(calc_repo))
    assert ev["decision"] == "allow" and "conftest.py" in out["systemMessage"]


def test_regression_test_added_beside_a_fix_passes_and_runs(calc_repo, tmp_path):
    state = install(calc_repo, tmp_path)
    (calc_repo / "tests" / "test_calc.py").write_text(TEST + "\n\ndef test_add_negative():\n    assert add(-1, -1) == -2\n")
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out["decision"] == "block" and "test_add_negative" in out["reason"]  # the new test ran, and failed
    assert "You weakened" not in out["reason"]
    (calc_repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out is None and ev["decision"] == "allow"
    assert "2 passed" in ev["gates"][1]["details"]["output_tail"]


def test_kept_weakening_passes_once_told_and_is_remembered_across_prompts(calc_repo, tmp_path):
    state = install(calc_repo, tmp_path)
    (calc_repo / "calc.py").write_text(FIXED)
    weakened = TEST.replace("assert add(2, 3) == 5", "assert add(2, 3) == 5 or True")
    (calc_repo / "tests" / "test_calc.py").write_text(weakened)
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out["decision"] == "block"
    assert "- tests/test_calc.py::test_add: assertion removed or loosened: `assert add(2, 3) == 5`" in out["reason"]
    out, ev = run_hook(state, hook_input(calc_repo))  # stopped again, unchanged: the user asked for it
    assert out == {"systemMessage": ev["system_message"]} and ev["decision"] == "allow"
    assert "tests/test_calc.py::test_add: assertion removed or loosened" in out["systemMessage"]
    out, ev = run_hook(state, hook_input(calc_repo, prompt="p2"))  # a new prompt keeps the acceptance
    assert ev["decision"] == "allow" and "test_add" in out["systemMessage"]
    # a different weakening is a new question: blocked once again
    (calc_repo / "tests" / "test_calc.py").write_text(weakened.replace("def test_add", "def test_add_x"))
    out, ev = run_hook(state, hook_input(calc_repo, prompt="p2"))
    assert out["decision"] == "block" and "tests/test_calc.py::test_add: test removed" in out["reason"]


def test_a_test_file_replaced_by_a_symlink_is_named_not_followed(calc_repo, tmp_path):
    state = install(calc_repo, tmp_path)
    (calc_repo / "calc.py").write_text(FIXED)
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("def test_add():\n    assert True\n")
    target = calc_repo / "tests" / "test_calc.py"
    target.unlink()
    target.symlink_to(elsewhere)
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out["decision"] == "block" and "tests/test_calc.py: test code removed or changed" in out["reason"]
    assert ev["gates"][0]["details"]["test_policy"]["errors"] == []
