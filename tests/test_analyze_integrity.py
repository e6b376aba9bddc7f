"""analyze's integrity numbers: the canary-pass rate per config (records with a contradicted canary, with its
task-clustered interval) and every rerun cell, flagged, with the errors of its failed attempts."""

from __future__ import annotations

import json
from pathlib import Path

from test_analyze_metrics import rec

from gatebench.analyze import pipeline, report_html, report_md


def canaries(*contradicted: str) -> dict:
    return {"run": 3, "passed": list(contradicted), "contradicted": list(contradicted)}


def test_canary_pass_rate_per_config_and_every_rerun_flagged(tmp_path: Path):
    run = tmp_path / "r1"
    run.mkdir()
    records = [
        rec("none", "T1", 0, False, canaries=canaries("t.py::a")),
        rec("none", "T1", 1, True, canaries=canaries()),
        rec("none", "T2", 0, False, canaries=canaries()),
        rec("none", "T2", 1, False, canaries=canaries(), attempt_no=3),
        rec("none", "T3", 0, False),  # an older record: no canaries, left out of the rate
        rec("tests", "T1", 0, True, canaries=canaries()),
        rec("tests", "T2", 0, True, canaries=canaries()),
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (run / "infra.jsonl").write_text("".join(json.dumps({"cell_id": "none/T2/1", "attempt_no": n, "status": "infra_error",
                                                        "error": f"api down {n}", "final": False}) + "\n"
                                             for n in (1, 2)))
    a = pipeline.analyze([run], "none", tmp_path / "out")
    by = {c.config: c for c in a.configs}
    none, tests = by["none"], by["tests"]
    assert (none.canary_cells, none.canary_runs) == (1, 4)
    assert none.canary_pass.value == (1 / 2 + 0) / 2  # mean over tasks: T1 1/2, T2 0/2
    assert none.canary_pass.lo is not None and none.canary_pass.lo <= none.canary_pass.value <= none.canary_pass.hi
    assert (tests.canary_cells, tests.canary_runs, tests.canary_pass.value) == (0, 2, 0.0)
    [rerun] = none.reruns
    assert (rerun.cell_id, rerun.attempts, rerun.errors) == ("none/T2/1", 3, ["attempt 1: api down 1",
                                                                             "attempt 2: api down 2"])
    assert tests.reruns == []
    assert any("none: 1 cell(s) rerun" in w and "2 extra" in w for w in a.warnings)
    assert any("none: 1 of 4 scored run(s) had a canary pass" in w for w in a.warnings)
    md = report_md.render(a)
    assert "## Integrity: canaries and reruns" in md and "RERUN" in md and "api down 2" in md
    assert "Integrity" in report_html.render(a)
    doc = json.loads(a.model_dump_json(by_alias=True))
    assert doc["configs"][0]["canary_pass"]["value"] == 0.25 and doc["configs"][0]["reruns"][0]["attempts"] == 3
