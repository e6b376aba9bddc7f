"""Bring your own gate, through the real Claude Code CLI (fake Messages API).

1. The shipped config `stop-hook` wraps a plain Stop hook script (configs/hooks/pytest_stop.py): in a
   sim bench cell it blocks the agent's first stop with that script's own reason, allows the fixed
   work, and `gatebench analyze` scores it against the oracle (TP/FP/FN/TN) like any built-in gate.
2. A wrapped hook that exits 1, prints garbage or hangs is an `error` verdict in the event line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_harness import describe_run, fake_api, require_claude, run_cli
from conftest import FIXED, gatebench_cli, state_of
from test_command_gate import hook_script

from gatebench.hook.state import read_events
from gatebench.sim.brain import brain_from_data

pytestmark = [pytest.mark.cli, pytest.mark.slow]

POLICY = """name: partial-then-fix
description: first a partial fix (it fails the visible tests), the reference after a block
first: {reference: 0, inject: {partial: 1}}
after_block: {fix: 1, repeat: 0, other: 0}
run_tests: 0
edit: 0.5
leak: 0
"""


def test_a_plain_stop_hook_benched_blocks_then_allows_and_is_scored(tmp_path):
    require_claude()
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    runs = tmp_path / "runs"
    r = gatebench_cli("matrix", "--worker", "sim", "--configs", "stop-hook", "--tasks", "T1", "--reps", "1",
                      "--policy", str(policy), "--runs-dir", str(runs), "--run-id", "byo", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| sim $" in r.stderr and "simulated dollars, never paid" in r.stdout  # progress and summary lines
    events = read_events(str(runs / "byo" / "cells" / "stop-hook" / "T1" / "r0" / "state" / "events.jsonl"))
    stops = [e for e in events if e.get("hook") == "stop"]
    assert [e["decision"] for e in stops] == ["block", "allow"]
    first, second = (e["gates"][0] for e in stops)
    assert first["kind"] == "command" and first["name"] == "pytest_stop" and first["verdict"] == "block"
    # The script's own words reach the agent.
    assert "The tests fail (pytest exit 1):" in stops[0]["reason"] and "FAILED tests/" in stops[0]["reason"]
    assert second["verdict"] == "pass" and stops[1]["oracle"]["solved"] and not stops[0]["oracle"]["solved"]
    gatebench_cli("analyze", str(runs / "byo"), "--baseline", "")
    analysis = json.loads((runs / "byo" / "analysis" / "analysis.json").read_text())
    row = next(g for g in analysis["gates"] if g["gate"] == "pytest_stop")
    assert (row["kind"], row["tp"], row["fp"], row["fn"], row["tn"], row["errors"]) == ("command", 1, 0, 0, 1, 0)
    summary = (runs / "byo" / "analysis" / "summary.md").read_text()
    assert "pytest_stop" in summary


def agent_script() -> dict:
    text = {"type": "text", "text": "Done: add is fixed."}
    write = {"type": "tool_use", "name": "Write", "input": {"file_path": "{cwd}/calc.py", "content": FIXED}}
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": "{cwd}/calc.py"}}
    return {"steps": [{"on": "start", "turns": [{"content": [read]}, {"content": [write]}, {"content": [text]}]}],
            "fallback": {"content": [text]}}


@pytest.mark.parametrize("body, needle", [
    ("sys.stderr.write('Traceback (most recent call last): boom'); sys.exit(1)", "exited 1"),
    ("print('lint ok :)')", "not JSON"),
    ("time.sleep(120)", "did not finish within 2 s"),
])
def test_a_broken_wrapped_hook_is_an_error_in_the_event(calc_repo, tmp_path, body, needle):
    require_claude()
    cfg = tmp_path / "byo.yaml"
    cfg.write_text("name: byo\ngates:\n  - kind: command\n    name: myhook\n"
                   f"    command: {json.dumps(hook_script(tmp_path, body))}\n    timeout_s: 2\n")
    gatebench_cli("install", str(calc_repo), "--config", str(cfg))
    with fake_api(brain_from_data(agent_script())) as (url, api):
        run = run_cli("Fix add in calc.py.", calc_repo, url, timeout_s=120)
        assert run.result and run.result.get("subtype") == "success", describe_run(run, api)
    stops = [e for e in read_events(str(state_of(calc_repo) / "events.jsonl"))
             if e.get("hook") == "stop"]
    assert len(stops) == 1, stops
    gate = stops[0]["gates"][0]
    assert gate["verdict"] == "error" and needle in gate["details"]["error"], gate
    assert stops[0]["decision"] == "allow" and "myhook" in stops[0]["system_message"]  # on_error open, said aloud


def test_shipped_example_is_five_lines_of_config():
    lines = [ln for ln in (Path(__file__).resolve().parents[1] / "configs" / "stop-hook.yaml").read_text().splitlines()
             if ln.strip() and not ln.lstrip().startswith(("#", "description:", "timeout_s:"))]
    assert len(lines) <= 5, lines
