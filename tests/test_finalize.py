"""finalize: metrics read once per message, statuses, the gate-never-ran rule, leak and tamper scans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import hook_input, run_hook

import gatebench.cell.finalize as finalize_mod
from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize, never_worked, status_of, stop_records
from gatebench.cell.leaks import scan
from gatebench.cell.prep import prep
from gatebench.cell.stream import stream_metrics
from gatebench.cell.transcript import transcript_metrics
from gatebench.common.util import read_jsonl
from gatebench.models.result import ResultRecord
from gatebench.paths import project_root
from gatebench.suite.tasks import apply_state, load_task

# Output of the real CLI (2.1.332), copied from ../shared/claude-code/ so the suite reads nothing outside the repo.
CAPTURES = Path(__file__).resolve().parent / "captures"
ROOT = project_root()


def capture(name: str) -> list[dict]:
    events, bad = read_jsonl(CAPTURES / name)
    assert events and not bad, f"capture {name} is missing or damaged"
    return events


# ---------------------------------------------------------------- metrics from the real CLI's captured output


def test_stream_metrics_count_calls_once_and_take_tokens_from_the_result():
    events = capture("example-stream-json-output.jsonl")
    m = stream_metrics(events)
    assert m["tool_calls"] == {"Write": 1}
    assert m["api_requests"] == 3 and m["blocks_seen"] == 1 and m["tool_errors"] == 0
    assert m["result"]["usage"]["output_tokens"] == 127
    naive = sum(e["message"]["usage"]["output_tokens"] for e in events if e.get("type") == "assistant")
    assert naive != 127, "assistant events repeat message_start usage: summing them is wrong"


def test_transcript_usage_once_per_message_id_equals_the_cli_totals():
    m = transcript_metrics(capture("example-transcript.jsonl"))
    result = stream_metrics(capture("example-stream-json-output.jsonl"))["result"]
    assert m["usage"]["input_tokens"] == result["usage"]["input_tokens"] == 8452
    assert m["usage"]["output_tokens"] == result["usage"]["output_tokens"] == 127
    assert m["api_requests"] == 3 and m["tool_calls"] == 1 and m["stop_hook_runs"] == 2


# ---------------------------------------------------------------- status rules (pure)

RESULT_OK = {"type": "result", "subtype": "success", "is_error": False, "terminal_reason": "completed"}


def sm(result: dict | None = RESULT_OK, blocks: int = 0) -> dict:
    return {"result": result, "blocks_seen": blocks}


def stop(attempt: int, judged: bool = True, gates: list | None = None) -> dict:
    return {"attempt": attempt, "judged": judged, "errors": [] if judged else ["no baseline snapshot"],
            "gates": gates or []}


WORKER = {"rc": 0, "wall_s": 1.0}


def test_status_rules():
    assert status_of(None, sm(), [], "")[0] == "infra_error"
    assert status_of({**WORKER, "error": "cannot start"}, sm(), [], "") == (
        "infra_error", "the worker could not run: cannot start")
    assert status_of({**WORKER, "timed_out": True, "killed": "wall cap of 5 s"}, sm(None), [], "")[0] == "timeout"
    assert status_of({**WORKER, "killed": "interrupted"}, sm(None), [], "")[0] == "infra_error"
    st, why = status_of({**WORKER, "rc": 1}, sm(None), [], "boom at start")
    assert st == "infra_error" and "without a result event" in why and "boom at start" in why
    cap = {**RESULT_OK, "subtype": "error_max_turns", "is_error": True, "terminal_reason": "max_turns"}
    assert status_of(WORKER, sm(cap), [], "")[0] == "cap"
    api = {**RESULT_OK, "is_error": True, "terminal_reason": "api_error"}
    assert status_of(WORKER, sm(api), [stop(1)], "")[0] == "infra_error"
    denied = {**api, "api_error_status": 401, "api_error_type": "authentication_error",
              "result": "Invalid API key · Fix external API key"}  # as the CLI reports a 401
    assert status_of(WORKER, sm(denied), [stop(1)], "") == (
        "infra_error", "API error 401 authentication_error: Invalid API key · Fix external API key")
    assert status_of(WORKER, sm(blocks=1), [stop(1), stop(2)], "") == ("ok", None)


def test_a_stop_without_a_hook_event_is_never_scored():
    st, why = status_of(WORKER, sm(blocks=1), [stop(1)], "")
    assert st == "infra_error" and "the gate never ran" in why
    assert status_of(WORKER, sm(), [], "")[0] == "infra_error"
    assert status_of(WORKER, sm(), [stop(1, judged=False)], "")[0] == "infra_error"
    silent = {"hook_cancelled": 1, "hook_non_blocking_error": 0}
    assert status_of(WORKER, sm(), [stop(1)], "", silent)[0] == "infra_error"


def g(name: str, verdict: str) -> dict:
    return {"name": name, "verdict": verdict, "error": "unknown gate kind" if verdict == "error" else None}


def test_a_gate_that_never_judged_makes_the_cell_infra_error_but_an_occasional_error_does_not():
    dead = [stop(1, gates=[g("diff", "pass"), g("review", "error")]), stop(2, gates=[g("review", "error")])]
    assert never_worked(dead)[0] == "review"
    assert status_of(WORKER, sm(blocks=1), dead, "")[0] == "infra_error"
    flaky = [stop(1, gates=[g("review", "error")]), stop(2, gates=[g("review", "pass")])]
    assert never_worked(flaky) is None
    skipped = [stop(1, gates=[g("tests", "block"), g("review", "skipped")]), stop(2, gates=[g("review", "pass")])]
    assert never_worked(skipped) is None


def test_stop_records_keep_only_this_sessions_stops():
    events = [{"hook": "session_start", "session_id": "s"},
              {"hook": "stop", "session_id": "other", "decision": "allow", "diff": {}},
              {"hook": "stop", "session_id": "s", "attempt": 1, "decision": "block", "diff": {"counts": {"changed": 2}},
               "oracle": {"solved": False, "seconds": 0.5}, "gates": [{"name": "t", "kind": "tests",
                                                                      "verdict": "block", "seconds": 0.1}]}]
    recs = stop_records(events, "s")
    assert len(recs) == 1 and recs[0]["decision"] == "block" and recs[0]["files_changed"] == 2
    assert recs[0]["oracle_solved"] is False


# ---------------------------------------------------------------- leak scan (pure)


def test_leak_scan_flags_any_tool_that_names_a_private_path(tmp_path: Path):
    root = tmp_path / "bench"
    hidden, state = root / "hidden" / "T1", tmp_path / "cell" / "state"
    cwd = tmp_path / "cell" / "repo"
    for d in (hidden, state, cwd, root / "hidden" / "T10"):
        d.mkdir(parents=True)
    calls = [
        {"name": "Bash", "input": {"command": f"cat {hidden}/test_x.py"}},
        {"name": "Read", "input": {"file_path": str(cwd / "pkg" / "a.py")}},
        {"name": "Bash", "input": {"command": "cat ../state/events.jsonl | head"}},
        {"name": "Grep", "input": {"pattern": "def test", "path": "hidden/T1"}},
        {"name": "Bash", "input": {"command": "pytest hidden_tests -q"}},
        {"name": "Bash", "input": {"command": "ls hidden/T10"}},
    ]
    found = scan(calls, cwd, [hidden, state], root)
    assert [f.split(":")[0] for f in found] == ["Bash#1", "Bash#3", "Grep#4"], found


# ---------------------------------------------------------------- tamper and solved, on a real cell


def fake_run(cell: Path, session: str = "s1") -> None:
    """What a worker leaves, with the real hook judging one stop of session `session`."""
    (cell / "worker.json").write_text(json.dumps({"worker": "sim", "rc": 0, "wall_s": 1.0, "session_id": session}))
    stream = [{"type": "system", "subtype": "init", "session_id": session, "model": "m",
               "claude_code_version": "2.1.332"},
              {"type": "assistant", "message": {"id": "msg_1", "content": [{"type": "text", "text": "Done."}],
                                                "usage": {"input_tokens": 10, "output_tokens": 1}}},
              {**RESULT_OK, "num_turns": 1, "total_cost_usd": 0.01, "session_id": session,
               "usage": {"input_tokens": 10, "output_tokens": 5}}]
    (cell / "stream.jsonl").write_text("".join(json.dumps(e) + "\n" for e in stream))
    run_hook(cell / "state", hook_input(cell / "repo", session=session))


@pytest.mark.parametrize("touch_tests", ["none", "comment", "weakened"])
def test_tamper_is_flagged_and_never_counted_solved(tmp_path: Path, touch_tests: str):
    cell = tmp_path / "c"
    prep("T1", "none", cell)
    apply_state(load_task("T1"), "reference", cell / "repo")
    t = cell / "repo" / "tests" / "test_paginator.py"
    if touch_tests == "comment":  # a test edit that loses no check is no tampering (SPEC section 12, protected)
        t.write_text(t.read_text() + "\n# harmless edit\n")
    if touch_tests == "weakened":
        t.write_text(t.read_text().replace("    assert p.page(2).start_index == 11\n", "    p.page(2)\n"))
    fake_run(cell)
    rec = finalize(CellPaths(cell))
    assert rec.status == "ok" and rec.oracle.solved, rec.error
    assert rec.tamper is (touch_tests == "weakened")
    assert rec.tampered == (["tests/test_paginator.py::test_start_index_of_second_page: assertion removed or "
                             "loosened: `assert Paginator(list(range(25)), per_page=10).page(2).start_index == 11`"]
                            if touch_tests == "weakened" else [])
    assert rec.solved is (touch_tests != "weakened")
    assert rec.usage.input_tokens == 10 and rec.usage.output_tokens == 5  # no transcript: the result's totals
    assert rec.first_stop_solved is True and len(rec.stops) == 1
    ResultRecord.model_validate_json((cell / "result.json").read_text())


def test_finalize_of_a_cell_whose_worker_never_ran_is_infra_error(tmp_path: Path):
    cell = tmp_path / "c"
    prep("T1", "none", cell)
    rec = finalize(CellPaths(cell))
    assert rec.status == "infra_error" and "no worker.json" in rec.error and not rec.solved


def test_final_oracle_reuses_the_last_stop_only_when_the_tree_is_what_that_stop_judged(tmp_path: Path, monkeypatch):
    cell = tmp_path / "c"
    prep("T1", "none", cell)
    apply_state(load_task("T1"), "reference", cell / "repo")
    fake_run(cell)
    # Unsealed (cell.json has no `sealed: true`): the event log is the agent's to forge, the oracle reruns.
    unsealed = finalize(CellPaths(cell))
    assert unsealed.oracle.solved and unsealed.oracle.reused_from_stop is None and unsealed.oracle.sandboxed
    monkeypatch.setattr(finalize_mod, "cell_sealed", lambda meta: True)
    same = finalize(CellPaths(cell))
    assert same.oracle.solved and same.oracle.reused_from_stop == 1
    # The work copy changes after the last stop: the stop's verdict no longer applies, the oracle reruns.
    apply_state(load_task("T1"), "inject:plausible_indexes_untouched", cell / "repo")
    changed = finalize(CellPaths(cell))
    assert changed.oracle.reused_from_stop is None and not changed.oracle.solved
    assert changed.oracle.failing and changed.first_stop_solved is True


# ---------------------------------------------------------------- finalize always leaves a record


def test_a_cell_finalize_cannot_score_still_gets_a_record_naming_why(tmp_path: Path, monkeypatch):
    """A private git dir that git can no longer read: finalize writes an infra_error record that says so, and
    the CLI exits 1 (the verb ran, its check failed), never leaving the cell without result.json."""
    import subprocess
    import sys

    monkeypatch.setattr("gatebench.cell.prep.WALKER_MAX_FILES", 0)  # the git path's baseline, as for a big repo
    cell = tmp_path / "c"
    prep("T1", "none", cell)
    (cell / "state" / "git" / "index").write_bytes(b"not an index")
    r = subprocess.run([sys.executable, "-m", "gatebench", "finalize", str(cell), "--fresh-oracle"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, (r.stdout, r.stderr)
    rec = ResultRecord.model_validate_json((cell / "result.json").read_text())
    assert rec.status == "infra_error" and not rec.solved
    assert rec.error.startswith("finalize failed: GitError: git ") and "index" in rec.error, rec.error
    assert rec.cell_id == "none/T1/0" and rec.versions.task_hash
    assert "finalize failed: GitError" in r.stdout


@pytest.mark.slow
def test_a_stop_cut_by_its_deadline_inside_git_leaves_a_cell_finalize_scores(tmp_path: Path, monkeypatch):
    """The issue's cell, small: thousands of new files, a hook budget far too short, so the stop's git is killed
    at the deadline and the stop is decided by on_error, and an index.lock left in the private git dir as a git
    killed inside `add` leaves it; finalize still scores the cell and writes result.json."""
    import shutil
    import subprocess
    import sys

    home = tmp_path / "bench"
    shutil.copytree(ROOT / "configs", home / "configs")
    (home / "configs" / "tight.yaml").write_text("name: tight\ndescription: a stop budget git cannot meet\n"
                                                 "gates: []\nbudget:\n  hook_seconds: 0.05\n")
    for d in ("tasks", "hidden", "reference", "inject"):
        shutil.copytree(ROOT / d / "T1", home / d / "T1")
    monkeypatch.setenv("GATEBENCH_HOME", str(home))
    monkeypatch.setattr("gatebench.cell.prep.WALKER_MAX_FILES", 0)  # the git path's baseline, as for a big repo
    cell = tmp_path / "c"
    prep("T1", "tight", cell)
    for i in range(4000):
        d = cell / "repo" / "data" / f"d{i // 500}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text(f"{i}\n")
    from gatebench.cell.workers.cli import hook_argv

    subprocess.run(hook_argv(cell / "state", "stop"), input=hook_input(cell / "repo"), cwd=cell / "repo",
                   capture_output=True, text=True, timeout=120, check=True)  # what the stop server runs
    ev = json.loads((cell / "state" / "events.jsonl").read_text().splitlines()[-1])
    assert ev["decision"] == "allow" and any("OutOfTime" in e for e in ev["errors"]), ev
    git_dir = cell / "state" / "git"
    assert not [p for p in git_dir.glob("*.lock") if p.name != "gatebench.lock"] and not list(git_dir.glob("tmp-*"))
    (git_dir / "index.lock").write_text("")  # on purpose: what a git killed inside `add` leaves
    r = subprocess.run([sys.executable, "-m", "gatebench", "finalize", str(cell), "--fresh-oracle"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout, r.stderr)
    rec = ResultRecord.model_validate_json((cell / "result.json").read_text())
    # Scored as any cell is (the hook was called by hand: no worker ran), not cut short by a stale lock.
    assert rec.status == "infra_error" and rec.error.startswith("the worker never finished"), rec.error
    assert rec.oracle is None and rec.special_files == [] and not (git_dir / "index.lock").exists()
