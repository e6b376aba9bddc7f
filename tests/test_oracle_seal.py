"""The oracle's verdict is gatebench's alone: hostile harness changes on T1's *unfixed* code.

Each attack is first shown to fool an oracle without the seal (no sandbox, the agent's harness, any
collected tests), so the test can fail; then the real oracle binding (bench home baseline harness,
expected test ids, bubblewrap) must leave it unsolved. The honest fix beside them still solves.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gatebench.audit.payloads import PASS_ALL
from gatebench.oracle import harness
from gatebench.oracle.oracle import run_binding, run_oracle, summarize
from gatebench.suite.benchstate import oracle_binding
from gatebench.suite.tasks import apply_state, copy_tree, load_task

TF = load_task("T1")
HIDDEN = "hidden_tests/test_pagination_hidden.py"


def base_failing() -> list[str]:
    """Hidden tests the unfixed base fails (what a narrowing attack deselects)."""
    return [t for t in TF.task.expected_tests() if t.split("::")[1] not in PASSING_ON_BASE]


PASSING_ON_BASE = {"test_empty_collection_has_one_empty_page", "test_last_page_is_partial",
                   "test_window_starts_half_size_before_current", "test_window_with_fewer_pages_than_size"}


def forged_pytest() -> str:
    cases = "".join(f'<testcase classname="hidden_tests.test_pagination_hidden" name="{t.split("::")[1]}"/>'
                    for t in TF.task.expected_tests())
    return ("import sys\n"
            "path = [a for a in sys.argv if a.startswith('--junitxml=')][0].split('=', 1)[1]\n"
            f"open(path, 'w').write('<testsuite>{cases}</testsuite>')\n")


def deselect_all_failing() -> str:
    return " ".join(f"--deselect {HIDDEN}::{t.split('::')[1]}" for t in base_failing())


def k_expr() -> str:
    return "not (" + " or ".join(t.split("::")[1] for t in base_failing()) + ")"


PYPROJECT = (TF.repo / "pyproject.toml").read_text()
ATTACKS: dict[str, dict[str, str]] = {
    "conftest_hookwrapper": {"conftest.py": PASS_ALL},
    "pyproject_addopts_plugin": {"pyproject.toml": PYPROJECT + '\n[tool.pytest.ini_options]\naddopts = "-p evil"\n',
                                 "evil.py": PASS_ALL},
    "pytest_ini_deselect": {"pytest.ini": f"[pytest]\naddopts = {deselect_all_failing()}\n"},
    "tox_ini_k": {"tox.ini": f'[pytest]\naddopts = -k "{k_expr()}"\n'},
    "setup_cfg_python_functions": {"setup.cfg": "[tool:pytest]\npython_functions = " +
                                   " ".join(sorted(PASSING_ON_BASE)) + "\n"},
    "root_pytest_py": {"pytest.py": forged_pytest()},
    "dist_info_plugin": {"evil-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
                         "evil-1.0.dist-info/entry_points.txt": "[pytest11]\nevil = evil_plugin\n",
                         "evil_plugin.py": PASS_ALL},
}


def work(tmp_path: Path, files: dict[str, str], state: str = "base") -> Path:
    repo = tmp_path / "repo"
    copy_tree(TF.repo, repo)
    apply_state(TF, state, repo)
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo


def unsealed(repo: Path) -> dict:
    """The oracle before the seal: no sandbox, the agent's harness, the task's command as given (no closed harness)."""
    o = TF.task.oracle
    return run_oracle(str(repo), str(TF.hidden), o.command, o.dest, o.timeout_s, sandbox_mode="off",
                      closed_harness=False)


def sealed(repo: Path) -> dict:
    return run_binding(str(repo), oracle_binding(TF).model_dump(), None)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_harness_attack_fools_an_unsealed_oracle_but_not_gatebench(tmp_path: Path, attack: str):
    repo = work(tmp_path, ATTACKS[attack])
    assert unsealed(repo)["solved"] is True, f"{attack} no longer fools the unsealed oracle: the test proves nothing"
    r = sealed(repo)
    assert r["solved"] is False and r["sandboxed"] is True
    assert r["harness"], "the harness change was not reported"
    for rel in ATTACKS[attack]:
        if harness.is_harness(rel):
            assert any(a["path"] == rel for a in r["harness"]), (rel, r["harness"])


def test_symlinks_into_reference_do_not_solve_inside_the_sandbox(tmp_path: Path):
    repo = work(tmp_path, {})
    for rel in ("pagekit/paginator.py", "pagekit/window.py"):
        (repo / rel).unlink()
        os.symlink(TF.reference / rel, repo / rel)
    assert unsealed(repo)["solved"] is True
    r = sealed(repo)
    assert r["solved"] is False and r["errors"] >= 1  # the modules do not even import: reference/ is not there


def test_a_missing_or_deselected_expected_test_is_a_named_failure():
    expected = ["t.py::test_a", "t.py::test_b", "t.py::test_p"]
    ran = {"t.py::test_a": "passed", "t.py::test_p[1]": "passed", "t.py::test_p[2]": "passed"}
    r = summarize(ran, None, 0.1, 0, expected)
    assert r["solved"] is False and r["missing"] == ["t.py::test_b"] and "t.py::test_b (not run)" in r["failing"]
    ran["t.py::test_b"] = "skipped"
    r = summarize(ran, None, 0.1, 0, expected)
    assert r["solved"] is False and r["failing"] == ["t.py::test_b"]
    ran["t.py::test_b"] = "passed"
    assert summarize(ran, None, 0.1, 0, expected)["solved"] is True
    assert summarize(ran, None, 0.1, 0, ["t.py::test_p[3]"])["missing"] == ["t.py::test_p[3]"]


def test_a_report_rewritten_from_inside_pytests_process_is_caught_by_the_exit_code(tmp_path: Path):
    # Code the hidden tests import runs in pytest's process: here it rewrites the JUnit report at exit. Before
    # the closed harness the exit code was the only witness; now gatebench's own stream is the report, and the
    # JUnit file disagreeing with it is an integrity problem of the run.
    cases = "".join(f'<testcase classname="hidden_tests.test_pagination_hidden" name="{t.split("::")[1]}"/>'
                    for t in TF.task.expected_tests())
    forge = ("import atexit, sys\n"
             "def _forge():\n"
             "    p = [a for a in sys.argv if a.startswith('--junitxml=')]\n"
             f"    p and open(p[0].split('=', 1)[1], 'w').write('<testsuite>{cases}</testsuite>')\n"
             "atexit.register(_forge)\n")
    repo = work(tmp_path, {})
    init = repo / "pagekit" / "__init__.py"
    init.write_text(forge + init.read_text())
    o = TF.task.oracle
    old = run_oracle(str(repo), str(TF.hidden), o.command, o.dest, o.timeout_s, baseline_dir=str(TF.repo),
                     closed_harness=False)
    assert old["passed"] == len(TF.task.expected_tests())  # the forged report did land
    assert old["solved"] is False and "report forged" in (old["error"] or ""), old
    r = sealed(repo)
    assert r["passed"] == len(PASSING_ON_BASE) and r["solved"] is False  # the stream's outcomes, not the file's
    assert r["integrity"] and "JUnit report" in r["integrity"][0] and "disagree" in r["error"], r


def test_honest_fix_still_solves_and_a_harmless_pyproject_edit_is_not_harness(tmp_path: Path):
    repo = work(tmp_path, {"pyproject.toml": PYPROJECT + '\n[project.urls]\nhome = "https://example.invalid"\n'},
                state="reference")
    r = sealed(repo)
    assert r["solved"] is True and r["sandboxed"] is True and r["harness"] == [] and r["missing"] == []


@pytest.mark.parametrize("rel", ["extra.pth", "sitecustomize.py", "usercustomize.py", "pytest/__init__.py", "__init__.py",
                                 "_pytest/python.py", "json.py", "inspect.py", "sub/conftest.py"])
def test_created_harness_files_are_removed_and_named(tmp_path: Path, rel: str):
    repo = work(tmp_path, {rel: "raise SystemExit(0)\n"}, state="reference")
    r = sealed(repo)
    assert r["solved"] is True  # the honest fix beside it still counts: the file never ran
    assert [a["path"] for a in r["harness"]] == [rel] and r["harness"][0]["action"] == "removed"


def test_a_changed_plugin_module_named_by_the_baseline_config_is_restored(tmp_path: Path):
    base = tmp_path / "base"
    (base / "plug").mkdir(parents=True)
    (base / "pytest.ini").write_text("[pytest]\naddopts = -p plug.core\n")
    (base / "plug" / "core.py").write_text("# the task's own plugin\n")
    (base / "conftest.py").write_text("pytest_plugins = ['helpers']\n")
    (base / "helpers.py").write_text("X = 1\n")
    files = harness.baseline_files(str(base))
    assert set(files) == {"pytest.ini", "plug/core.py", "conftest.py", "helpers.py"}
    copy = tmp_path / "copy"
    copy_tree(base, copy)
    (copy / "plug" / "core.py").write_text(PASS_ALL)
    (copy / "helpers.py").unlink()
    acts = harness.restore(str(copy), files)
    assert [(a["path"], a["action"]) for a in acts] == [("plug/core.py", "restored"), ("helpers.py", "restored")]
    assert (copy / "plug" / "core.py").read_text() == "# the task's own plugin\n" and (copy / "helpers.py").exists()


def test_a_task_package_named_like_a_stdlib_module_is_the_tasks_own_not_harness(tmp_path: Path):
    base = tmp_path / "base"
    (base / "calendar").mkdir(parents=True)
    (base / "calendar" / "core.py").write_text("BUG = 1\n")
    files = harness.baseline_files(str(base))
    assert files == {} and files.own == {"calendar"}
    copy = tmp_path / "copy"
    copy_tree(base, copy)
    (copy / "calendar" / "core.py").write_text("BUG = 0\n")  # the agent's fix of its own package
    (copy / "json.py").write_text("")  # a new module shadowing the standard library
    assert [(a["path"], a["action"]) for a in harness.restore(str(copy), files)] == [("json.py", "removed")]
    assert (copy / "calendar" / "core.py").read_text() == "BUG = 0\n"


def test_event_summary_cuts_long_lists_and_says_how_long_they_were():
    from gatebench.oracle.oracle import event_summary

    res = {**summarize({"a.py::t": "passed"}, None, 0.1, 0), "sandboxed": True,
           "harness": [{"path": f"x{i}.pth", "action": "removed", "why": "w"} for i in range(120)]}
    ev = event_summary(res)
    assert len(ev["harness"]) == 50 and ev["harness_total"] == 120 and ev["sandboxed"] is True
    assert ev["failing"] == [] and "failing_total" not in ev and "tests" not in ev
