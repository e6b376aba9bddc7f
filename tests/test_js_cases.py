"""scripts/bench_js_cases.py, the count of legitimate changes blocked and weakenings allowed on JavaScript
projects, on its cheapest runner (mocha, real, installed from npm into .cache/ as
tests/test_installed_js_runners.py does) and the cases mocha's table idiom needs: tests generated from a
table (inline and over a module constant) pass at the first stop, the same table with a row dropped is
blocked naming that row's test. The whole count (Jest, Vitest, mocha) is the script's to print."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import bench_js_cases as cases


def test_mocha_tables_fold_pass_and_a_dropped_row_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    picked = ["each refactor", "table fold over a module constant", "table row dropped"]
    blocked, n_legit, allowed, n_weak = cases.count(tmp_path, "mocha", picked, 0)
    out = capsys.readouterr().out
    assert (blocked, n_legit, allowed, n_weak) == (0, 2, 0, 1), out
    dropped = next(ln for ln in out.splitlines() if "table row dropped" in ln)
    assert "test_removed test/bytes.mocha.cjs::format > formats kilobytes" in dropped, out
