"""The hook under the real Claude Code CLI, talking to the fake Messages API (no imitation of the CLI)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_harness import bash, describe_run, fake_api, read, run_cli, say, write
from conftest import FIXED, ROOT, gatebench_cli, state_of

from gatebench.sim.brain import brain_from_data, stop_feedback

WRONG = "def add(a, b):\n    return a * b\n"


def wrong_then_right() -> dict:
    return {
        "steps": [
            {"on": "start", "turns": [read("calc.py"), write("calc.py", WRONG), say("I fixed add. Done.")]},
            {"on": "stop_feedback", "contains": "test_calc.py::test_add",
             "turns": [write("calc.py", FIXED), say("Fixed for real now.")]},
        ]
    }


def events(state: Path) -> list[dict]:
    return [json.loads(x) for x in (state / "events.jsonl").read_text().splitlines()]


def stops(state: Path) -> list[dict]:
    return [e for e in events(state) if e["hook"] == "stop"]


def feedbacks(api) -> list[str]:
    return [f for f in (stop_feedback(r["body"]) for r in api.message_requests()) if f is not None]


def check_block_then_allow(run, api, state, repo):
    assert run.result and run.result["subtype"] == "success", describe_run(run, api)
    fb = feedbacks(api)
    assert fb and "test_calc.py::test_add" in fb[0] and "assert 6 == 5" in fb[0], describe_run(run, api)
    s = stops(state)
    assert [e["decision"] for e in s] == ["block", "allow"]
    assert s[0]["reason"].strip() in fb[0]  # what the agent read is exactly what the hook logged
    assert (repo / "calc.py").read_text() == FIXED


def test_install_block_then_allow_through_real_cli(calc_repo, claude_bin):
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    state = state_of(calc_repo)
    with fake_api(brain_from_data(wrong_then_right())) as (url, api):
        run = run_cli("Fix calc.add so the tests pass.", calc_repo, url)
    check_block_then_allow(run, api, state, calc_repo)
    starts = [e for e in events(state) if e["hook"] == "session_start"]
    assert len(starts) == 1 and starts[0]["baseline"]["files"] >= 3  # SessionStart took this session's baseline
    assert (state / "sessions" / f"{stops(state)[0]['session_id']}.manifest.json").exists()


def test_plugin_dir_block_then_allow(calc_repo, claude_bin):
    gatebench_cli("install", str(calc_repo), "--config", "tests", "--no-settings")
    assert not (calc_repo / ".claude" / "settings.json").exists()
    assert not (calc_repo / ".claude" / "settings.local.json").exists()
    state = state_of(calc_repo)
    with fake_api(brain_from_data(wrong_then_right())) as (url, api):
        # The plugin's hook finds the per-user state dir from CLAUDE_PROJECT_DIR and XDG_STATE_HOME.
        run = run_cli("Fix calc.add so the tests pass.", calc_repo, url, extra_args=["--plugin-dir", str(ROOT)],
                      extra_env={"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]})
    check_block_then_allow(run, api, state, calc_repo)


@pytest.mark.parametrize("tool_between", [False, True])
def test_give_up_after_budget(calc_repo, claude_bin, tool_between):
    """Claude Code's own cap does not hold when a tool call comes between blocks; our budget must end it."""
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    state = state_of(calc_repo)
    again = [bash("echo trying again"), say("Done again.")] if tool_between else [say("Done again.")]
    script = {"steps": [
        {"on": "start", "turns": [read("calc.py"), write("calc.py", WRONG), say("Done.")]},
        {"on": "stop_feedback", "times": 50, "turns": again},
    ]}
    with fake_api(brain_from_data(script)) as (url, api):
        run = run_cli("Fix calc.add.", calc_repo, url, timeout_s=90)
    assert not run.timed_out and run.result and run.result["subtype"] == "success", describe_run(run, api)
    assert [e["decision"] for e in stops(state)] == ["block", "block", "block", "give_up"]
    notices = [e for e in run.events if e.get("type") == "system" and "budget of 3 spent" in json.dumps(e)]
    assert notices, "give_up must warn the user through systemMessage"
    assert len(feedbacks(api)) == 3


def test_edited_visible_test_is_still_blocked(calc_repo, claude_bin, tmp_path):
    cfg = tmp_path / "strict.yaml"
    cfg.write_text("name: strict\nshort_circuit: false\ngates:\n  - kind: diff\n  - kind: tests\n")
    gatebench_cli("install", str(calc_repo), "--config", str(cfg))
    state = state_of(calc_repo)
    weakened = "def test_add():\n    assert True\n"
    script = {"steps": [
        {"on": "start", "turns": [read("tests/test_calc.py"), write("tests/test_calc.py", weakened),
                                  say("Tests pass now.")]},
        {"on": "stop_feedback", "turns": [say("I see.")]},
    ]}
    with fake_api(brain_from_data(script)) as (url, api):
        run = run_cli("Make the tests pass.", calc_repo, url)
    first = stops(state)[0]
    assert first["diff"]["protected_touched"] == ["tests/test_calc.py"]
    verdicts = {g["name"]: g["verdict"] for g in first["gates"]}
    assert verdicts == {"diff": "pass", "tests": "block"}, describe_run(run, api)  # the tests gate decides weakening
    assert "assert -1 == 5" in feedbacks(api)[0]  # the pristine test ran against the unfixed code
