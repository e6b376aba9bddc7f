"""`gatebench task import` of what real repositories need, with no option: a version from setuptools-scm, `--cov`
in the project's pytest config. (The import itself: tests/test_task_import.py, whose fixtures these share.)"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from test_task_import import ENV_CACHE, cli, commit_files, git, home  # noqa: F401  (home is a fixture)

CLOCK_TOML = """[build-system]
requires = ["setuptools>=64", "setuptools-scm>=8"]
build-backend = "setuptools.build_meta"

[project]
name = "clockpkg"
dynamic = ["version"]
requires-python = ">=3.8"

[project.optional-dependencies]
test = ["pytest"]

[tool.setuptools]
packages = ["clockpkg"]

[tool.setuptools_scm]
"""
CLOCK_BUG = '''"""Clock faces."""
from importlib.metadata import version

__version__ = version("clockpkg")


def twelve_hour(hour):
    """The 12-hour clock's hour for a 24-hour `hour`: 0 and 12 are 12."""
    return hour % 12
'''
CLOCK_FIX = CLOCK_BUG.replace("    return hour % 12\n", "    h = hour % 12\n    if h == 0:\n        return 12\n    return h\n")
CLOCK_VISIBLE = '''import importlib.metadata

import clockpkg


def test_the_installed_version_is_the_tag():
    assert clockpkg.__version__ == importlib.metadata.version("clockpkg") == "1.4"


def test_afternoon():
    assert clockpkg.twelve_hour(15) == 3
'''
CLOCK_NEW_TEST = '''from clockpkg import twelve_hour


def test_noon_and_midnight_are_twelve():
    assert twelve_hour(12) == 12 and twelve_hour(0) == 12


def test_morning():
    assert twelve_hour(9) == 9
'''


def test_a_vcs_versioned_project_with_cov_in_its_pytest_config_imports_by_default(tmp_path: Path, home: Path):  # noqa: F811
    """What real repositories need, with no option: setuptools-scm cannot build from the .git-less base (the import
    gives it the parent's tag), `--cov` in `.pytest.ini` needs pytest-cov in the environment, and the tests read the
    project's installed version (its dist-info stays; its code is the work copy's)."""
    repo = tmp_path / "clock"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_files(repo, {"pyproject.toml": CLOCK_TOML, ".pytest.ini": "[pytest]\naddopts = --cov=clockpkg --cov-report=\n",
                        "clockpkg/__init__.py": CLOCK_BUG, "tests/test_clock.py": CLOCK_VISIBLE}, "clock faces")
    git(repo, "tag", "v1.4")
    fix = commit_files(repo, {"clockpkg/__init__.py": CLOCK_FIX, "tests/test_noon.py": CLOCK_NEW_TEST},
                       "twelve_hour: noon and midnight are 12, not 0")
    r = cli("task", "import", str(repo), fix, "--id", "clock", "--json", check=False)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["fail_to_pass"] == ["tests/test_noon.py::test_noon_and_midnight_are_twelve"]
    assert res["pass_to_pass"] == ["tests/test_noon.py::test_morning"]
    assert any(p.startswith("pytest-cov==") for p in res["env"]["requirements"]), res["env"]
    assert not any(p.lower().startswith("clockpkg") for p in res["env"]["requirements"])
    task = yaml.safe_load((home / "tasks" / "clock" / "task.yaml").read_text())
    assert task["env"]["version"] == "1.4" and task["visible"]["command"] == "{python} -m pytest -q -p no:cacheprovider tests"
    assert not any("visible" in w for w in res["warnings"]), res["warnings"]  # the version test passes on the base
    # The layer holds clockpkg's metadata but none of its code: `import clockpkg` must find the work copy.
    env = ENV_CACHE / res["env"]["key"]
    site = next((env / "lib").glob("python*/site-packages"))
    assert list(site.glob("clockpkg-1.4.dist-info")) and not (site / "clockpkg").exists()
    st = cli("selftest", "--tasks", "clock")
    assert "selftest passed" in st.stdout, st.stdout


