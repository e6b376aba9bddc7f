"""The review gate inside the real hook process, with `command` reviewers (no model, no CLI needed)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXED, gatebench_cli, hook_input, run_hook, state_of

from gatebench.models.events import HookEvent

# Passes the visible test (add(2, 3) == 5) but is wrong for a == 1: only a reviewer can see it.
SNEAKY = "def add(a, b):\n    return a + b if a != 1 else b\n"

REVIEWER = """#!/bin/sh
input=$(cat)
printf '%s' "$input" > "$(dirname "$0")/last_stdin.json"
case "$input" in
  *'a != 1'*) echo '{"verdict": "block", "findings": [{"file": "calc.py", "line": 2, "severity": "high",
      "claim": "add(1, x) returns x instead of 1 + x", "evidence": "add(1, 2) == 2"}],
      "summary": "special case for a == 1", "cost_usd": 0.0125}' ;;
  *) echo '{"verdict": "pass", "findings": [], "summary": "fine", "cost_usd": 0.0125}' ;;
esac
"""


def setup(calc_repo: Path, reviewer_sh: str, on_error: str = "open") -> tuple[Path, Path, Path]:
    d = calc_repo.parent / "defs"
    d.mkdir()
    (d / "rev.sh").write_text(reviewer_sh)
    (d / "rev.sh").chmod(0o755)
    (d / "cmdrev.md").write_text("---\nbackend: command\ncommand: '{dir}/rev.sh'\ntimeout_s: 20\n---\n"
                                 "Review the task {task} against the diff {diff}.\n")
    cfg = calc_repo.parent / "cfg.yaml"
    cfg.write_text(f"name: cmdreview\non_error: {on_error}\ngates:\n  - kind: diff\n  - kind: tests\n"
                   f"  - kind: review\n    reviewers: [{d / 'cmdrev.md'}]\n")
    gatebench_cli("install", str(calc_repo), "--config", str(cfg))
    return calc_repo, state_of(calc_repo), d


def test_command_reviewer_blocks_what_tests_miss_then_allows_the_fix(calc_repo):
    repo, state, d = setup(calc_repo, REVIEWER)
    (repo / "calc.py").write_text(SNEAKY)
    out, ev = run_hook(state, hook_input(repo))
    assert [g["verdict"] for g in ev["gates"]] == ["pass", "pass", "block"]
    review = ev["gates"][2]
    assert review["kind"] == "review" and review["cost_usd"] == 0.0125
    assert out["decision"] == "block"
    assert "calc.py:2: add(1, x) returns x instead of 1 + x" in out["reason"]
    assert "Evidence: add(1, 2) == 2" in out["reason"]
    seen = json.loads((d / "last_stdin.json").read_text())
    assert "+    return a + b if a != 1 else b" in seen["diff"]
    assert "1 passed" in seen["test_output"]  # the reviewer saw the visible tests' output
    assert seen["files"] == [{"path": "calc.py", "status": "changed"}]
    assert list((state / "reviews").glob("*-cmdrev.out"))  # raw output kept for the person debugging

    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo, stop_hook_active=True))
    assert out is None and ev["decision"] == "allow"
    assert ev["gates"][2]["verdict"] == "pass" and ev["gates"][2]["details"]["reviewers"][0]["summary"] == "fine"
    for line in (state / "events.jsonl").read_text().splitlines():
        HookEvent.model_validate_json(line)


def test_broken_reviewer_is_an_error_never_a_pass(calc_repo):
    repo, state, _ = setup(calc_repo, "#!/bin/sh\necho 'rate limited' >&2\nexit 1\n", on_error="open")
    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo))
    review = ev["gates"][2]
    assert review["verdict"] == "error" and "exit 1: rate limited" in review["details"]["error"]
    assert ev["decision"] == "allow" and "gate errors" in out["systemMessage"]  # open: allowed, but said


def test_broken_reviewer_blocks_when_closed(calc_repo):
    repo, state, _ = setup(calc_repo, "#!/bin/sh\necho 'I approve.'\n", on_error="closed")
    (repo / "calc.py").write_text(FIXED)
    out, ev = run_hook(state, hook_input(repo))
    assert ev["gates"][2]["verdict"] == "error"
    assert "no JSON verdict" in ev["gates"][2]["details"]["error"]
    assert out["decision"] == "block"


def test_missing_reviewer_definition_is_an_error(installed):
    repo, state = installed
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["gates"].append({"kind": "review", "name": "review", "reviewers": ["ghost"]})
    (state / "config.json").write_text(json.dumps(cfg))
    (repo / "calc.py").write_text(FIXED)
    _out, ev = run_hook(state, hook_input(repo))
    assert ev["gates"][2]["verdict"] == "error"
    assert "['ghost'] are not in the resolved config" in ev["gates"][2]["details"]["error"]


def test_review_verb_with_a_command_reviewer(calc_repo):
    repo, _state, d = setup(calc_repo, REVIEWER)
    (repo / "calc.py").write_text(SNEAKY)
    r = gatebench_cli("review", str(repo), str(d / "cmdrev.md"), check=False)
    assert r.returncode == 1, r.stderr
    assert "verdict:  BLOCK" in r.stdout and "calc.py:2: add(1, x) returns x instead of 1 + x" in r.stdout
    r = gatebench_cli("review", str(repo), str(d / "cmdrev.md"), "--json", check=False)
    data = json.loads(r.stdout)
    assert data["verdict"] == "block" and data["cost_usd"] == 0.0125 and data["files"][0]["path"] == "calc.py"
    (repo / "calc.py").write_text(FIXED)
    r = gatebench_cli("review", str(repo), str(d / "cmdrev.md"), "--json")
    assert json.loads(r.stdout)["verdict"] == "pass"
    bad = gatebench_cli("review", str(repo.parent / "defs"), "adv", check=False)
    assert bad.returncode == 2 and "neither a prepared cell" in bad.stderr


def test_claude_reviewer_without_credentials_is_a_gate_error_naming_them_and_starts_nothing(calc_repo, tmp_path):
    """Inside the hook: the same words as `gatebench review`, as the gate's error; no `claude` started."""
    calls = tmp_path / "claude-calls.log"
    stub = tmp_path / "claude-stub"
    stub.write_text(f"#!/bin/sh\necho \"$@\" >> '{calls}'\nexit 1\n")
    stub.chmod(0o755)
    gatebench_cli("install", str(calc_repo), "--config", "adv")
    state = state_of(calc_repo)
    (calc_repo / "calc.py").write_text(FIXED)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "GATEBENCH_CLAUDE": str(stub)}
    out, ev = run_hook(state, hook_input(calc_repo), env=env)
    review = next(g for g in ev["gates"] if g["kind"] == "review")
    assert review["verdict"] == "error", review
    assert "no credentials for the real API: set ANTHROPIC_API_KEY" in review["details"]["error"]
    assert not calls.exists()
    assert ev["decision"] == "allow" and "review" in out["systemMessage"]  # on_error open: allowed, and said
