"""`gatebench analyze` end to end: files written, headline printed, bad input named, the rest analyzed."""

from __future__ import annotations

import json
import os
import time

import pytest

from gatebench.analyze import synth
from gatebench.cli import main
from gatebench.models.analysis import ANALYSIS_SCHEMA, Analysis


@pytest.fixture
def ledger(tmp_path):
    m = synth.generate([synth.BASELINE, synth.GATED], tasks=5, reps=3, seed=9, run_id="r1")
    run = tmp_path / "runs" / "r1"
    synth.write_ledger(run / "results.jsonl", m.records)
    return run


def analyze(capsys, *argv):
    args = ["analyze", *map(str, argv)]
    code = main(args if "--resamples" in args else [*args, "--resamples", "300"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_writes_three_reports_and_prints_the_headline(ledger, capsys):
    code, out, err = analyze(capsys, ledger)
    assert code == 0
    d = ledger / "analysis"
    # No cells/ pages: the synth ledger's cells have no files (a real run's do: test_analyze_browser.py).
    assert sorted(p.name for p in d.iterdir()) == ["analysis.json", "report.html", "summary.md"]
    data = json.loads((d / "analysis.json").read_text())
    a = Analysis.model_validate(data)
    assert data["schema"] == ANALYSIS_SCHEMA and a.baseline == "none"
    assert [c.config for c in a.configs] == ["none", "tests+adv"]
    # First what produced the numbers, then the headline table.
    assert out.splitlines()[0].startswith("Agent: worker synth, model ")
    assert out.splitlines()[2].split()[:4] == ["config", "tasks", "runs", "solved"]
    assert "none (baseline)" in out and "tests+adv" in out
    assert "# gatebench analysis" in (d / "summary.md").read_text()
    assert (d / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert oct((d / "report.html").stat().st_mode & 0o044) == oct(0o044)  # readable by others
    assert a.cells[0].links["events"] == "../cells/none/T1/0/events.jsonl"
    assert "wrote" in err


def test_same_seed_same_numbers(ledger, capsys, tmp_path):
    analyze(capsys, ledger, "--out", tmp_path / "a")
    analyze(capsys, ledger, "--out", tmp_path / "b")
    a = json.loads((tmp_path / "a" / "analysis.json").read_text())
    b = json.loads((tmp_path / "b" / "analysis.json").read_text())
    a.pop("generated_at"), b.pop("generated_at")
    assert a == b


def test_missing_baseline_is_named_and_the_rest_analyzed(ledger, capsys):
    code, _, err = analyze(capsys, ledger, "--baseline", "nope")
    assert code == 0
    assert "baseline config 'nope' is not in the ledger(s) (configs: none, tests+adv)" in err
    a = Analysis.model_validate_json((ledger / "analysis" / "analysis.json").read_text())
    assert a.deltas == [] and len(a.configs) == 2


def test_truncated_last_line_and_mixed_versions(ledger, capsys):
    path = ledger / "results.jsonl"
    lines = path.read_text().splitlines()
    newer = json.loads(lines[0])
    newer["v"] = 2
    other_cli = json.loads(lines[1])
    other_cli["versions"]["cli_version"] = "9.9.9"
    lines[0], lines[1] = json.dumps(newer), json.dumps(other_cli)
    path.write_text("\n".join(lines) + "\n" + lines[2][:50])
    code, _, err = analyze(capsys, ledger)
    assert code == 0
    assert f"{path}:{len(lines) + 1}: truncated last line" in err
    assert "1 record(s) with schema version v=2 skipped" in err
    assert "mixed versions.cli_version across records: 2.1.332 (28), 9.9.9 (1)" in err
    a = Analysis.model_validate_json((ledger / "analysis" / "analysis.json").read_text())
    assert sum(c.runs for c in a.configs) == 29
    assert a.inputs[0].skipped == 2


def test_zero_solved_cells(tmp_path, capsys):
    recs = synth.generate([synth.BASELINE, synth.GATED], tasks=3, reps=2, seed=1).records
    for r in recs:
        r["solved"] = False
    synth.write_ledger(tmp_path / "run" / "results.jsonl", recs)
    code, out, err = analyze(capsys, tmp_path / "run")
    assert code == 0
    assert "config none: no scored run solved its task (0/6); cost per solve is undefined" in err
    assert "0.0%" in out


def test_several_ledgers_are_pooled(ledger, tmp_path, capsys):
    m = synth.generate([synth.BASELINE, synth.GATED], tasks=5, reps=2, seed=10, run_id="r2")
    synth.write_ledger(tmp_path / "runs" / "r2" / "results.jsonl", m.records)
    code, _, _ = analyze(capsys, ledger, tmp_path / "runs" / "r2" / "results.jsonl", "--out", tmp_path / "both")
    assert code == 0
    a = Analysis.model_validate_json((tmp_path / "both" / "analysis.json").read_text())
    assert [c.runs for c in a.configs] == [25, 25]
    assert len(a.inputs) == 2


def test_default_is_the_newest_run(ledger, tmp_path, capsys):
    old = tmp_path / "runs" / "r0"
    synth.write_ledger(old / "results.jsonl", synth.generate([synth.BASELINE], 2, 1, seed=1, run_id="r0").records)
    past = time.time() - 100
    os.utime(old / "results.jsonl", (past, past))
    code, _, err = analyze(capsys, "--runs-root", tmp_path / "runs")
    assert code == 0 and f"newest run: {ledger}" in err
    assert (ledger / "analysis" / "report.html").is_file()


def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    code, _, err = analyze(capsys, tmp_path / "missing")
    assert code == 2 and f"{tmp_path / 'missing'}: no such run folder or ledger file" in err
    (tmp_path / "empty").mkdir()
    code, _, err = analyze(capsys, tmp_path / "empty")
    assert code == 2 and f"{tmp_path / 'empty' / 'results.jsonl'}: not found" in err
    run = tmp_path / "junk"
    run.mkdir()
    (run / "results.jsonl").write_text("{oops\n[1, 2]\n")
    code, _, err = analyze(capsys, run)
    assert code == 2
    assert f"{run / 'results.jsonl'}:1: not valid JSON" in err
    assert f"{run / 'results.jsonl'}: 1 record(s) with schema version v=None skipped" in err
    assert "gatebench: error: no scored record in" in err
    assert not (run / "analysis").exists()
    code, _, err = analyze(capsys, "--runs-root", tmp_path / "nowhere")
    assert code == 2 and "no RUN_DIR given" in err
    code, _, err = analyze(capsys, run, "--resamples", "5")
    assert code == 2 and "--resamples 5" in err
