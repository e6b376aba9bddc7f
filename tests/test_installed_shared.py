"""`gatebench install --shared` through the real Claude Code CLI: the `.claude/settings.json` one teammate
commits starts the gate on a second machine layout (another checkout path of the repo, another gatebench
checkout, another venv, another user's home) with no edit, each user keeping their own state dir; and a
teammate without gatebench is told at every stop that the gate is off, not let through silently."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from cli_harness import describe_run, fake_api, read, run_cli, say, write
from conftest import BUGGY, FIXED, ROOT, TEST, write_tree

from gatebench.sim.brain import brain_from_data, stop_feedback

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
WEAK = TEST.replace("assert add(2, 3) == 5", "assert add(2, 3) is not None")


def user_env(home: Path) -> dict:
    """Another user: their own HOME, the XDG folders at their defaults under it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    return {**env, "HOME": str(home)}


def second_layout(tmp_path: Path) -> tuple[Path, Path]:
    """Another gatebench checkout, run by another venv (its packages are this one's, by a .pth)."""
    checkout = tmp_path / "elsewhere" / "gb"
    shutil.copytree(ROOT / "gatebench", checkout / "gatebench", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "configs", checkout / "configs")
    venv = tmp_path / "elsewhere" / "venv2"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return checkout, venv / "bin" / "python"


def install(python: Path | str, checkout: Path, repo: Path, home: Path) -> str:
    r = subprocess.run([str(python), "-m", "gatebench", "install", str(repo), "--shared", "--config", "tests",
                        "--test-command", "{python} -m pytest -q -p no:cacheprovider tests", "--no-test-run"],
                       cwd=checkout, env=user_env(home), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def play(repo: Path, home: Path, script: dict):
    with fake_api(brain_from_data(script)) as (url, api):
        run = run_cli("Make add pass its test.", repo, url, home=home, timeout_s=120)
    assert run.result and run.result["subtype"] == "success", describe_run(run, api)
    feedback = [f for f in (stop_feedback(r["body"]) for r in api.message_requests()) if f is not None]
    told = [e.get("content", "") for e in run.events if e.get("type") == "system" and e.get("subtype") == "informational"]
    return feedback, told


@pytest.mark.cli
def test_the_shared_settings_start_the_gate_on_another_layout_and_say_so_where_gatebench_is_missing(
        tmp_path, claude_bin):
    origin = tmp_path / "alice" / "calc"
    write_tree(origin, {"calc.py": BUGGY, "tests/test_calc.py": TEST, ".gitignore": "__pycache__/\n"})
    subprocess.run(["git", "init", "-q", str(origin)], check=True)
    out = install(sys.executable, ROOT, origin, tmp_path / "alice")
    assert "through .claude/hooks/gatebench.sh: commit both" in out, out
    subprocess.run([*GIT, "add", "-A"], cwd=origin, check=True)
    subprocess.run([*GIT, "commit", "-qm", "team: the gate"], cwd=origin, check=True)
    shared = json.loads((origin / ".claude/settings.json").read_text())
    assert str(ROOT) not in json.dumps(shared) and sys.executable not in json.dumps(shared)

    # Bob: another checkout path, another gatebench checkout and venv, another home. No edit of the file.
    bob_home, bob_repo = tmp_path / "bob", tmp_path / "bob" / "work" / "calc"
    subprocess.run(["git", "clone", "-q", str(origin), str(bob_repo)], check=True)
    checkout, python = second_layout(tmp_path)
    install(python, checkout, bob_repo, bob_home)
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=bob_repo, capture_output=True, text=True).stdout
    assert ".claude/settings.json" not in changed and "gatebench.sh" not in changed, changed
    assert str(checkout) in (bob_home / ".config/gatebench/hook").read_text()
    status = subprocess.run([str(python), "-m", "gatebench", "status", str(bob_repo), "--no-test-run"], cwd=checkout,
                            env=user_env(bob_home), capture_output=True, text=True)
    assert status.returncode == 0 and "(shared, through .claude/hooks/gatebench.sh" in status.stdout, status.stdout
    assert "starts here" in status.stdout

    weaken = {"steps": [
        {"on": "start", "turns": [read("tests/test_calc.py"), write("tests/test_calc.py", WEAK), say("Done.")]},
        {"on": "stop_feedback", "turns": [write("tests/test_calc.py", TEST), write("calc.py", FIXED),
                                          say("Restored the test and fixed add.")]}]}
    feedback, _told = play(bob_repo, bob_home, weaken)
    assert feedback and "tests/test_calc.py::test_add" in feedback[0], feedback
    states = list((bob_home / ".local/state/gatebench").glob("calc-*"))
    assert len(states) == 1, states  # Bob's own state dir and baseline, found from $CLAUDE_PROJECT_DIR
    stops = [json.loads(x) for x in (states[0] / "events.jsonl").read_text().splitlines()]
    assert [e["decision"] for e in stops if e["hook"] == "stop"] == ["block", "allow"]

    # Carol cloned the repo but has no gatebench: every stop says the gate is off.
    carol_home, carol_repo = tmp_path / "carol", tmp_path / "carol" / "calc"
    subprocess.run(["git", "clone", "-q", str(origin), str(carol_repo)], check=True)
    feedback, told = play(carol_repo, carol_home, {"steps": [{"on": "start", "turns": [say("Nothing to do.")]}]})
    assert feedback == [] and any("stop gate is OFF on this machine" in t for t in told), told
    status = subprocess.run([sys.executable, "-m", "gatebench", "status", str(carol_repo), "--no-test-run"],
                            env=user_env(carol_home), capture_output=True, text=True)
    assert status.returncode == 1 and "BROKEN here" in status.stdout and "stop gate is OFF" in status.stderr
