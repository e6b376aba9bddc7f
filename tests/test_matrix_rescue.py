"""The matrix's "no result" fallback, shared by the local and the Ray executor (matrix/matrix.rescue_result)."""

from __future__ import annotations

from gatebench.matrix.matrix import rescue_result


def test_a_cell_with_its_result_is_not_finalized_again(tmp_path):
    (tmp_path / "result.json").write_text("{}")
    calls = []
    assert rescue_result(tmp_path, lambda: calls.append(1)) is None
    assert calls == []


def test_a_dead_run_is_scored_by_the_rescue(tmp_path):
    assert rescue_result(tmp_path, lambda: (tmp_path / "result.json").write_text("{}")) is None


def test_a_cell_the_rescue_could_not_score_says_what_its_process_said_last(tmp_path):
    (tmp_path / "run.log").write_text("x" * 1000 + "Traceback: boom")
    calls = []
    tail = rescue_result(tmp_path, lambda: calls.append(1))
    assert calls == [1]
    assert tail is not None and len(tail) == 800 and tail.endswith("Traceback: boom")
