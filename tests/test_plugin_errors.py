"""A plugin's own errors are not verdicts (SPEC.md sections 14 and 16, "Plugin errors").

- a PreToolUse decision whose reason is the plugin failing (TDD Guard's `Error during validation: ...`) is a
  plugin_error, counted apart from denials in the record and in the gates table;
- the sim tells a plugin's own model call from the agent's and answers it by the stated policy, never as an
  agent turn;
- what a plugin writes into its state folder (`.claude/<plugin>/`) is not the agent's change;
- a plugin that ships node_modules (more than MAX_FILES files) runs from a link, not a copy.
The plugin is tests/plugins/modelguard, which asks the Messages API as TDD Guard's validator does.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_harness import require_claude
from conftest import ROOT

from gatebench.analyze.gates import pretool_stats
from gatebench.cell import arms
from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize
from gatebench.cell.prep import prep
from gatebench.cell.workers import WorkerOptions, run_worker
from gatebench.sim.plugincalls import PluginCalls
from gatebench.sim.server import ApiError

MODELGUARD = ROOT / "tests" / "plugins" / "modelguard"
TDD_GUARD_ERRORS = ["Error during validation: Reached maximum number of turns (1)",
                    "Error during validation: The model did not return valid JSON: I will write the test first.",
                    "No response from model, try again"]


def _events(reasons: list[str]) -> list[dict]:
    out: list[dict] = []
    for i, why in enumerate(reasons):
        out.append({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{i}", "name": "Write", "input": {}}]}})
        out.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "is_error": True,
             "content": f"PreToolUse:Write hook error: {why}"}]}})
    return out


def test_tdd_guards_own_errors_are_plugin_errors_and_never_denials():
    real = "Premature implementation: write a failing test for add() first"
    found = arms.denials(_events([*TDD_GUARD_ERRORS, real]))
    assert [d["plugin_error"] for d in found] == [True, True, True, False]

    class Meta:
        arm = None

    fields, _ = arms.record_fields(Meta(), _events([*TDD_GUARD_ERRORS, real]))
    assert (fields["pretool_denials"], fields["pretool_plugin_errors"]) == (1, 3)
    runs = [SimpleNamespace(config="tdd-guard", pretool=tuple((d["tool"], d["reason"], d["plugin_error"])
                                                          for d in found[:k]), plugin_stop_errors=()) for k in (3, 4)]
    runs[0].plugin_stop_errors = ("Error during validation: timed out",)  # a Stop-hook block that was an error
    row = pretool_stats(runs, 0.95)["tdd-guard"]  # type: ignore[arg-type]
    assert (row.denials, row.plugin_errors, row.denied_runs, row.errors) == (1, 7, 1, 7)
    assert row.reasons == [f"1x {real}"] and "Reached maximum number of turns" in row.error_reasons[0]


def _request(cwd: str | None, text: str, system: str = "") -> dict:
    env = f"\nPrimary working directory: {cwd}\n" if cwd else ""
    return {"system": [{"type": "text", "text": system + env}], "messages": [{"role": "user", "content": text}]}


def test_a_plugins_model_call_is_told_from_the_agents_and_answered_by_the_policy(tmp_path: Path):
    pc = PluginCalls("approve", agent_cwd="/cells/c/repo")
    assert not pc.is_plugin_call(_request("/cells/c/repo", "Fix the bug"))
    tdd = _request("/cells/c/repo/.claude", 'Respond with {"decision": "block" | null, "reason": "..."}')
    assert pc.is_plugin_call(tdd) and pc.is_plugin_call(_request(None, "direct API call"))
    turn = pc.respond(tdd)
    assert json.loads(turn.content[0]["text"])["decision"] is None  # the shape the call asked for
    assert pc.respond(_request(None, "summarise")).content[0]["text"] == "OK"
    assert pc.truth() == {"policy": "approve", "calls": 2, "answered": 2}
    with pytest.raises(ApiError, match="unscorable"):
        PluginCalls("unscorable", agent_cwd="/x").respond(tdd)


def _with_node_modules(tmp_path: Path, n: int) -> Path:
    plugin = tmp_path / "modelguard"
    shutil.copytree(MODELGUARD, plugin)
    deps = tmp_path / "store" / "node_modules"  # the real folder lives beside; the plugin holds a copy of the tree
    for i in range(n):
        d = plugin / "node_modules" / f"pkg{i // 500}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.js").write_text(f"module.exports = {i}\n")
    del deps
    return plugin


def test_a_plugin_with_its_node_modules_is_accepted_and_linked_not_copied(tmp_path: Path):
    plugin = _with_node_modules(tmp_path, arms.MAX_FILES + 50)
    arm = arms.Arm("mg", plugin.resolve())
    h = arms.check(arm, [])
    copy = arms.copy_into(arm, tmp_path / "cell")
    assert (copy / "node_modules").is_symlink() and (copy / "node_modules").resolve() == plugin / "node_modules"
    assert arms.plugin_hash(copy) == h  # the tamper check holds on the copy
    assert arms.readable(arm, copy) == (copy, plugin / "node_modules")
    (copy / "hooks" / "guard.py").write_text("changed\n")
    assert arms.plugin_hash(copy) != h
    for f in range(arms.MAX_FILES + 1):  # the plugin's own files still count
        (plugin / f"x{f}").write_text("")
    with pytest.raises(Exception, match="more than"):
        arms.check(arm, [])


def _policy(tmp_path: Path, plugin_calls: str) -> str:
    p = tmp_path / f"{plugin_calls}.yaml"
    p.write_text(f"name: ref-{plugin_calls}\nfirst: {{reference: 1, inject: {{}}}}\nrun_tests: 0\n"
                 f"plugin_calls: {plugin_calls}\n")
    return str(p)


@pytest.mark.cli
@pytest.mark.parametrize("plugin_calls", ["unscorable", "approve"])
def test_modelguard_as_an_arm_under_the_real_cli(tmp_path: Path, plugin_calls: str):
    """unscorable: every decision is the plugin failing -> plugin_error, 0 denials; approve: the sim answers its
    call in its shape -> no denial, no error. Either way its state folder is not the agent's change, and the arm
    runs from a folder with node_modules (more files than a copy would take)."""
    require_claude()
    plugin = _with_node_modules(tmp_path, arms.MAX_FILES + 10)
    cell = CellPaths(tmp_path / "c")
    prep("T1", "none", cell.root, arm=arms.Arm("modelguard", plugin.resolve()))
    run_worker("sim", cell, WorkerOptions(policy=_policy(tmp_path, plugin_calls), timeout_s=240, max_turns=30,
                                          sealed=True))
    rec = finalize(cell)
    assert rec.status == "ok" and rec.config == "modelguard", rec.error
    state = cell.repo / ".claude" / "modelguard" / "data" / "decisions.jsonl"
    assert state.is_file()  # the plugin ran and wrote its state into the work copy
    worker = json.loads(cell.worker.read_text())
    calls = worker["sim"]["plugin_calls"]
    assert calls["policy"] == plugin_calls and calls["calls"] >= 1
    if plugin_calls == "unscorable":
        assert rec.pretool and all(d.plugin_error for d in rec.pretool), rec.pretool
        assert rec.pretool_denials == 0 and rec.pretool_plugin_errors == len(rec.pretool)
    else:
        assert rec.pretool == [] and calls["answered"] == calls["calls"]
        assert rec.solved  # the agent's reference fix went through: its turns were never spent on the plugin
    diff = (cell.root / "final.diff").read_text() if (cell.root / "final.diff").is_file() else ""
    assert "modelguard" not in diff and not [f for f in rec.findings if "modelguard" in json.dumps(f.model_dump())]
    events = (cell.state / "events.jsonl").read_text()
    assert rec.stops and "modelguard/data" not in events  # no stop's snapshot saw the plugin's state as a change


def test_a_plugins_stop_blocks_that_are_its_own_errors_are_counted_apart_in_an_arms_cell():
    wrapped = ("<system-reminder>\nThe text below is the output of a hook...\nStop hook feedback:\n{}\n"
               "</system-reminder>")
    events = [{"type": "user", "isSynthetic": True, "message": {"content": [{"type": "text", "text": wrapped.format(r)}]}}
              for r in ("Error during validation: Reached maximum number of turns (1)", "Write a failing test first")]
    assert [b["plugin_error"] for b in arms.stop_blocks(events)] == [True, False]

    class Arm:
        name, plugin_source, plugin_hash, plugin_name, plugin_dir = "tdd", "/x", "h", "tdd", "/nonexistent"

    class Meta:
        arm, task, rep, config = Arm(), "T1", 0, "none"

    fields, _ = arms.record_fields(Meta(), events)
    assert fields["plugin_stop_blocks"] == 1 and fields["plugin_stop_errors"] == [
        "Error during validation: Reached maximum number of turns (1)"]
    class NoArm:
        arm = None

    assert "plugin_stop_blocks" not in arms.record_fields(NoArm(), events)[0]  # a gate config's blocks are its own
