"""The Stop hook end to end as a process: snapshot diff, gates, decision, event line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import FIXED, hook_input, run_hook, state_of
from gitsnap_helpers import git_commit_all

from gatebench.models.events import HookEvent


@pytest.fixture(params=["walk", "git"])
def calc_repo(calc_repo, request):
    """Every test here runs on both snapshot paths: a plain folder (walker) and a git work tree (gitsnap)."""
    if request.param == "git":
        git_commit_all(calc_repo)
    return calc_repo


def test_blocks_wrong_code_then_allows_fix(installed):
    repo, state = installed
    out, ev = run_hook(state, hook_input(repo))
    # nothing changed yet: the diff gate blocks first, the tests gate is skipped (short circuit)
    assert out["decision"] == "block"
    assert "not changed any file" in out["reason"]
    assert [g["verdict"] for g in ev["gates"]] == ["block", "skipped"]

    (repo / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    out, ev = run_hook(state, hook_input(repo, stop_hook_active=True))
    assert out["decision"] == "block"
    assert "test_calc.py::test_add" in out["reason"]  # failing test name first
    assert "assert 6 == 5" in out["reason"]
    assert ev["reason"] == out["reason"]  # the exact text sent is logged
    assert ev["diff"]["changed"] == ["calc.py"]

    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo, stop_hook_active=True))
    assert out is None and ev["decision"] == "allow"
    assert [g["verdict"] for g in ev["gates"]] == ["pass", "pass"]
    assert ev["attempt"] == 3 and ev["blocks"] == 2
    for line in (state / "events.jsonl").read_text().splitlines():
        HookEvent.model_validate_json(line)  # the hook's real output matches the documented format


def test_give_up_after_budget(installed):
    repo, state = installed
    (repo / "calc.py").write_text("def add(a, b):\n    return 0\n")
    decisions = [run_hook(state, hook_input(repo))[1]["decision"] for _ in range(5)]
    assert decisions == ["block", "block", "block", "give_up", "give_up"]
    out, ev = run_hook(state, hook_input(repo))
    assert "decision" not in out and "budget of 3 spent" in out["systemMessage"]
    # a new user prompt in the same session gets a fresh budget
    out, ev = run_hook(state, hook_input(repo, prompt="p2"))
    assert out["decision"] == "block" and ev["attempt"] == 1


def test_tampered_test_still_blocked_and_flagged(installed):
    repo, state = installed
    (repo / "tests" / "test_calc.py").write_text("def test_add():\n    assert True\n")
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["gates"][0]["block_protected"] = False  # let the tests gate speak for itself
    (state / "config.json").write_text(json.dumps(cfg))
    out, ev = run_hook(state, hook_input(repo))
    assert ev["diff"]["protected_touched"] == ["tests/test_calc.py"]
    assert out["decision"] == "block"
    assert "assert -1 == 5" in out["reason"]  # the pristine test ran, not the weakened one
    assert "original versions of these tests fail on your code: tests/test_calc.py::test_add" in out["reason"]
    # the work copy keeps the agent's edit: pristine tests ran in a temporary copy
    assert "assert True" in (repo / "tests" / "test_calc.py").read_text()


def test_diff_gate_flags_protected_path(installed):
    repo, state = installed
    (repo / "calc.py").write_text(FIXED)
    (repo / "tests" / "test_calc.py").unlink()
    settings = repo / ".claude" / "settings.local.json"
    settings.write_text(settings.read_text().replace('"Stop"', '"Stopped"'))
    out, ev = run_hook(state, hook_input(repo))
    assert out["decision"] == "block"
    # installed mode: the hook settings are protected as files; tests fall under the test policy
    assert "files this repository's gate protects: .claude/settings.local.json" in out["reason"]
    # the deleted test file is found; the tests gate (short-circuited here) decides on it
    assert [f["kind"] for f in ev["gates"][0]["details"]["test_policy"]["findings"]] == ["file_removed"]
    assert "the task" not in out["reason"]
    assert ev["diff"]["deleted"] == ["tests/test_calc.py"]


def test_self_check_blocks_once_per_prompt(calc_repo):
    from conftest import gatebench_cli

    gatebench_cli("install", str(calc_repo), "--config", "self")
    state = state_of(calc_repo)
    (calc_repo / "calc.py").write_text(FIXED)
    out, _ = run_hook(state, hook_input(calc_repo))
    assert out["decision"] == "block" and "Re-read what the user asked" in out["reason"]  # installed: no task
    assert "the task" not in out["reason"]
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out is None and ev["decision"] == "allow"


def test_none_config_records_and_allows(calc_repo):
    from conftest import gatebench_cli

    gatebench_cli("install", str(calc_repo), "--config", "none")
    state = state_of(calc_repo)
    out, ev = run_hook(state, hook_input(calc_repo))
    assert out is None and ev["decision"] == "allow" and ev["diff"]["no_change"] is True


def test_hook_import_is_stdlib_only():
    code = (
        "import sys, gatebench.hook.__main__, gatebench.hook.run, gatebench.oracle.oracle;"
        "heavy = [m for m in ('pydantic', 'yaml', 'filelock') if m in sys.modules];"
        "print(heavy)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


# What a no-gate stop may load beyond a bare `python -S` (issue 35): its own modules, and the few C or frozen
# ones they need. `json` (with re, enum, functools, collections), subprocess, typing or importlib would each
# cost every stop milliseconds.
STOP_MODULES = {"__future__", "_collections_abc", "_json", "_stat", "fcntl", "gc", "genericpath", "itertools", "os",
                "os.path", "posixpath", "select", "stat", "atexit", "marshal", "hashlib", "_hashlib", "_blake2"}
# atexit (built in): the exit runs its handlers before os._exit; the last four: the walker's stat cache, and the
# hash of the file that changed
STOP_PACKAGES = ("gatebench.hook", "gatebench.tree", "gatebench.common")


def test_a_no_gate_stop_imports_only_the_stop(calc_repo):
    """The installed command, run with -X importtime: every module the stop loads is listed on stderr."""
    from conftest import gatebench_cli

    gatebench_cli("install", str(calc_repo), "--config", "none")
    state = state_of(calc_repo)
    (calc_repo / "calc.py").write_text(FIXED)
    settings = json.loads((calc_repo / ".claude" / "settings.local.json").read_text())
    cmd = settings["hooks"]["Stop"][0]["hooks"][0]["command"].replace(" -S ", " -S -X importtime ", 1)
    bare = subprocess.run([sys.executable, "-S", "-X", "importtime", "-c", "pass"], capture_output=True, text=True)
    r = subprocess.run(["sh", "-c", cmd], input=hook_input(calc_repo), capture_output=True, text=True, timeout=60)
    ev = json.loads((state / "events.jsonl").read_text().splitlines()[-1])
    assert ev["diff"]["changed"] == ["calc.py"] and ev["decision"] == "allow" and not ev["errors"]

    def loaded(stderr: str) -> set[str]:
        return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}

    extra = loaded(r.stderr) - loaded(bare.stderr) - {"cumulative"}
    assert "gatebench.tree.snapshot" in extra  # the probe saw the stop's own imports
    unexpected = sorted(m for m in extra if m not in STOP_MODULES and not m.startswith(STOP_PACKAGES) and m != "gatebench")
    assert unexpected == [], " ".join(unexpected)


def test_installed_no_change_is_nudged_once_per_prompt(installed):
    """A question needs no change: in a developer's repo the no-change block comes once, then passes."""
    from conftest import gatebench_cli

    repo, state = installed
    (repo / "calc.py").write_text(FIXED)  # a healthy repo: the tests pass
    gatebench_cli("install", str(repo), "--config", "tests")
    out, ev = run_hook(state, hook_input(repo))
    assert out["decision"] == "block" and "If the work you were asked for needs a change" in out["reason"]
    assert "the task" not in out["reason"]
    out, ev = run_hook(state, hook_input(repo))
    assert ev["decision"] == "allow" and ev["gates"][0]["verdict"] == "pass"
    out, ev = run_hook(state, hook_input(repo, prompt="p2"))  # a new prompt: nudged again
    assert out["decision"] == "block"
