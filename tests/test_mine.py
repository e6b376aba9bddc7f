"""`gatebench task mine` (SPEC section 12, "Mining tasks"): which changes are candidates, the licence rule, the
checks' wrong-fix rule, and the verb's listing over a real git history and its errors for bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_task_import import ROOT, commit_files, git

from gatebench.suite import mine
from gatebench.suite.taskimport import DEFAULT_TEST_GLOBS

GLOBS = list(DEFAULT_TEST_GLOBS)


def never(_rel: str) -> bool:
    return False


def test_a_candidate_changes_a_test_module_and_a_few_source_modules_beyond_a_version_line(tmp_path: Path):
    assert mine.classify(["pkg/core.py", "tests/test_core.py"], GLOBS, 2, never) == \
        (["pkg/core.py"], ["tests/test_core.py"], "")
    assert mine.classify(["pkg/core.py", "tests/data.json"], GLOBS, 2, never)[2] == "no test module changed"
    assert "no source module" in mine.classify(["setup.py", "docs/x.py", "tests/test_a.py"], GLOBS, 2, never)[2]
    assert "more than --max-files 1" in mine.classify(["a.py", "b.py", "test_a.py"], GLOBS, 1, never)[2]
    a, b = tmp_path / "a", tmp_path / "b"
    for t, v, body in ((a, "1.0", "x = 1"), (b, "1.1", "x = 1")):
        (t / "pkg").mkdir(parents=True)
        (t / "pkg" / "__init__.py").write_text(f'__version__ = "{v}"\n')
        (t / "pkg" / "core.py").write_text(body + "\n")
        (t / "PKG-INFO").write_text(f"Version: {v}\n")
    (b / "pkg" / "core.py").write_text("x = 2\n")
    (b / "test_core.py").write_text("def test_x(): pass\n")
    changed = mine.changed_between(a, b)
    assert changed == ["pkg/__init__.py", "pkg/core.py", "test_core.py"]  # PKG-INFO left out
    assert mine.version_only(a, b, "pkg/__init__.py") and not mine.version_only(a, b, "pkg/core.py")
    files, tests, why = mine.classify(changed, GLOBS, 2, lambda rel: mine.version_only(a, b, rel))
    assert (files, tests, why) == (["pkg/core.py"], ["test_core.py"], "")


def test_a_module_whose_only_change_is_comments_or_docstrings_is_not_part_of_the_fix(tmp_path: Path):
    # natsort 8.0.2..8.1.0: the path fix in utils.py, and typo fixes in two other modules' docstring and comment.
    a, b = tmp_path / "a", tmp_path / "b"
    base = {"pkg/core.py": 'def f():\n    """Retrun one."""\n    return 1  # teh one\n',
            "pkg/other.py": '"""Modul."""\nclass C:\n    """Differnt."""\n    x = 1\n',
            "pkg/fix.py": "def g():\n    return 1\n"}
    fix = {"pkg/core.py": 'def f():\n    """Return one."""\n    return 1  # the one\n',
           "pkg/other.py": '"""Module."""\nclass C:\n    """Different."""\n    x = 1\n',
           "pkg/fix.py": "def g():\n    return 2\n", "tests/test_fix.py": "def test_g(): pass\n"}
    for root, files in ((a, base), (b, fix)):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    assert mine.cosmetic_only(a, b, "pkg/core.py") and mine.cosmetic_only(a, b, "pkg/other.py")
    assert not mine.cosmetic_only(a, b, "pkg/fix.py")
    assert not mine.cosmetic_only(a, b, "tests/test_fix.py")  # a new module is never cosmetic
    (b / "pkg" / "other.py").write_text('"""Module."""\nclass C:\n    """Different."""\n    x = 1\n    y = "doc"\n')
    assert not mine.cosmetic_only(a, b, "pkg/other.py")  # a string that is not a docstring is code
    (b / "pkg" / "other.py").write_text(fix["pkg/other.py"])
    files, tests, why = mine.classify(mine.changed_between(a, b), GLOBS, 1,
                                      lambda rel: mine.not_code_change(a, b, rel))
    assert (files, tests, why) == (["pkg/fix.py"], ["tests/test_fix.py"], "")
    # Without the rule the typo fixes counted as modules of the fix: more than --max-files 1.
    assert "3 source modules" in mine.classify(mine.changed_between(a, b), GLOBS, 1,
                                               lambda rel: mine.version_only(a, b, rel))[2]


def test_the_licence_comes_from_pkg_info_and_only_permissive_ones_are_mined():
    assert mine.licence_of({"classifier": ["License :: OSI Approved :: MIT License"]}) == "MIT"
    assert mine.licence_of({"license-expression": ["Apache-2.0"]}) == "Apache"
    assert mine.licence_of({"license": ["GPLv3"], "classifier": ["License :: OSI Approved :: GNU General Public "
                                                                  "License v3 (GPLv3)"]}) == ""
    # pathspec states its licence only as a classifier: the refusal names it.
    assert mine.licence_of({"classifier": ["License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)"]}) == ""
    assert mine.licence_said({"classifier": ["License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)"]}) \
        == "Mozilla Public License 2.0 (MPL 2.0)"
    assert mine.repo_of({"project-url": ["Source, https://github.com/o/p"]}) == "https://github.com/o/p"


def test_an_import_refusal_keeps_its_reason_past_a_long_first_line():
    cmd = "{python} -m pytest tests " + " ".join(f"--deselect=tests/t.py::t[{i}]" for i in range(200))
    e = ValueError(f"the visible tests still fail on the base ({cmd}); pytest said:\nE   locale.Error: unsupported"
                   f"\n1 failed, 263 passed\nfix: --exclude")
    said = mine.import_error(e)
    assert said.startswith("the visible tests still fail on the base") and "1 failed, 263 passed" in said
    assert "--exclude" in said and len(said) < 500  # the first line cut, the reason kept
    assert mine.import_error(ValueError("no sdist")) == "no sdist"


def test_the_wrong_fix_rule_wants_three_of_which_two_plausible():
    assert mine.wrong_fix_problems([{"kind": "plausible"}, {"kind": "partial"}, {"kind": "crude"}]) == []
    assert mine.wrong_fix_problems([{"kind": "plausible"}, {"kind": "crude"}, {"kind": "crude"}, {"kind": "noop"}]) \
        == ["1 plausible wrong fixes (2 required)"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gatebench", "task", "mine", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_mine_lists_a_git_historys_candidates_and_names_what_is_not_one(tmp_path: Path):
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_files(repo, {"proj/core.py": "def f():\n    return 1\n", "tests/test_core.py": "def test_f(): pass\n"},
                 "first")
    fix = commit_files(repo, {"proj/core.py": "def f():\n    return 2\n",
                              "tests/test_core.py": "from proj.core import f\n\ndef test_f():\n    assert f() == 2\n"},
                       "f returns two now, as the docs always said it should")
    commit_files(repo, {"README.md": "docs\n"}, "docs only")
    r = run(str(repo), "--git", "--list", "--last", "5")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(f"proj {fix[:12]}: candidate: fix proj/core.py; tests tests/test_core.py" in x for x in lines), lines
    assert any("no test module changed" in x for x in lines) and any("a root commit" in x for x in lines)
    assert "[mine] 3/3" in r.stderr and "3 looked at, 1 candidates listed, 0 imported" in r.stderr
    bad = run(str(tmp_path), "--git")
    assert bad.returncode == 2 and "not a git repository" in bad.stderr
    (tmp_path / "p.yaml").write_text("- not a mapping\n")
    bad = run("parse", "--pypi", "--versions", "1.0", "1.1", "--prompts", str(tmp_path / "p.yaml"))
    assert bad.returncode == 2 and "expected a mapping" in bad.stderr
    h = run("--help")
    assert "--pypi" in h.stdout and "--prompts" in h.stdout and "The checks" in h.stdout
