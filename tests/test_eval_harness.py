"""The plugin-eval harness in-process (its real-CLI proofs are in test_plugin_eval_cli.py): the scaffold lays out a
run, a stop the gate allows gets the oracle's verdict, written last and over whatever the agent put there."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gatebench.models.plugineval import VERDICT_FILE
from gatebench.plugineval import eval_harness as eh
from gatebench.plugineval.plugineval import ExportSpec, export


@pytest.fixture(autouse=True)
def _keep_tmpdir(monkeypatch):
    """The harness points TMPDIR (and tempfile's cache) at the run's private tmp: undo it after each test."""
    import tempfile

    # setenv records the old state, an absent variable included (delenv of an absent one records nothing, and the
    # harness's TMPDIR would then leak into every later test: the matrix's fork server socket path grows too long)
    monkeypatch.setenv("TMPDIR", os.environ.get("TMPDIR") or tempfile.gettempdir())
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)  # as Claude Code sets it for the hook, never here


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    out = tmp_path / "suite"
    export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["none", "tests"], out=out, runs=1))
    return out


def stdin(cwd: Path, attempt_prompt: str = "p1") -> str:
    return json.dumps({"session_id": "s1", "cwd": str(cwd), "prompt_id": attempt_prompt, "hook_event_name": "Stop",
                       "stop_hook_active": False, "last_assistant_message": "Done."})


def test_scaffold_lays_out_the_task_and_a_private_run_folder(suite: Path, tmp_path: Path):
    cwd = tmp_path / "run" / "home" / "cwd"
    cwd.mkdir(parents=True)
    private = str(suite / ".gatebench")
    rd = Path(eh.scaffold(private, "none", "T1", str(cwd)))
    assert (cwd / "pagekit").is_dir() and (cwd / ".git").is_dir()
    assert rd == Path(eh.run_dir(private, "none", str(cwd))) and (rd / "state" / "config.json").is_file()
    doc = json.loads((rd / "state" / "config.json").read_text())
    assert doc["repo"] == os.path.realpath(cwd) and doc["state_dir"] == str(rd / "state")
    run = json.loads((rd / "run.json").read_text())
    assert (run["task"], run["config"], run["stops"], run["verdict"]) == ("T1", "none", [], None)
    other = tmp_path / "busy"
    other.mkdir()
    (other / "x").write_text("x")
    with pytest.raises(RuntimeError, match="not empty"):
        eh.scaffold(private, "none", "T1", str(other))


def test_an_allowed_stop_gets_the_oracles_verdict_over_the_agents_own(suite: Path, tmp_path: Path):
    cwd = tmp_path / "run" / "home" / "cwd"
    cwd.mkdir(parents=True)
    private = str(suite / ".gatebench")
    eh.scaffold(private, "none", "T1", str(cwd))
    tpl = json.loads((suite / ".gatebench" / "cases" / "none" / "T1.json").read_text())
    # the agent writes a verdict with the real tokens (as if leaked), and a link at the name for good measure
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("untouched\n")
    (cwd / VERDICT_FILE).symlink_to(elsewhere)
    out = eh.stop(private, "none", stdin(cwd))
    assert out is None or "decision" not in out  # none never blocks
    text = (cwd / VERDICT_FILE).read_text()
    assert not (cwd / VERDICT_FILE).is_symlink() and elsewhere.read_text() == "untouched\n"
    assert f"verdict: {tpl['verdict_token']}" in text and "solved: false" in text
    assert tpl["solved_token"] not in text  # the base repo fails the hidden tests
    run = json.loads((Path(eh.run_dir(private, "none", str(cwd))) / "run.json").read_text())
    assert run["verdict"]["solved"] is False and run["verdict"]["written"] is True
    assert run["stops"][0]["decision"] == "allow" and run["stops"][0]["oracle_solved"] is False


def test_a_solved_tree_gets_the_solved_token(suite: Path, tmp_path: Path):
    from gatebench.suite.tasks import load_task, overlay

    cwd = tmp_path / "run" / "home" / "cwd"
    cwd.mkdir(parents=True)
    private = str(suite / ".gatebench")
    eh.scaffold(private, "none", "T1", str(cwd))
    overlay(load_task("T1").reference, cwd)
    eh.stop(private, "none", stdin(cwd))
    tpl = json.loads((suite / ".gatebench" / "cases" / "none" / "T1.json").read_text())
    assert f"solved: true {tpl['solved_token']}" in (cwd / VERDICT_FILE).read_text()


def test_a_blocked_stop_writes_no_verdict_and_a_run_never_scaffolded_says_so(suite: Path, tmp_path: Path):
    cwd = tmp_path / "run" / "home" / "cwd"
    cwd.mkdir(parents=True)
    private = str(suite / ".gatebench")
    eh.scaffold(private, "tests", "T1", str(cwd))
    out = eh.stop(private, "tests", stdin(cwd))  # nothing changed: the diff gate blocks
    assert out and out["decision"] == "block" and not (cwd / VERDICT_FILE).exists()
    bare = tmp_path / "bare"
    bare.mkdir()
    out = eh.stop(private, "tests", stdin(bare))
    assert out and "not scaffolded" in out["systemMessage"] and not (bare / VERDICT_FILE).exists()


def test_a_folder_at_the_verdicts_name_means_no_verdict_and_the_stop_is_still_decided(suite: Path, tmp_path: Path):
    cwd = tmp_path / "run" / "home" / "cwd"
    cwd.mkdir(parents=True)
    private = str(suite / ".gatebench")
    eh.scaffold(private, "none", "T1", str(cwd))
    (cwd / VERDICT_FILE).mkdir()
    out = eh.stop(private, "none", stdin(cwd))
    assert out and "no verdict written" in out["systemMessage"]
    run = json.loads((Path(eh.run_dir(private, "none", str(cwd))) / "run.json").read_text())
    assert run["verdict"]["written"] is False and run["verdict"]["solved"] is False


def test_the_script_entry_point_reads_stdin_and_answers_in_json(suite: Path, tmp_path: Path, monkeypatch, capsys):
    import io

    bare = tmp_path / "bare"
    bare.mkdir()
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin(bare)))
    assert eh.main(["stop", str(suite / ".gatebench"), "none"]) == 0
    assert "not scaffolded" in json.loads(capsys.readouterr().out)["systemMessage"]
    assert eh.main(["bogus"]) == 2
