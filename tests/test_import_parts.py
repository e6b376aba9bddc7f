"""The plain-data parts of task import: what a tree says its tests need, interpreters without shims, the
outcome sets under flaky and load-sensitive tests, wrong fixes made from a fix, and the prompt check."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

from gatebench.suite import mutants as mut
from gatebench.suite.promptcheck import gaps
from gatebench.suite.pythons import _candidates, choose
from gatebench.suite.taskimport import measure_sets
from gatebench.suite.testdeps import (
    allows,
    file_requirements,
    plugin_requirements,
    python_versions,
    vcs_versioned,
)


def test_the_plugins_a_pytest_config_names_are_required_and_a_plain_one_needs_none(tmp_path: Path):
    (tmp_path / ".pytest.ini").write_text("[pytest]\naddopts = --cov=semver --cov-report=term -n 2 -p pytest_mock\n"
                                          "timeout = 30\n")
    assert plugin_requirements(tmp_path) == ["pytest-cov", "pytest-xdist", "pytest-mock", "pytest-timeout"]
    (tmp_path / ".pytest.ini").write_text("[pytest]\naddopts = -ra --strict-markers\n")
    assert plugin_requirements(tmp_path) == []
    (tmp_path / ".pytest.ini").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = ["--cov"]\nasyncio_mode = "auto"\n'
                                             'required_plugins = "pytest-env"\n')
    assert plugin_requirements(tmp_path) == ["pytest-cov", "pytest-asyncio", "pytest-env"]


def test_test_requirements_come_from_requirement_files_tox_and_groups_without_dev_tools(tmp_path: Path):
    (tmp_path / "requirements-dev.txt").write_text("-e .\npytest>=7\nsphinx\nhypothesis==6.1  # props\n-r other.txt\n")
    (tmp_path / "tox.ini").write_text("[testenv]\ndeps =\n    freezegun\n    py38: mock\n"
                                     "    py{35,36,310,py3}: ipython\n    !pypy3-cov: coverage\ncommands = pytest\n")
    (tmp_path / "pyproject.toml").write_text('[dependency-groups]\ntest = ["pytz"]\ndocs = ["furo"]\n'
                                             '[tool.poetry.dev-dependencies]\npython = "^3.8"\nhypothesis = "^6"\n'
                                             'black = "*"\n[tool.poetry.group.test.dependencies]\nfreezegun = "^1"\n')
    assert file_requirements(tmp_path) == ["pytest>=7", "hypothesis==6.1", "freezegun", "mock", "coverage", "pytz",
                                         "hypothesis"]  # a factor-conditional line counts; ipython is a dev tool


def test_vcs_versioned_projects_and_supported_pythons_are_read_from_the_tree(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64", "setuptools_scm>=8"]\n[project]\nname = "x"\n'
        'requires-python = ">=3.8,<3.11"\nclassifiers = ["Programming Language :: Python :: 3.9",'
        ' "Programming Language :: Python :: 3.10"]\n')
    assert vcs_versioned(tmp_path)
    assert python_versions(tmp_path) == (["3.10", "3.9"], ">=3.8,<3.11")
    assert allows(">=3.8,<3.11", "3.10") and not allows(">=3.8,<3.11", "3.11") and allows("!=3.9.*", "3.10")
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["flit_core"]\n[project]\nname = "x"\n')
    assert not vcs_versioned(tmp_path)


def test_interpreters_are_never_looked_for_in_shim_folders(tmp_path: Path, monkeypatch):
    shims = tmp_path / "shims"
    shims.mkdir()
    fake = shims / "python3.42"
    fake.write_text("#!/bin/sh\necho 3.42\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{shims}:{os.environ['PATH']}")
    assert str(fake) not in _candidates("3.42")
    # An admitted default comes first; a version the project excludes is never chosen.
    from gatebench.suite import pythons

    monkeypatch.setattr(pythons, "available", lambda: ("3.12", "3.11", "3.10"))
    assert choose(["3.10", "3.9"], ">=3.8,<3.11", "3.11") == ["3.10"]
    assert choose([], None, "3.11") == ["3.11"]
    assert choose(["3.5", "2.7"], None, "3.11") == ["3.11", "3.10"], "code older than every interpreter: older first"


def test_a_test_failing_only_under_load_or_only_sometimes_is_left_out_and_named():
    parent = [{"t::a": "failed", "t::b": "passed", "t::c": "failed", "t::d": "passed", "t::e": "failed"}] * 2
    commit = [{"t::a": "passed", "t::b": "passed", "t::c": "passed", "t::d": "passed", "t::e": "failed"},
              {"t::a": "passed", "t::b": "passed", "t::c": "failed", "t::d": "passed", "t::e": "failed"},
              {"t::a": "passed", "t::b": "passed", "t::c": "passed", "t::d": "failed", "t::e": "failed"}]
    f2p, p2p, out = measure_sets(parent, commit)
    assert (f2p, p2p) == (["t::a"], ["t::b"])
    assert out == ["t::c (flaky on the commit: passed, failed, passed)",
                   "t::d (flaky on the commit (fails under load): passed, passed, failed)"]
    # A test whose parent outcome varied can be neither set.
    f2p, p2p, out = measure_sets([{"t::a": "failed"}, {"t::a": "passed"}], [{"t::a": "passed"}] * 3)
    assert (f2p, p2p) == ([], []) and out[0].startswith("t::a (flaky on the parent")


BASE = '''def window(page, pages, size):
    return list(range(page, page + size))
'''
FIX = '''def window(page, pages, size):
    start = max(1, page - size // 2)
    if start + size > pages:
        start = max(1, pages - size + 1)
    return list(range(start, start + size))
'''


def test_wrong_fixes_change_one_thing_inside_the_fix_and_every_one_parses():
    ms = mut.mutants("p.py", BASE, FIX)
    ops = {m.op for m in ms}
    assert {"drop", "negate", "compare", "constant", "names", "arith", "args"} <= ops
    for m in ms:
        out = m.apply(FIX, BASE)
        ast.parse(out)
        assert out not in (FIX, BASE)
        if m.op not in ("revert", "drop"):  # one line of the fix differs, nothing outside it
            changed = [i for i, (a, b) in enumerate(zip(out.splitlines(), FIX.splitlines(), strict=True)) if a != b]
            assert len(changed) == 1 and changed[0] + 1 in mut.changed_lines(BASE, FIX), (m, out)
        assert all(len(e[2]) <= 12 for e in m.edits), "an edit's text is an operator, a number or a name"
    drop = next(m for m in ms if m.op == "drop" and "line 3" in m.what)  # the whole `if` the fix added
    assert drop.apply(FIX, BASE).splitlines()[2] == "    pass"
    compare = next(m for m in ms if m.op == "compare")
    assert "if start + size >= pages:" in compare.apply(FIX, BASE)  # the off-by-one at the boundary
    first = [m.op for m in mut.round_robin([ms])][:4]
    assert len(set(first)) == 4, "the first tries cover different kinds of mistake"


def test_the_prompt_check_names_an_exception_and_message_no_text_states():
    hidden = {"tests/test_p.py": "import pytest\n\ndef test_bad():\n    with pytest.raises(PageError, match='page 0 "
              "is out of range'):\n        window(0)\n\ndef test_ok():\n    assert window(1) == [1]\n"}
    ids = ["tests/test_p.py::test_bad", "tests/test_p.py::test_ok"]
    found = gaps(ids, hidden, "Fix window() for the first page.", [])
    assert found == ["tests/test_p.py::test_bad: exception type 'PageError'",
                     "tests/test_p.py::test_bad: message 'page 0 is out of range'"]
    stated = "window(0) must raise PageError with the message 'page 0 is out of range'."
    assert gaps(ids, hidden, stated, []) == []
    assert gaps(ids, hidden, "Fix window().", ["class PageError(Exception): page 0 is out of range"]) == []


def test_a_marked_task_is_in_no_default_run_and_runs_only_when_named(tmp_path: Path):
    import yaml

    from gatebench.suite.suites import default_ids, marked, select, suite_ids

    for tid, gaps_ in (("T1", None), ("fix1", []), ("fix2", ["tests/t.py::test_x: exception type 'E'"])):
        (tmp_path / "tasks" / tid / "repo").mkdir(parents=True)
        data = {"id": tid} if gaps_ is None else {"id": tid, "source": {"repo": "r", "prompt_gaps": gaps_}}
        (tmp_path / "tasks" / tid / "task.yaml").write_text(yaml.safe_dump(data))
    assert marked(tmp_path, "fix2") and not marked(tmp_path, "fix1")
    assert default_ids(tmp_path) == ["T1", "fix1"]
    assert suite_ids("quick", tmp_path) == ["T1"]
    assert select(None, ["fix2"], tmp_path) == ["fix2"]


def test_a_long_failing_list_cut_by_the_hooks_event_is_no_flake_but_a_changed_one_is():
    from gatebench.suite.selftest import Judged

    ids = [f"t.py::test_{n:03}" for n in range(120)]
    event = {"failing": ids[:50], "failing_total": 120}
    assert Judged("inject:x", {}, event, [], [], {"failing": list(reversed(ids))}).flaky() == []
    assert Judged("inject:x", {}, event, [], [], {"failing": ids[:119]}).flaky() == ["failing 120 then 119"]
    assert Judged("inject:x", {}, event, [], [], {"failing": ids[1:]}).flaky()
    short = {"failing": ids[:3]}
    assert Judged("inject:x", {}, short, [], [], {"failing": ids[:4]}).flaky() == [ids[3]]


def test_an_op_outside_the_order_an_added_module_left_out_is_tried_after_the_others():
    """parsimonious 0.10.0..0.11.0 adds a module: its `omit` wrong fix crashed round_robin (KeyError: 'omit')."""
    ms = [mut.Mutant("a.py", "omit", "a.py left out"), mut.Mutant("b.py", "drop", "line 3 left out")]
    assert [m.op for m in mut.round_robin([ms[:1], ms[1:]])] == ["drop", "omit"]
