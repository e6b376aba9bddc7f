"""`gatebench task import`: the task environment an import builds. The agent's Bash `python` in a prepared cell is
the environment's, a changed environment is tamper and is rebuilt, and a project that excludes this Python gets an
interpreter its classifiers name. (The import itself: tests/test_task_import.py, whose fixtures these share.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_task_import import (  # noqa: F401  (history and home are fixtures)
    ENV_CACHE,
    FIX_MESSAGE,
    NEW_TEST,
    PRICES_BUG,
    PRICES_FIX,
    VISIBLE,
    cli,
    commit_files,
    git,
    history,
    home,
)


def test_the_agents_own_python_in_a_prepared_cell_is_the_task_environment(history, home: Path, tmp_path: Path):  # noqa: F811
    """Real CLI: the cell's settings put the task environment first on PATH, so the agent's Bash `python` is the
    environment's, as are the visible tests and the oracle (the resolved config's python)."""
    from cli_harness import describe_run, fake_api, run_cli

    from gatebench.sim.brain import brain_from_data

    repo, c = history
    res = json.loads(cli("task", "import", str(repo), c["fix"], "--json").stdout)
    cell = tmp_path / "cell"
    cli("prep", "T1", "--config", "none", "--out", str(cell))
    env_dir = ENV_CACHE / res["env"]["key"]
    resolved = json.loads((cell / "state" / "config.json").read_text())
    assert resolved["python"] == str(env_dir / "bin" / "python")
    bash = {"content": [{"type": "tool_use", "name": "Bash", "input": {
        "command": "python -c 'import sys; print(\"PREFIX=\" + sys.prefix)'", "description": "which python"}}]}
    script = {"steps": [{"on": "start", "turns": [bash, {"content": [{"type": "text", "text": "Done."}]}]}]}
    with fake_api(brain_from_data(script)) as (url, api):
        run = run_cli("check python", cell / "repo", url, home=cell / "home")
    bodies = json.dumps([r["body"] for r in api.message_requests()])
    assert f"PREFIX={env_dir}" in bodies, describe_run(run, api)



def test_a_task_environment_changed_after_its_build_is_tamper_and_is_rebuilt(tmp_path: Path):
    """The agent's `python` is the environment's, so it can `pip install` into it: a pytest plugin or a .pth
    there would run inside the oracle. finalize counts a changed environment as tamper; the next use rebuilds."""
    from gatebench.models.task import TaskEnv
    from gatebench.suite.taskenv import ensure_env, env_tampered, fingerprint, intact

    base = tmp_path / "base"
    base.mkdir()
    (base / "m.py").write_text("X = 1\n")
    spec = TaskEnv(python=f"{sys.version_info[0]}.{sys.version_info[1]}", setup="echo tamper-test")
    env = ensure_env(base, spec, ENV_CACHE)
    before = fingerprint(env.dir)
    # Using the environment as the bench and the agent do leaves it intact.
    r = subprocess.run([env.python, "-m", "pytest", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and intact(env.dir) and fingerprint(env.dir) == before
    assert env_tampered(env.python) == []
    site = next((env.dir / "lib").glob("python*/site-packages"))
    (site / "zz_agent.pth").write_text("import os\n")
    assert env_tampered(env.python) == [f"<task environment {env.dir.name}>"] and not intact(env.dir)
    again = ensure_env(base, spec, ENV_CACHE)
    assert again.built and intact(again.dir) and not (site / "zz_agent.pth").exists()
    assert env_tampered(sys.executable) == [], "the bench's own interpreter is no task environment"


def test_a_project_that_excludes_this_python_gets_an_interpreter_its_classifiers_name(tmp_path: Path, home: Path):  # noqa: F811
    from gatebench.suite.pythons import available

    if "3.10" not in available():
        pytest.skip("no real python3.10 here (pyenv's versions/, /usr/bin); the choice needs one")
    repo = tmp_path / "old"
    repo.mkdir()
    git(repo, "init", "-q")
    toml = ('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n[project]\n'
            'name = "shop"\nversion = "1.0"\nrequires-python = ">=3.8,<3.11"\nclassifiers = ["Programming Language :: '
            'Python :: 3.9", "Programming Language :: Python :: 3.10"]\n[tool.setuptools]\npackages = ["shop"]\n')
    probe = "import sys\n\n\ndef test_runs_on_the_chosen_python():\n    assert sys.version_info[:2] == (3, 10)\n"
    commit_files(repo, {"pyproject.toml": toml, "shop/__init__.py": "", "shop/prices.py": PRICES_BUG,
                        "tests/test_prices.py": VISIBLE}, "shop")
    fix = commit_files(repo, {"shop/prices.py": PRICES_FIX, "tests/test_discount.py": NEW_TEST + "\n\n" + probe},
                       FIX_MESSAGE)
    # The import stopped right after its environment step (both FAIL_TO_PASS tests left out: nothing goes from
    # failing to passing, exit 2): the choice is made there, and the refusal shows each hidden test's outcome on
    # the commit, measured in the chosen environment. The rest of a whole import proves nothing more here (the
    # whole one: tests/test_task_import.py).
    f2p = ["tests/test_discount.py::test_discount_rounds_half_up", "tests/test_discount.py::test_percent_above_100_is_clamped"]
    r = cli("task", "import", str(repo), fix, "--id", "old", "--exclude", *f2p, check=False)
    assert r.returncode == 2 and "nothing goes from failing to passing" in r.stderr, r.stderr
    chosen = re.search(r"environment (task-py3\.10-[0-9a-f]+) \(python 3\.10\): (built|reused) in ", r.stderr)
    assert chosen, r.stderr
    cfg = (ENV_CACHE / chosen.group(1) / "pyvenv.cfg").read_text()
    assert "version = 3.10." in cfg and "shims" not in cfg, cfg  # a real interpreter, not pyenv's shim
    # the probe ran, and passed, on the commit: in 3.10
    assert "tests/test_discount.py::test_runs_on_the_chosen_python (parent: passed, commit: passed)" in r.stderr, r.stderr
    assert not (home / "tasks" / "old").exists()
