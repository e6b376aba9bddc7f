"""Every fault ends with exit 0, a deliberate decision, and the error in the event line."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest
from conftest import FIXED, alive, hook_input, run_hook
from gitsnap_helpers import git_commit_all


@pytest.fixture(params=["walk", "git"])
def calc_repo(calc_repo, request):
    """Every test here runs on both snapshot paths: a plain folder (walker) and a git work tree (gitsnap)."""
    if request.param == "git":
        git_commit_all(calc_repo)
    return calc_repo


def decided(ev):
    """What a failed assertion should show of an event: the decision, its reason, the errors and each gate's
    verdict (pytest cuts a whole event's repr short of them)."""
    return {"decision": ev["decision"], "reason": ev.get("reason"), "errors": ev["errors"],
            "gates": [(g.get("name"), g.get("verdict"), str(g.get("details"))[:500]) for g in ev.get("gates", [])]}


def last_event(state):
    return json.loads((state / "events.jsonl").read_text().splitlines()[-1])


@pytest.mark.parametrize(
    "stdin, needle",
    [("", "stdin was empty"), ("{not json", "stdin is not JSON"), ("[1, 2]", "not an object"),
     ('{"hook_event_name": "Stop"}', "stdin lacks fields: session_id, cwd")],
)
def test_bad_stdin_is_logged_and_decided(installed, stdin, needle):
    _repo, state = installed
    _out, ev = run_hook(state, stdin)
    assert any(needle in e for e in ev["errors"]), ev["errors"]
    assert ev["decision"] in ("allow", "block")  # decided by the gates / on_error, never a crash


def test_missing_config_fails_open_with_message(tmp_path):
    out, ev = run_hook(tmp_path / "state", hook_input(tmp_path))
    assert ev["decision"] == "allow"
    assert "no config" in ev["errors"][0]
    assert "on_error: open" in out["systemMessage"]


@pytest.mark.parametrize("on_error, decision", [("open", "allow"), ("closed", "block")])
def test_corrupt_config(installed, on_error, decision):
    repo, state = installed
    (state / "config.json").write_text(f'{{"schema": "gatebench.resolved/1", "config": {{"on_error": "{on_error}", ')
    out, ev = run_hook(state, hook_input(repo))
    assert "unreadable" in ev["errors"][0]
    assert ev["decision"] == "allow"  # an unreadable config cannot tell us to fail closed: open, and say so
    assert out["systemMessage"]


def set_gate(state, **fields):
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["gates"][1].update(fields)
    (state / "config.json").write_text(json.dumps(cfg))
    return cfg


@pytest.mark.parametrize("on_error, decision", [("open", "allow"), ("closed", "block")])
def test_test_command_not_found(installed, on_error, decision):
    repo, state = installed
    cfg = set_gate(state, command="no-such-command-xyz --run")
    cfg["config"]["on_error"] = on_error
    (state / "config.json").write_text(json.dumps(cfg))
    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo))
    tests = ev["gates"][1]
    assert tests["verdict"] == "error" and "command not found" in tests["details"]["error"]
    assert ev["decision"] == decision
    if decision == "allow":
        assert "tests: command not found" in out["systemMessage"]
    else:
        assert "could not run" in out["reason"]


def test_hanging_tests_are_killed_with_their_group(installed, tmp_path):
    repo, state = installed
    pidfile = tmp_path / "child.pid"
    # the command forks a grandchild that would outlive a plain kill of the shell
    set_gate(state, command=f"sleep 300 & echo $! > {pidfile}; sleep 300", timeout_s=1.5)
    (repo / "calc.py").write_text(FIXED)
    t0 = time.monotonic()
    out, ev = run_hook(state, hook_input(repo))
    assert time.monotonic() - t0 < 120  # killed at its 1.5 s timeout, not after sleep 300
    assert ev["gates"][1]["details"]["timed_out"] is True
    assert out["decision"] == "block" and "did not finish within" in out["reason"]
    assert not alive(int(pidfile.read_text()))



def test_unwritable_state_dir_uses_fallback_log(installed, tmp_path):
    repo, state = installed
    # root ignores file modes, so make the paths impossible instead of read-only
    (state / "events.jsonl").mkdir()
    (state / "sessions").mkdir(exist_ok=True)
    (state / "sessions" / "s1.json").mkdir()
    fallback = tmp_path / "fallback.jsonl"
    env = dict(os.environ, GATEBENCH_FALLBACK_LOG=str(fallback))
    r = subprocess.run([os.sys.executable, "-m", "gatebench.hook", "stop", "--state", str(state)],
                       input=hook_input(repo), capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    out = json.loads(r.stdout)
    ev = json.loads(fallback.read_text().splitlines()[-1])
    assert any("cannot save session state" in e for e in ev["errors"])
    assert any("fallback" in e for e in ev["errors"])
    assert ev["decision"] == "block"  # the gates still ran and decided (nothing changed yet)
    assert "not writable" in out["systemMessage"]


def test_non_utf8_file_and_name(installed):
    repo, state = installed
    (repo / "calc.py").write_text(FIXED)
    (repo / "latin1.txt").write_bytes(b"caf\xe9 \xff\xfe")
    os.close(os.open(os.path.join(os.fsencode(repo), b"bad-\xff.txt"), os.O_CREAT | os.O_WRONLY))
    out, ev = run_hook(state, hook_input(repo))
    assert ev["decision"] == "allow" and out is None and not ev["errors"], ev
    assert "latin1.txt" in ev["diff"]["created"]
    assert ev["diff"]["counts"]["created"] == 2


def test_symlink_loop(installed):
    repo, state = installed
    (repo / "calc.py").write_text(FIXED)
    # Under build/, which pytest does not collect: the snapshot must walk the loops, but pytest's own walk of a
    # self-link (40 levels deep, until ELOOP) once failed collection in CI (a fresh clone at load 20), and the
    # project's tests are not what this test is about.
    (repo / "build").mkdir()
    os.symlink("loop-b", repo / "build" / "loop-a")
    os.symlink("loop-a", repo / "build" / "loop-b")
    os.symlink(".", repo / "build" / "self-dir")
    out, ev = run_hook(state, hook_input(repo))
    assert ev["decision"] == "allow" and out is None and not ev["errors"], decided(ev)
    assert {"build/loop-a", "build/loop-b", "build/self-dir"} <= set(ev["diff"]["created"]), ev["diff"]["created"]


def test_gate_crash_is_an_error_verdict_not_a_traceback(installed):
    repo, state = installed
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["gates"].append({"kind": "no_such_gate", "name": "mystery"})
    (state / "config.json").write_text(json.dumps(cfg))
    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo))
    assert ev["gates"][2]["verdict"] == "error" and "unknown gate kind" in ev["gates"][2]["details"]["error"]
    assert ev["decision"] == "allow" and "mystery" in out["systemMessage"]


def test_guard_variable_makes_hook_a_noop(installed):
    repo, state = installed
    env = dict(os.environ, GATEBENCH_HOOK_DISABLED="1")
    r = subprocess.run([os.sys.executable, "-m", "gatebench.hook", "stop", "--state", str(state)],
                       input=hook_input(repo), capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and r.stdout == ""
    assert not (state / "events.jsonl").exists()


def test_hook_error_under_fail_closed_blocks_within_the_budget(installed):
    repo, state = installed
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["on_error"] = "closed"
    cfg["config"]["budget"]["blocks"] = 1
    (state / "config.json").write_text(json.dumps(cfg))
    (state / "baseline" / "manifest.json").unlink()  # the hook cannot diff: its own failure, not the agent's
    out, ev = run_hook(state, hook_input(repo))
    assert ev["decision"] == "block" and "no baseline snapshot" in out["reason"]
    assert any("no baseline snapshot" in e for e in ev["errors"])
    out, ev = run_hook(state, hook_input(repo))
    assert ev["decision"] == "give_up" and "budget of 1 spent" in out["systemMessage"]
