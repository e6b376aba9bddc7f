"""The seal wherever things are put: a bench home, its task environments and the cell under /tmp, under HOME, or
elsewhere. Through the real CLI and gatebench's own `claude` worker (sealed, the fake API playing the agent), the
agent gets what it needs where it lives (its work copy, the task environment's interpreter and packages, the
visible tests) and none of what is private there (the bench home, another cell, the state dir, the repository
the task was imported from, the worktree tools, the git files the CLI would read outside the sandbox)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from cli_harness import fake_api, require_claude
from conftest import ROOT, elsewhere

from gatebench.cell.cell import CellPaths
from gatebench.cell.seal import _tool_results
from gatebench.cell.workers import WorkerOptions, run_worker
from gatebench.sim.brain import brain_from_data

pytestmark = [pytest.mark.cli, pytest.mark.slow]

SECRET = "GATEBENCH-PLACEMENT-SECRET-41d9"
HIDDEN_MARK = "test_exact_multiple_has_no_empty_page"  # a hidden test's name: in no file the agent may see
ENV_MARK = "TASK-ENV-PACKAGE-7c2e"
PY = f"{sys.version_info[0]}.{sys.version_info[1]}"


BASES = {"tmp": lambda: Path(tempfile.gettempdir()), "home": Path.home, "elsewhere": elsewhere}


@pytest.fixture(params=sorted(BASES))
def place(request) -> Path:
    base = BASES[request.param]()
    if base is None:
        pytest.skip("no writable folder outside the temp dir and HOME")
    root = Path(tempfile.mkdtemp(prefix="gatebench-placement-", dir=base)).resolve()
    yield root
    shutil.rmtree(root, ignore_errors=True)


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], env=env,
                          check=True, capture_output=True, text=True).stdout


def source_repo(root: Path) -> Path:
    """The repository an imported task came from: the fix (here, the secret) only in its history."""
    src = root / "src"
    src.mkdir()
    git(src, "init", "-q")
    (src / "fix.py").write_text(f"# {SECRET}\n")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "the fix")
    (src / "fix.py").unlink()
    (src / "README").write_text("no fix here\n")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "later")
    return src


def bench_home(root: Path, src: Path) -> Path:
    """A bench home holding T1 as an imported task would be: with a task environment and a source repository."""
    bench = root / "bench"
    (bench / "configs").mkdir(parents=True)
    shutil.copy(ROOT / "configs" / "none.yaml", bench / "configs" / "none.yaml")
    for d in ("tasks", "hidden", "reference", "inject"):
        shutil.copytree(ROOT / d / "T1", bench / d / "T1", ignore=shutil.ignore_patterns("__pycache__"))
    task = yaml.safe_load((bench / "tasks" / "T1" / "task.yaml").read_text())
    head = git(src, "rev-parse", "HEAD").strip()
    task["env"] = {"python": PY, "install": False}
    task["source"] = {"repo": str(src), "commit": head, "parent": head, "prompt_from": "commit message"}
    (bench / "tasks" / "T1" / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    return bench


def task_env(bench: Path, cache: Path) -> Path:
    """The task's environment in the cache, as a finished build leaves it: a venv with its own package, pytest
    reached through a .pth (as a dependency installed in place is). Built here without pip (seconds saved)."""
    from gatebench.models.task import TaskEnv
    from gatebench.suite.taskenv import env_key, fingerprint

    d = cache / env_key(bench / "tasks" / "T1" / "repo", TaskEnv(python=PY, install=False))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(d)], check=True)
    site = next((d / "lib").glob("python*/site-packages"))
    (site / "envmark.py").write_text(f"MARK = {ENV_MARK!r}\n")
    (site / "pytest_from_here.pth").write_text(str(Path(pytest.__file__).resolve().parent.parent) + "\n")
    (d / "ready.json").write_text(json.dumps({"key": d.name, "fingerprint": fingerprint(d)}) + "\n")
    return d


def bash(cmd: str) -> dict:
    return {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": cmd, "description": "x"}}]}


def tool(tool_name: str, **inp) -> dict:
    return {"content": [{"type": "tool_use", "name": tool_name, "input": inp}]}


def test_the_sealed_agent_gets_what_it_needs_and_nothing_private_wherever_they_live(place, monkeypatch):
    require_claude()
    from gatebench.cell.prep import prep

    src = source_repo(place)
    bench = bench_home(place, src)
    cache = place / "envs"
    env_dir = task_env(bench, cache)
    monkeypatch.setenv("GATEBENCH_HOME", str(bench))
    monkeypatch.setenv("GATEBENCH_ENV_CACHE", str(cache))
    run = bench / "runs" / "R"
    cell = CellPaths(run / "cells" / "none" / "T1" / "r0")
    prep("T1", "none", cell.root, run_id="R")
    other = run / "cells" / "none" / "T1" / "r1" / "repo" / "other.py"
    other.parent.mkdir(parents=True)
    other.write_text(f"# {SECRET}\n")
    (cell.state / "secret.txt").write_text(f"{SECRET}\n")
    git_config = (cell.repo / ".git" / "config").read_text()
    turns = [
        bash("python -c 'import sys, envmark; print(\"PREFIX=\" + sys.prefix, envmark.MARK)'"),
        bash("python -m pytest -q -p no:cacheprovider tests 2>&1 | tail -1"),
        bash(f"cat {bench}/hidden/T1/*.py {other} {cell.state}/secret.txt; git -C {src} log -p | head -20; "
             f"ls {src} {src}/.git {cache}; cat {src}/.git/HEAD; true"),
        tool("Read", file_path=str(src / ".git" / "config")),
        tool("Read", file_path=str(other)),
        tool("Write", file_path=str(cell.repo / ".git" / "config"), content="[core]\n\tfsmonitor = touch /tmp/x\n"),
        tool("EnterWorktree", name="escape"),
        bash("echo ok > own.txt && cat own.txt"),
    ]
    script = {"steps": [{"on": "start", "turns": [*turns, {"content": [{"type": "text", "text": "Done."}]}]}]}
    with fake_api(brain_from_data(script)) as (url, api):
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
        info = run_worker("claude", cell, WorkerOptions(timeout_s=180, max_turns=20, sealed=True))
        results = _tool_results(api.message_requests())
    assert info["rc"] == 0 and len(results) == len(turns), (info, results)
    text = [t for _, t in results]
    # What it needs, where it lives: the task environment's interpreter and package, the visible tests, its copy.
    assert f"PREFIX={env_dir} {ENV_MARK}" in text[0], results[0]
    assert " passed" in text[1] and "error" not in text[1], results[1]
    assert text[7].strip() == "ok", results[7]
    # Nothing private, wherever it lives.
    seen = "\n".join(text)
    assert SECRET not in seen and HIDDEN_MARK not in seen, results
    for f in cell.repo.rglob("*"):
        if f.is_file() and ".git" not in f.parts:
            assert SECRET not in f.read_text(errors="replace"), f
    assert all("denied by your permission settings" in t or "outside what this agent may read" in t
               for t in text[3:5]), results[3:5]
    assert "may not write" in text[5] and (cell.repo / ".git" / "config").read_text() == git_config, results[5]
    assert "No such tool available: EnterWorktree" in text[6], results[6]
