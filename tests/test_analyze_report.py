"""Reports without a browser: self-contained HTML, escaped labels, every table and chart present."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gatebench.analyze import load, pipeline, report_html, report_md, svg, synth, tables


@pytest.fixture(scope="module")
def analysis():
    evil = synth.SynthConfig("<b>x</b>&|y", gates=(synth.GATED.gates[0],), fix_logit=0.0)
    m = synth.generate([synth.BASELINE, synth.GATED, evil], tasks=4, reps=2, seed=8)
    runs = [load.to_run(d, "x", "/runs/r") for d in m.records]
    return pipeline.build(load.Loaded(runs=runs), "none", Path("/runs/r/analysis"), resamples=200)


def test_html_is_self_contained(analysis):
    html = report_html.render(analysis)
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert " src=" not in html and "url(" not in html and "@import" not in html
    # The only absolute URL is the SVG namespace, which is a name, never fetched.
    urls = set(re.findall(r"https?://[^\"' <>]+", html))
    assert urls == {"http://www.w3.org/2000/svg"}
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


def test_html_escapes_labels_and_has_every_chart_and_table(analysis):
    html = report_html.render(analysis)
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;&amp;|y" in html
    for cls in ("rate-chart", "forest-chart", "cost-chart", "heatmap-chart"):
        assert html.count(f'class="chart {cls}"') == 1
    for title in ("Headline", "Solve rate per config", "Gates as classifiers", "Task × config solve matrix",
                  "Cost and effort per run", "Rescue and harm", "pass@k"):
        assert title in html
    assert html.count('href="../cells/') == 4 * len(analysis.cells)


def test_markdown_escapes_pipes_and_lists_warnings(analysis):
    md = report_md.render(analysis)
    assert "<b>x</b>&\\|y" in md
    for line in md.splitlines():
        if line.startswith("| "):
            assert line.count(" | ") + 2 == line.count("|") - line.count("\\|")


def test_headline_marks_baseline_and_dashes_missing_delta(analysis):
    t = tables.headline(analysis)
    assert t.rows[0][0] == "none (baseline)" and t.rows[0][6] == "–"
    assert all(r[6].endswith(" pt") for r in t.rows[1:])
    text = tables.text_table(t)
    widths = {len(line) for line in text.splitlines()[:2]}
    assert len(widths) == 1  # header and rule line up


@pytest.mark.parametrize(("lo", "hi", "expected"),
                         [(0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]), (-0.13, 0.41, [-0.2, 0, 0.2, 0.4, 0.6]),
                          (0, 0.0137, [0, 0.005, 0.01, 0.015]), (0.2, 0.2, [0.2, 0.4, 0.6, 0.8, 1.0, 1.2])])
def test_nice_ticks(lo, hi, expected):
    assert svg.nice_ticks(lo, hi) == pytest.approx(expected)


def test_charts_handle_empty_and_degenerate_input():
    assert "no scored run" in svg.rate_chart([("c", None, None, None)], "t")
    assert "<svg" in svg.forest([], "t")
    assert "<svg" in svg.cost_scatter([("a", 0.0, 0.5, None, None, True)], "t")
    assert "<svg" in svg.heatmap([], [], [], "t")
    f = svg.forest([("a", 0.1, -0.05, 0.3, "between")], "t")
    assert "+10.0 [-5.0, +30.0]" in f


def test_reports_render_a_degenerate_analysis():
    d = {"v": 1, "run_id": "r", "cell_id": "g/T1/0", "config": "g", "task": "T1", "rep": 0, "worker": "sim",
         "status": "timeout", "solved": False, "versions": {"gatebench": "0"},
         "stops": [{"attempt": 1, "decision": "allow", "oracle_solved": None,
                    "gates": [{"name": "t", "kind": "tests", "verdict": "error"}]}]}
    a = pipeline.build(load.Loaded(runs=[load.to_run(d, "x", "/r")]), "none", Path("/r/analysis"), resamples=100)
    html = report_html.render(a)
    md = report_md.render(a)
    assert "baseline config &#x27;none&#x27; is not in the ledger(s)" in html
    assert "no scored run solved" in md
    assert html.count('class="chart ') == 4
