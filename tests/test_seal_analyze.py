"""analyze warns about records whose agent ran unsealed (stderr and analysis.json), and stays quiet when all are sealed."""

from __future__ import annotations

import json

from gatebench.analyze import synth
from gatebench.cli import main


def run_analyze(tmp_path, capsys, sealed_flags):
    recs = synth.generate([synth.BASELINE, synth.GATED], tasks=3, reps=2, seed=3, run_id="r").records
    for r, flag in zip(recs, sealed_flags, strict=False):
        if flag is not None:
            r["sealed"] = flag
    synth.write_ledger(tmp_path / "run" / "results.jsonl", recs)
    assert main(["analyze", str(tmp_path / "run"), "--resamples", "200"]) == 0
    warnings = json.loads((tmp_path / "run" / "analysis" / "analysis.json").read_text())["warnings"]
    return len(recs), capsys.readouterr().err, [w for w in warnings if "unsealed" in w]


def test_unsealed_and_pre_seal_records_are_a_warning(tmp_path, capsys):
    n, err, warned = run_analyze(tmp_path, capsys, [False, None] + [True] * 100)
    assert warned == [f"2 of {n} scored record(s) ran unsealed (sealed: false): the agent could have reached what "
                      "judged it; trust their scores less"]
    assert "analyze: warning: 2 of" in err and "ran unsealed" in err


def test_all_sealed_no_warning(tmp_path, capsys):
    _, err, warned = run_analyze(tmp_path, capsys, [True] * 100)
    assert warned == [] and "unsealed" not in err
