"""The `command` gate: a plain Claude Code Stop hook, run unchanged by gatebench's hook (a cold process).

Each case is a tiny hook script; the gate must read its answer as Claude Code does (block JSON,
exit 2, nothing = pass, continue:false), and turn every way a hook can be broken (exit 1, garbage,
a hang, too much output) into an `error` verdict decided by on_error, never a silent pass.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from conftest import FIXED, gatebench_cli, hook_input, run_hook, state_of
from pydantic import ValidationError

from gatebench.models.config import GateConfig


def hook_script(tmp: Path, body: str, name: str = "hook.py") -> str:
    """A Stop hook written as a user would: python reading stdin, answering on stdout/stderr/exit code."""
    path = tmp / name
    path.write_text("import json, os, sys, time\ndata = sys.stdin.read()\n" + body + "\n")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


@pytest.fixture
def gated(calc_repo, tmp_path):
    """calc_repo installed with a config whose only gate is a command gate (command set per test)."""
    cfg = tmp_path / "byo.yaml"
    cfg.write_text("name: byo\ngates:\n  - kind: command\n    name: myhook\n    command: 'true'\n")
    gatebench_cli("install", str(calc_repo), "--config", str(cfg))
    state = state_of(calc_repo)
    (calc_repo / "calc.py").write_text(FIXED)

    def with_command(command: str, on_error: str = "open", **fields) -> None:
        resolved = json.loads((state / "config.json").read_text())
        resolved["config"]["gates"][0].update(command=command, **fields)
        resolved["config"]["on_error"] = on_error
        (state / "config.json").write_text(json.dumps(resolved))

    return calc_repo, state, with_command


def test_block_json_blocks_with_its_reason_and_the_hook_sees_claude_codes_stdin(gated, tmp_path):
    repo, state, with_command = gated
    seen = tmp_path / "seen.json"
    with_command(hook_script(tmp_path, f"""
json.dump({{"stdin": data, "cwd": os.getcwd(), "project": os.environ.get("CLAUDE_PROJECT_DIR")}},
          open({str(seen)!r}, "w"))
print(json.dumps({{"decision": "block", "reason": "LINT: calc.py has no docstring"}}))"""))
    stdin = hook_input(repo, transcript_path="/nowhere.jsonl")
    out, ev = run_hook(state, stdin)
    gate = ev["gates"][0]
    assert gate["name"] == "myhook" and gate["kind"] == "command" and gate["verdict"] == "block"
    assert ev["decision"] == "block" and "LINT: calc.py has no docstring" in out["reason"]
    got = json.loads(seen.read_text())
    assert got["stdin"] == stdin  # byte for byte what Claude Code gave gatebench's hook
    assert got["cwd"] == str(repo) and got["project"] == str(repo)


@pytest.mark.parametrize("body, verdict, needle", [
    ("sys.stderr.write('exit-2 reason: fix the tests'); sys.exit(2)", "block", "exit-2 reason: fix the tests"),
    ("sys.exit(0)", "pass", None),
    ("print(json.dumps({'systemMessage': 'all fine'}))", "pass", None),
    ("print(json.dumps({'decision': 'approve'}))", "pass", None),
    ("print(json.dumps({'continue': False, 'stopReason': 'policy says stop'}))", "block", "policy says stop"),
])
def test_claude_codes_reading_rules(gated, tmp_path, body, verdict, needle):
    repo, state, with_command = gated
    with_command(hook_script(tmp_path, body))
    out, ev = run_hook(state, hook_input(repo))
    gate = ev["gates"][0]
    assert gate["verdict"] == verdict, gate
    assert ev["decision"] == ("block" if verdict == "block" else "allow")
    if needle:
        assert needle in out["reason"]
    if "continue" in body:
        assert gate["details"]["continue_false"] is True


@pytest.mark.parametrize("body, fields, needle", [
    ("sys.stderr.write('Traceback: boom'); sys.exit(1)", {}, "exited 1"),
    ("sys.exit(3)", {}, "exited 3"),
    ("print('All good!')", {}, "not JSON"),
    ("print('[1, 2]')", {}, "not an object"),
    ("print(json.dumps({'decision': 'block'}))", {}, "needs a string `reason`"),
    ("print(json.dumps({'decision': 'deny', 'reason': 'x'}))", {}, "unknown decision"),
    ("time.sleep(60)", {"timeout_s": 1}, "did not finish within 1 s"),
    ("print(json.dumps({'decision': 'block', 'reason': 'x' * 5000}))", {"max_output_chars": 1000}, "more than 1000"),
])
@pytest.mark.parametrize("on_error", ["open", "closed"])
def test_a_broken_hook_is_an_error_decided_by_on_error_never_a_silent_pass(gated, tmp_path, body, fields, needle,
                                                                          on_error):
    repo, state, with_command = gated
    with_command(hook_script(tmp_path, body), on_error=on_error, **fields)
    out, ev = run_hook(state, hook_input(repo))
    gate = ev["gates"][0]
    assert gate["verdict"] == "error" and needle in gate["details"]["error"], gate
    if on_error == "open":
        assert ev["decision"] == "allow" and "myhook" in out["systemMessage"]  # allowed, and the user is told
    else:
        assert ev["decision"] == "block"


def test_the_same_hook_blocks_the_bad_state_and_passes_the_good_one(gated, tmp_path):
    """The shipped example hook, unchanged: it blocks while calc's tests fail and passes once they do."""
    repo, state, with_command = gated
    shipped = Path(__file__).resolve().parents[1] / "configs" / "hooks" / "pytest_stop.py"
    with_command("{python} {gatebench}/configs/hooks/pytest_stop.py", timeout_s=120)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    out, ev = run_hook(state, hook_input(repo))
    assert ev["gates"][0]["verdict"] == "block" and "test_add" in out["reason"], ev["gates"][0]
    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo, prompt="p2"))
    assert ev["gates"][0]["verdict"] == "pass" and out is None, ev["gates"][0]
    assert shipped.is_file()


@pytest.mark.parametrize("gate, field", [
    ({"kind": "command"}, "command"),
    ({"kind": "command", "command": "   "}, "blank"),
    ({"kind": "command", "command": "x", "timeout_s": 0}, "timeout_s"),
    ({"kind": "command", "command": "x", "shell": True}, "shell"),
])
def test_bad_command_gate_specs_are_refused_naming_the_field(gate, field):
    with pytest.raises(ValidationError, match=field):
        GateConfig.model_validate({"name": "x", "gates": [gate]})
