"""Reading ledgers: bad lines are skipped with a message naming file, line and field; the rest is read."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gatebench.analyze import cells, load, synth


def rec(config="none", task="T1", rep=0, **kw) -> dict:
    d = {"v": 1, "run_id": "r1", "cell_id": f"{config}/{task}/{rep}", "config": config, "task": task, "rep": rep,
         "worker": "sim", "status": "ok", "solved": True, "versions": {"gatebench": "0.1.0"}}
    d.update(kw)
    return d


def write(path: Path, lines: list, end: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + end)
    return path


def test_truncated_last_line_is_skipped_with_a_message(tmp_path):
    p = write(tmp_path / "results.jsonl", [rec(rep=0), rec(rep=1), json.dumps(rec(rep=2))[:37]], end="")
    out = load.load([tmp_path])
    assert [r.rep for r in out.runs] == [0, 1]
    assert out.warnings == [f"{p}:3: truncated last line (a cell still being written?), skipped"]
    assert (out.ledgers[0].used, out.ledgers[0].skipped) == (2, 1)


def test_bad_json_in_the_middle_names_the_line(tmp_path):
    p = write(tmp_path / "results.jsonl", [rec(rep=0), "{not json", rec(rep=2)])
    out = load.load([p])
    assert [r.rep for r in out.runs] == [0, 2]
    assert len(out.warnings) == 1 and out.warnings[0].startswith(f"{p}:2: not valid JSON")


def test_other_schema_versions_are_counted_and_skipped(tmp_path):
    p = write(tmp_path / "results.jsonl", [rec(rep=0), rec(rep=1, v=2), rec(rep=2, v=2), {"hello": 1}])
    out = load.load([p])
    assert [r.rep for r in out.runs] == [0]
    assert f"{p}: 2 record(s) with schema version v=2 skipped (this gatebench reads v=1)" in out.warnings
    assert f"{p}: 1 record(s) with schema version v=None skipped (this gatebench reads v=1)" in out.warnings


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"solved": "yes"}, "'solved'"),
        ({"status": "crashed"}, "'status'"),
        ({"rep": -1}, "'rep'"),
        ({"rep": True}, "'rep'"),
        ({"cost_usd": "1.0"}, "'cost_usd'"),
        ({"usage": {"input_tokens": "many"}}, "'usage.input_tokens'"),
        ({"stops": [{"attempt": 1, "decision": "maybe"}]}, "'stops[0].decision'"),
        ({"stops": [{"attempt": 1, "decision": "block", "gates": [{"name": "t", "verdict": "nope"}]}]},
         "'stops[0].gates[0].verdict'"),
        ({"stops": [{"attempt": 1, "decision": "allow", "oracle_solved": "true"}]}, "'stops[0].oracle_solved'"),
        ({"versions": None}, "'versions'"),
    ],
)
def test_a_bad_field_is_named_and_its_line_skipped(tmp_path, change, field):
    p = write(tmp_path / "results.jsonl", [rec(rep=0), {**rec(rep=1), **change}])
    out = load.load([p])
    assert [r.rep for r in out.runs] == [0]
    assert len(out.warnings) == 1
    assert out.warnings[0].startswith(f"{p}:2: ")
    assert field in out.warnings[0]


def test_missing_field_is_named(tmp_path):
    bad = rec(rep=1)
    del bad["config"]
    out = load.load([write(tmp_path / "results.jsonl", [bad])])
    assert out.runs == []
    assert "field 'config': missing" in out.warnings[0]


def test_full_model_check_on_sampled_lines_catches_fields_analysis_does_not_read(tmp_path):
    bad = rec(rep=1)
    del bad["worker"]  # never read by analyze, required by ResultRecord
    p = write(tmp_path / "results.jsonl", [rec(rep=0), bad])
    out = load.load([p])
    assert [r.rep for r in out.runs] == [0]
    assert out.warnings[0].startswith(f"{p}:2: not a valid result record: field 'worker'")


def test_many_bad_lines_are_summarized(tmp_path):
    p = write(tmp_path / "results.jsonl", [rec(rep=0)] + ["{bad"] * 9)
    out = load.load([p])
    assert len(out.warnings) == load.MAX_LISTED + 1
    assert out.warnings[-1] == f"{p}: 4 more bad line(s) skipped"


def test_only_ok_runs_can_be_solved():
    r = load.to_run(rec(status="timeout", solved=True), "x", "")
    assert r.solved is False


def test_fast_and_careful_paths_agree_on_every_synth_record():
    m = synth.generate([synth.BASELINE, synth.GATED], tasks=4, reps=5, seed=2, infra_error=0.2)
    rng = random.Random(0)
    variants = []
    for d in m.records:
        d2 = dict(d)
        for k in rng.sample(["cost_usd", "usage", "paths", "stops", "blocks", "first_stop_solved", "attempt_no"], 2):
            d2.pop(k, None)
        variants += [d, d2]
    for d in variants:
        assert load._to_run_fast(d, "s", "b") == load._to_run_checked(d, "s", "b")


@pytest.mark.parametrize(
    ("solved", "first", "stops", "expected"),
    [
        (False, True, ((False, "allow", ()),), True),  # the record's own field wins
        (True, None, ((False, "block", ()), (True, "allow", ())), False),  # else the first stop's oracle
        (False, None, (), False),  # never stopped (timeout before a stop): no gate acted
        (True, None, (), True),
        (True, None, ((None, "allow", ()),), None),  # the oracle did not run at the first stop
    ],
)
def test_first_stop_outcome(solved, first, stops, expected):
    assert load.first_stop_outcome(solved, first, stops) is expected


def test_resolve_keeps_the_latest_scored_record_and_sets_infra_errors_apart(tmp_path):
    lines = [
        rec(rep=0, status="infra_error", solved=False),
        rec(rep=0, attempt_no=2, solved=False),
        rec(rep=1, status="infra_error", solved=False),
        rec(rep=2, solved=False),
        rec(rep=2, attempt_no=2, solved=True),  # a re-run of a scored cell
    ]
    out = load.load([write(tmp_path / "results.jsonl", lines)])
    c = cells.resolve(out.runs)
    assert sorted((r.rep, r.solved) for r in c.scored) == [(0, False), (2, True)]
    assert len(c.infra) == 2
    assert c.unresolved == [("r1", "none/T1/1")]
    assert any("more than one scored record" in w for w in c.warnings)
    assert any("2 infra-error record(s)" in w and "1 cell(s) have no scored record" in w for w in c.warnings)


def test_mixed_versions_are_reported():
    runs = [load.to_run(rec(rep=i, versions={"gatebench": "0.1.0", "cli_version": v, "task_hash": h}), "x", "")
            for i, (v, h) in enumerate([("2.1.332", "a"), ("2.1.333", "a"), ("2.1.332", "b")])]
    w = cells.version_warnings(runs)
    assert "mixed versions.cli_version across records: 2.1.332 (2), 2.1.333 (1)" in w
    assert "task(s) changed between records (several versions.task_hash): T1" in w
    assert cells.version_warnings(runs[:1]) == []
