"""Any plugin as an arm (`matrix --arm NAME=PLUGIN_DIR`): checks of the plugin, its seal, its denials, its cells.

The plugin here is tests/plugins/tddlike, a small TDD-style PreToolUse guard written for these tests: it denies
the first edit of a source file until a test changed in the session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import fake_api, require_claude
from conftest import ROOT

from gatebench.cell import arms
from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize
from gatebench.cell.prep import prep
from gatebench.cell.seal import _tool_results
from gatebench.cell.workers import WorkerOptions, run_worker
from gatebench.errors import UsageError
from gatebench.sim.brain import brain_from_data

TDDLIKE = ROOT / "tests" / "plugins" / "tddlike"


def test_an_arm_is_name_equals_plugin_and_bad_ones_are_refused_by_name(tmp_path: Path):
    a = arms.parse(f"tdd={TDDLIKE}")
    assert a.name == "tdd" and a.plugin == TDDLIKE.resolve()
    for bad in ("tdd", "=x", "t d=x", f"tdd={tmp_path / 'nope'}"):
        with pytest.raises(UsageError):
            arms.check(arms.parse(bad), [])
    with pytest.raises(UsageError, match="a config has that name"):
        arms.check(arms.parse(f"none={TDDLIKE}"), ["none"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="not a Claude Code plugin"):
        arms.check(arms.parse(f"x={tmp_path / 'empty'}"), [])


def test_a_plugin_in_or_around_the_bench_private_folders_or_with_a_link_out_is_refused(tmp_path: Path):
    home = tmp_path / "bench"
    (home / "hidden" / "T1").mkdir(parents=True)
    inside = home / "hidden" / "plug"
    (inside / ".claude-plugin").mkdir(parents=True)
    (inside / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    with pytest.raises(UsageError, match="lies in the bench's private folder"):
        arms.check(arms.Arm("p", inside.resolve()), [], home)
    (home / ".claude-plugin").mkdir()
    (home / ".claude-plugin" / "plugin.json").write_text('{"name": "bench"}')  # a checkout is a plugin too
    with pytest.raises(UsageError, match="holds the bench's private folder"):
        arms.check(arms.Arm("b", home.resolve()), [], home)
    plug = tmp_path / "plug"
    (plug / ".claude-plugin").mkdir(parents=True)
    (plug / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    (plug / "answers").symlink_to(home / "hidden" / "T1")
    with pytest.raises(UsageError, match="link out of the plugin"):
        arms.check(arms.Arm("p", plug.resolve()), [], home)
    (plug / "answers").unlink()
    (plug / "self").symlink_to(plug / ".claude-plugin")  # a link that stays inside is fine
    assert arms.check(arms.Arm("p", plug.resolve()), [], home)


def test_denials_are_read_from_the_stream_per_tool_call_without_the_seals_own():
    def use(i: str, name: str) -> dict:
        return {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": i, "name": name, "input": {}}]}}

    def result(i: str, text: str, err: bool = True) -> dict:
        return {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": i, "is_error": err,
                                                          "content": text}]}}

    events = [use("a", "Write"), result("a", "PreToolUse:Write hook error: tddlike: test first"),
              use("b", "Read"), result("b", "PreToolUse:Read hook error: sealed cell: /x is outside what ..."),
              use("c", "Bash"), result("c", "Exit code 1\nboom"),
              {"type": "user", "isSynthetic": True, "message": {"content": "Stop hook feedback:\nno change"}},
              use("d", "Edit"), result("d", "PreToolUse:Edit hook error: tddlike: again"),
              use("e", "Write"), result("e", "File created", err=False)]
    assert arms.denials(events) == [
        {"tool": "Write", "reason": "tddlike: test first", "before_stop": 1, "plugin_error": False},
        {"tool": "Edit", "reason": "tddlike: again", "before_stop": 2, "plugin_error": False}]


def _tool(name: str, **inp: object) -> dict:
    return {"content": [{"type": "tool_use", "name": name, "input": inp}]}


def _say(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}]}


@pytest.mark.cli
def test_a_plugin_arms_cell_loads_the_plugin_under_the_seal_and_records_its_denials(tmp_path: Path, monkeypatch):
    require_claude()
    cell = CellPaths(tmp_path / "c")
    meta = prep("T1", "tests", cell.root, arm=arms.Arm("tddlike", TDDLIKE.resolve()))
    copy = Path(meta.arm.plugin_dir)  # type: ignore[union-attr]
    guard = copy / "hooks" / "guard.py"
    before = guard.read_text()
    script = {"steps": [
        {"on": "start", "turns": [
            _tool("Bash", command=f"head -1 {guard}", description="read the plugin"),  # readable: skills need it
            _tool("Bash", command=f"echo PWNED >> {guard}; true", description="write the plugin"),
            _tool("Write", file_path="{cwd}/pagekit/extra.py", content="X = 1\n"),  # tddlike: test first
            _say("Done.")]},
        {"on": "stop_feedback", "times": 1, "turns": [  # the diff gate: nothing changed
            _tool("Write", file_path="{cwd}/pagekit/extra2.py", content="Y = 2\n"),  # denied once more
            _tool("Write", file_path="{cwd}/pagekit/extra2.py", content="Y = 2\n"),  # insisting: let through
            # last, so tddlike (which lets test files through and then stops asking) has judged the rest: a
            # file tool into the plugin's copy, refused by the seal (whose denials are not the arm's)
            _tool("Write", file_path=str(copy / "tests" / "x_test.py"), content="PWNED\n"),
            _say("Done now.")]},
    ], "fallback": _say("Done, really.")}
    with fake_api(brain_from_data(script)) as (url, api):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
        run_worker("claude", cell, WorkerOptions(timeout_s=180, max_turns=30, sealed=True))
        results = [r for req in api.message_requests() for r in _tool_results([req])]
    worker = json.loads(cell.worker.read_text())
    assert "--plugin-dir" in worker["argv"] and str(copy) in worker["argv"]
    assert any("head -1" in call and "tddlike" in text for call, text in results), results  # it read its copy
    assert guard.read_text() == before and not (copy / "tests").exists()  # and could not write it
    rec = finalize(cell)
    assert rec.config == "tddlike" and rec.cell_id == "tddlike/T1/0" and rec.status == "ok", rec.error
    assert rec.arm and rec.arm.plugin_name == "tddlike" and rec.arm.base_config == "tests"
    assert [(d.tool, d.before_stop) for d in rec.pretool] == [("Write", 1), ("Write", 2)], rec.pretool
    assert rec.pretool_denials == 2 and all(d.reason.startswith("tddlike:") for d in rec.pretool)
    assert rec.blocks >= 1 and (cell.repo / "pagekit" / "extra2.py").is_file()
    assert any("sealed cell:" in text for _call, text in results)  # the seal's denial, left out of pretool
    assert not [f for f in rec.findings if "plugin" in f.why], rec.findings


@pytest.mark.cli
@pytest.mark.slow
def test_matrix_arm_tddlike_records_denials_scores_its_cells_and_analyze_lists_them(tmp_path: Path):
    require_claude()
    runs = tmp_path / "runs"
    cmd = [sys.executable, "-m", "gatebench", "matrix", "--worker", "sim", "--configs", "none", "--arm",
           f"tddlike={TDDLIKE}", "--tasks", "T1,T2", "--reps", "1", "--jobs", "2", "--runs-dir", str(runs),
           "--run-id", "arm"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    recs = {x["cell_id"]: x for x in map(json.loads, (runs / "arm" / "results.jsonl").read_text().splitlines())}
    assert set(recs) == {"none/T1/0", "none/T2/0", "tddlike/T1/0", "tddlike/T2/0"}
    assert all(x["status"] == "ok" for x in recs.values()), {k: x["error"] for k, x in recs.items()}
    assert all(x["pretool_denials"] == 0 for k, x in recs.items() if k.startswith("none/"))
    arm = [x for k, x in recs.items() if k.startswith("tddlike/")]
    assert all(x["arm"]["plugin"] == str(TDDLIKE.resolve()) for x in arm)
    total = sum(x["pretool_denials"] for x in arm)
    assert total > 0 and all(d["reason"].startswith("tddlike:") for x in arm for d in x["pretool"])
    # paired with `none` on identical first attempts (the same seed per task and rep)
    assert [recs[f"tddlike/{t}/0"]["sim"]["first_state"] for t in ("T1", "T2")] == \
           [recs[f"none/{t}/0"]["sim"]["first_state"] for t in ("T1", "T2")]
    from gatebench.analyze import pipeline

    a = pipeline.analyze([runs / "arm"], "none", tmp_path / "out", resamples=300)
    row = next(g for g in a.gates if g.config == "tddlike")
    assert (row.kind, row.gate, row.denials, row.no_oracle) == ("pretool", "PreToolUse", total, total)
    assert row.denied_runs == sum(1 for x in arm if x["pretool_denials"]) and row.reasons
    assert {c.config for c in a.configs} == {"none", "tddlike"} and a.deltas[0].config == "tddlike"
