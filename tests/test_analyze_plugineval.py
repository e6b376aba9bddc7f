"""`gatebench analyze` on `claude plugin eval` results (aggregate-result.json), from files shaped as the CLI
writes them (2.1.332): arms, runs counted not read, statuses from the run's error, bad files named."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import gatebench_cli

from gatebench.analyze import pipeline
from gatebench.analyze.plugineval import find_aggregates, status_of
from gatebench.models.plugineval import AggRun


def run(passed: bool, error: str | None = None, graders: list[dict] | None = None, root: str = "/t/claude-eval-x") -> dict:
    return {"score": 1.0 if passed else 0.0, "passed": passed, "turns": 3, "costUsd": 0.25, "judgeCostUsd": 0.0,
            "durationSeconds": 4, "startedAt": "2026-12-01T00:00:00Z", "error": error,
            "tracePath": f"{root}/out/trace.jsonl", "skippedPaidGraders": False,
            "graders": graders if graders is not None else [{"name": "g", "passed": passed, "weight": 1,
                                                             "explanation": "", "withOnly": False, "scored": True}]}


def aggregate(cases: dict[str, tuple[list[dict], list[dict] | None]], plugin: str = "my-plugin",
              ablation: str = "with-without", root: str = "/src/my-plugin", runs_per_case: int = 3) -> dict:
    return {
        "schemaVersion": 1, "claudeVersion": "2.1.332", "startedAt": "2026-12-01T00:00:00.000Z", "durationSeconds": 9,
        "costUsd": 1.0, "partial": False,
        "suite": {"root": root, "ablation": ablation, "threshold": 1, "concurrency": 1,
                  "plugins": [{"name": plugin, "version": "1.0.0", "path": root}]},
        "cases": [{"name": name, "dir": f"evals/{name}", "source": "case_yaml", "promptMarkdown": "do it",
                   "runsPerCase": runs_per_case, "timeoutSeconds": 300, "maxTurns": 10,
                   "graders": [{"name": "g", "type": "regex", "weight": 1, "config": {}}],
                   "arms": {"with": w, **({"without": wo} if wo is not None else {})},
                   "aggregates": {"score": 0, "passRate": 0}}
                  for name, (w, wo) in cases.items()],
        "aggregates": {"casesTotal": len(cases), "casesPassed": 0, "overallScore": 0, "overallPassRate": 0},
    }


def write(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_a_plugins_suite_with_and_without_arms_pairs_by_case_and_run_and_counts_the_runs(tmp_path: Path):
    # runsPerCase says 3 (the case's setting); the runs made under --runs 2 are what count
    agg = aggregate({f"c{i}": ([run(True), run(i % 2 == 0)], [run(False), run(False)]) for i in range(4)})
    f = write(tmp_path / "evals" / "results" / "2026-12-01" / "aggregate-result.json", agg)
    assert find_aggregates(tmp_path) == [f]
    a = pipeline.analyze([tmp_path], "without", tmp_path / "out", resamples=300)
    by = {c.config: c for c in a.configs}
    assert set(by) == {"my-plugin", "without"}
    assert by["my-plugin"].runs == 8 and by["my-plugin"].tasks == 4 and by["my-plugin"].solved == 6
    assert by["without"].solved == 0
    d = a.deltas[0]
    assert d.config == "my-plugin" and d.tasks == 4 and d.mcnemar.pairs == 8 and d.mcnemar.config_only == 6
    assert d.estimate.value == 0.75 and d.estimate.lo is None  # too few cases for an interval (SPEC 17, Few tasks)
    assert a.notice.startswith("FROM CLAUDE PLUGIN EVAL") and "Agent: worker plugin-eval" in a.notice
    assert a.provenance[0].origins == ["claude plugin eval"]
    # no stop-level record for a plugin that is not gatebench's: the counterfactual is unknown, not zero
    cf = {c.config: c for c in a.counterfactual}
    assert cf["my-plugin"].unknown == 8


def test_statuses_come_from_the_runs_error_as_the_cli_words_it():
    def st(e: str | None) -> str:
        return status_of(AggRun.model_validate(run(False, e)))[0]

    assert st(None) == "ok"
    assert st("timed out after 4s") == "timeout"
    assert st("exit 1: Reached maximum number of turns (2)") == "cap"
    assert st("exit 1: API Error: Connection refused") == "infra_error"
    assert st("scaffold failed (exit 1): boom") == "infra_error"


def test_a_gatebench_suite_without_its_private_folder_is_scored_from_its_graders_with_a_warning(tmp_path: Path):
    def g(solved: bool, verdict: bool) -> list[dict]:
        return [{"name": "gatebench-solved", "passed": solved, "weight": 1, "explanation": ""},
                {"name": "gatebench-verdict", "passed": verdict, "weight": 0.01, "explanation": ""}]

    agg = aggregate({"T1": ([run(True, graders=g(True, True)), run(False, graders=g(False, True)),
                             run(False, graders=g(False, False))], None)},
                    plugin="gatebench-tests", ablation="none", root=str(tmp_path / "suite" / "tests"))
    agg["cases"][0]["graders"] = [{"name": "gatebench-solved", "type": "regex", "weight": 1, "config": {}}]
    write(tmp_path / "a.json", agg)
    a = pipeline.analyze([tmp_path / "a.json"], "none", tmp_path / "out", resamples=300)
    (c,) = a.configs
    assert c.config == "tests"  # the plugin folder is named like the config it was exported from
    assert (c.runs, c.solved, c.status.infra_error) == (2, 1, 1)  # no verdict at all: never judged, not scored
    assert any("private folder" in w for w in a.warnings), a.warnings


def test_a_file_that_is_not_an_aggregate_is_named_and_nothing_scored_is_exit_2(tmp_path: Path):
    bad = aggregate({"c": ([run(True)], None)})
    bad["schemaVersion"] = 2
    f = write(tmp_path / "r" / "aggregate-result.json", bad)
    r = gatebench_cli("analyze", str(f), "--out", str(tmp_path / "out"), check=False)
    assert r.returncode == 2 and "schemaVersion" in r.stderr and str(f) in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    r = gatebench_cli("analyze", str(tmp_path / "empty"), check=False)
    assert r.returncode == 2 and "no such run folder" in r.stderr
    (tmp_path / "nothing").mkdir()
    r = gatebench_cli("analyze", str(tmp_path / "nothing"), check=False)
    assert r.returncode == 2 and "aggregate-result.json" in r.stderr


def test_two_invocations_of_one_config_are_six_repetitions_and_another_cli_version_is_named(tmp_path: Path):
    """Issue 33: six runs of one config over two `claude plugin eval` invocations were pooled as (none, T1, rep 0)."""
    first = aggregate({"T1": ([run(True), run(False), run(True)], None)}, ablation="none")
    second = aggregate({"T1": ([run(False), run(False), run(True)], None)}, ablation="none")
    second["startedAt"] = "2026-12-01T01:00:00.000Z"
    second["claudeVersion"] = "2.1.328"
    write(tmp_path / "r" / "1" / "aggregate-result.json", first)
    write(tmp_path / "r" / "2" / "aggregate-result.json", second)
    a = pipeline.analyze([tmp_path / "r"], "none", tmp_path / "out", resamples=200)
    (c,) = a.configs
    assert (c.runs, c.solved) == (6, 3)
    cells = sorted((x.task, x.rep) for x in a.cells)
    assert cells == [("T1", r) for r in range(6)], cells
    assert any("further repetitions" in w for w in a.warnings), a.warnings
    assert sum("2.1.328" in w and "pinned" in w for w in a.warnings) == 1, a.warnings


def test_weighted_scores_and_per_grader_verdicts_are_kept_with_task_intervals_and_paired_deltas(tmp_path: Path):
    """Issue 33: the CLI scored every run 0.20, and analyze kept only pass/fail. Now: the mean score, each grader's
    pass rate with a task-clustered interval, and the paired with/without Δ on score and on pass rate."""
    def scored(score: float, verdicts: dict[str, bool]) -> dict:
        r = run(score >= 1.0)
        r["score"] = score
        r["graders"] = [{"name": n, "passed": p, "weight": 1.0 if n == "outcome" else 0.25, "explanation": "",
                         "withOnly": False, "scored": True} for n, p in verdicts.items()]
        return r

    cases = {}
    for i in range(6):  # 6 cases: enough tasks for intervals
        w = [scored(0.2, {"outcome": False, "hygiene": True}), scored(1.0, {"outcome": True, "hygiene": True})]
        wo = [scored(0.2, {"outcome": False, "hygiene": True}), scored(0.2 if i % 2 else 1.0,
                                                                       {"outcome": bool(i % 2 == 0), "hygiene": True})]
        cases[f"c{i}"] = (w, wo)
    write(tmp_path / "aggregate-result.json", aggregate(cases))
    a = pipeline.analyze([tmp_path / "aggregate-result.json"], "none", tmp_path / "out", resamples=300)
    by = {s.config: s for s in a.scores}
    mine, without = by["my-plugin"], by["without"]
    assert (mine.tasks, mine.runs) == (6, 12) and mine.score.value == 0.6 and mine.pass_rate.value == 0.5
    assert mine.score.lo is not None and mine.score.lo <= 0.6 <= mine.score.hi
    g = {x.grader: x for x in mine.graders}
    assert (g["outcome"].rate.value, g["hygiene"].rate.value, g["hygiene"].weight) == (0.5, 1.0, 0.25)
    assert mine.against == "without" and without.against is None
    assert abs(mine.delta_score.value - (0.6 - without.score.value)) < 1e-9  # type: ignore[union-attr]
    assert mine.delta_pass.value == 0.5 - 0.25  # type: ignore[union-attr]
    from gatebench.analyze import tables

    t = tables.scores(a)
    assert any(r[1] == "outcome" for r in t.rows) and any("0.60 [" in r[5] for r in t.rows), t.rows
