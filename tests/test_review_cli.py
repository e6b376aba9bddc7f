"""Reviewers through the real Claude Code CLI, talking to the fake Messages API.

1. The hook runs `adv` through the `claude` backend inside a real agent session: the hook fires once
   per stop attempt (the reviewer's own `claude -p` re-enters neither gatebench's hook nor the user's
   hooks), the reviewer's finding reaches the agent, and its cost lands in the event line.
2. `gatebench review WORK adv` by hand, on an installed repo and on a bench cell.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from cli_harness import describe_run, fake_api, require_claude, run_cli
from conftest import FIXED, ROOT, gatebench_cli, state_of

from gatebench.claude_cli import claude_env
from gatebench.hook.state import read_events
from gatebench.installer.configs import load_config, resolve, write_resolved
from gatebench.models.config import TaskBinding
from gatebench.review.prompt import REVIEW_MARKER
from gatebench.sim.brain import brain_from_data, first_user_text
from gatebench.tree.globs import GlobSet
from gatebench.tree.snapshot import take_baseline

pytestmark = [pytest.mark.cli, pytest.mark.slow]

SNEAKY = "def add(a, b):\n    return a + b if a != 1 else b\n"
CLAIM = "add(1, x) returns x instead of 1 + x"
BLOCK = {"verdict": "block", "summary": "special case for a == 1",
         "findings": [{"file": "calc.py", "line": 2, "severity": "high", "claim": CLAIM, "evidence": "add(1, 2) == 2"}]}
PASS = {"verdict": "pass", "findings": [], "summary": "add is correct"}


def text(t: str) -> dict:
    return {"content": [{"type": "text", "text": t}]}


def tool(name: str, **inp) -> dict:
    return {"content": [{"type": "tool_use", "name": name, "input": inp}]}


def reviewer_script(outside: Path) -> dict:
    return {"steps": [
        # First review: reads the code, tries a file outside its copy (denied) and to write (it has no
        # such tool), then blocks.
        {"on": "start", "turns": [tool("Read", file_path="{cwd}/calc.py"),
                                  tool("Read", file_path=str(outside)),
                                  tool("Write", file_path="{cwd}/pwned.txt", content="x"),
                                  text("Found it:\n```json\n" + json.dumps(BLOCK) + "\n```")]},
        {"on": "start", "times": 5, "turns": [text(json.dumps(PASS))]},
    ]}


def agent_script() -> dict:
    return {"steps": [
        {"on": "start", "turns": [tool("Read", file_path="{cwd}/calc.py"),
                                  tool("Write", file_path="{cwd}/calc.py", content=SNEAKY),
                                  text("Done: add is fixed.")]},
        {"on": "stop_feedback", "contains": CLAIM, "turns": [tool("Write", file_path="{cwd}/calc.py", content=FIXED),
                                                              text("Fixed the a == 1 case.")]},
    ]}


def router(reviewer: dict) -> dict:
    return {"routes": [{"prompt_contains": REVIEW_MARKER, "script": reviewer}], "default": agent_script()}


def canary_settings(home: Path, log: Path) -> None:
    """A user-level Stop hook: it fires for every session that loads user settings."""
    code = f"import sys; open({str(log)!r}, 'a').write('stop\\n')"
    cmd = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": cmd}]}]}}))


def reviewer_requests(api) -> list[dict]:
    return [e for e in api.requests if REVIEW_MARKER in first_user_text(e["body"])]


def test_hook_runs_adv_through_claude_once_per_stop(calc_repo, tmp_path):
    require_claude()
    gatebench_cli("install", str(calc_repo), "--config", "adv")
    state = state_of(calc_repo)
    home, canary = tmp_path / "home", tmp_path / "canary.log"
    canary_settings(home, canary)
    outside = tmp_path / "hidden_secret.txt"  # stands for the bench's hidden tests
    outside.write_text("SECRET-HIDDEN-TEST\n")
    with fake_api(brain_from_data(router(reviewer_script(outside)))) as (url, api):
        run = run_cli("Fix add in calc.py.", calc_repo, url, home=home, timeout_s=120)
        ok = run.result and run.result.get("subtype") == "success"
        assert ok, describe_run(run, api)
        stops = [e for e in read_events(str(state / "events.jsonl")) if e.get("hook") == "stop"]
        assert [e["decision"] for e in stops] == ["block", "allow"], describe_run(run, api)
        # Exactly one gatebench event and one user-hook run per agent stop: the reviewers' own
        # `claude -p` sessions fired neither.
        assert canary.read_text().splitlines() == ["stop", "stop"]
        first, second = (e["gates"][1] for e in stops)
        assert first["kind"] == "review" and first["verdict"] == "block"
        assert second["verdict"] == "pass"
        assert CLAIM in stops[0]["reason"]
        agent_saw = [e for e in api.requests if e not in reviewer_requests(api)]
        assert any(CLAIM in json.dumps(e["body"]["messages"][-3:]) for e in agent_saw)
        # The reviewer's cost is the CLI's own figure, from its `result` event, in the event line.
        logs = sorted((state / "reviews").glob("*-adv.out"))
        assert len(logs) == 2
        for gate, log in zip((first, second), logs, strict=True):
            result = next(json.loads(ln) for ln in log.read_text().splitlines() if '"type":"result"' in ln)
            assert gate["cost_usd"] == pytest.approx(result["total_cost_usd"]) and gate["cost_usd"] > 0
            rev = gate["details"]["reviewers"][0]
            assert rev["usage"]["output_tokens"] == result["usage"]["output_tokens"]
        # The reviewer read the code in its copy, nothing outside it, and could not write at all.
        reqs = reviewer_requests(api)
        assert len(reqs) == 5  # 4 requests for the first review (Read, Read, Write, verdict), 1 for the second
        assert "return a" in json.dumps(reqs[1]["body"]["messages"][-1])  # the Read in its copy worked
        for req in reqs[2:4]:
            result = req["body"]["messages"][-1]["content"][0]
            assert result["type"] == "tool_result" and result.get("is_error"), result
        assert "SECRET-HIDDEN-TEST" not in json.dumps([r["body"] for r in reqs])
        tool_names = {t["name"] for t in reqs[0]["body"].get("tools", [])}
        assert {"Write", "Edit", "Bash"}.isdisjoint(tool_names)
    assert not list(calc_repo.rglob("pwned.txt"))
    assert (calc_repo / "calc.py").read_text() == FIXED


def make_cell(root: Path, calc_files: Path) -> Path:
    """A bench cell as `gatebench prep` lays it out (cell.json, repo/, state/), made by hand."""
    repo, state = root / "repo", root / "state"
    shutil.copytree(calc_files, repo)
    (root / "cell.json").write_text("{}")
    task = TaskBinding(id="T0", prompt="Make add return the sum of a and b for every input.",
                       test_command="{python} -m pytest -q tests", test_timeout_s=30)
    resolved = resolve(load_config("adv"), mode="bench", repo=repo, state_dir=state, task=task)
    write_resolved(resolved, state / "config.json")
    take_baseline(str(repo), GlobSet(resolved.ignore), str(state / "baseline"), GlobSet(resolved.protected),
                  str(state / "blobs"))
    return root


@pytest.mark.parametrize("where", ["installed", "cell"])
def test_review_verb_prints_verdict_findings_and_cost(where, calc_repo, tmp_path):
    require_claude()
    if where == "installed":
        gatebench_cli("install", str(calc_repo), "--config", "adv")
        work = calc_repo
    else:
        work = make_cell(tmp_path / "cell", calc_repo)
    (work if where == "installed" else work / "repo").joinpath("calc.py").write_text(SNEAKY)
    script = {"steps": [{"on": "start", "times": 5, "turns": [text("```json\n" + json.dumps(BLOCK) + "\n```")]}]}
    home = tmp_path / "home"
    home.mkdir()
    with fake_api(brain_from_data(router(script))) as (url, api):
        # the installed repo's state dir is per user: the review verb must see the same XDG_STATE_HOME
        env = claude_env(url, home, {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]})
        r = gatebench_cli("review", str(work), "adv", "--model", "haiku", env=env, check=False)
        assert r.returncode == 1, r.stdout + r.stderr
        assert "verdict:  BLOCK" in r.stdout
        assert f"calc.py:2: {CLAIM}" in r.stdout and "evidence: add(1, 2) == 2" in r.stdout
        assert "reviewer adv (claude, model claude-haiku" in r.stdout
        printed_cost = float(r.stdout.split("cost:     $")[1].split()[0])
        j = gatebench_cli("review", str(work), "adv", "--model", "haiku", "--json", env=env, check=False)
        data = json.loads(j.stdout)
        prompts = [first_user_text(e["body"]) for e in reviewer_requests(api)]
    assert data["verdict"] == "block" and data["findings"][0]["claim"] == CLAIM
    assert data["cost_usd"] > 0 and round(data["cost_usd"], 4) == pytest.approx(printed_cost, abs=1e-4)
    assert data["usage"]["input_tokens"] > 0 and data["seconds"] > 0
    assert len(prompts) == 2 and "+    return a + b if a != 1 else b" in prompts[0]
    if where == "cell":
        assert "Make add return the sum of a and b" in prompts[0]
        assert "1 passed" in prompts[0]  # the task's visible tests ran and their output was shown


def test_review_verb_on_a_prepared_task_cell(tmp_path):
    """`gatebench prep T1 --config adv`, the reference solution written in, then a review by hand."""
    require_claude()
    cell = tmp_path / "T1"
    gatebench_cli("prep", "T1", "--config", "adv", "--out", str(cell))
    ref = ROOT / "reference" / "T1"
    for f in ref.rglob("*.py"):
        shutil.copyfile(f, cell / "repo" / f.relative_to(ref))
    home = tmp_path / "home"
    home.mkdir()
    script = {"steps": [{"on": "start", "turns": [text(json.dumps(PASS))]}]}
    with fake_api(brain_from_data(router(script))) as (url, api):
        r = gatebench_cli("review", str(cell / "repo"), "adv", "--json", env=claude_env(url, home), check=False)
        prompt = first_user_text(reviewer_requests(api)[0]["body"])
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["verdict"] == "pass" and data["cost_usd"] > 0, r.stdout + r.stderr
    assert "Paginator.num_pages" in prompt  # T1's task prompt
    assert "+++ b/pagekit/paginator.py" in prompt  # the diff of the reference against the baseline
    assert "passed" in prompt  # T1's visible tests ran on the reference
    assert {f["path"] for f in data["files"]} >= {"pagekit/paginator.py"}


def recording_stub(tmp: Path) -> tuple[Path, Path]:
    """A stand-in `claude` that records every call it gets (and answers nothing)."""
    calls = tmp / "claude-calls.log"
    exe = tmp / "claude-stub"
    exe.write_text(f"#!/bin/sh\necho \"$@\" >> {shlex.quote(str(calls))}\nexit 1\n")
    exe.chmod(0o755)
    return exe, calls


def test_review_without_credentials_exits_2_naming_them_and_starts_no_claude(calc_repo, tmp_path):
    work = make_cell(tmp_path / "cell", calc_repo)
    (work / "repo" / "calc.py").write_text(SNEAKY)
    stub, calls = recording_stub(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "GATEBENCH_CLAUDE": str(stub)}
    r = gatebench_cli("review", str(work), "adv", env=env, check=False)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "ANTHROPIC_API_KEY" in r.stderr and "CLAUDE_CODE_OAUTH_TOKEN" in r.stderr and "reviewer adv" in r.stderr
    assert not calls.exists()  # no `claude` process was started
    # The same environment with a key gets past the check and does start the CLI.
    r2 = gatebench_cli("review", str(work), "adv", env={**env, "ANTHROPIC_API_KEY": "k"}, check=False)
    assert r2.returncode == 1 and calls.exists(), r2.stdout + r2.stderr


def test_api_error_reaches_the_user_in_the_clis_own_words(calc_repo, tmp_path):
    from gatebench.sim.server import ApiError

    require_claude()
    work = make_cell(tmp_path / "cell", calc_repo)
    (work / "repo" / "calc.py").write_text(SNEAKY)
    home = tmp_path / "home"
    home.mkdir()

    class Unauthorized:
        def respond(self, body):
            raise ApiError(401, "authentication_error", "invalid x-api-key")

    with fake_api(Unauthorized()) as (url, api):
        r = gatebench_cli("review", str(work), "adv", env=claude_env(url, home), check=False)
        statuses = {e["status"] for e in api.requests}
    assert statuses == {401}
    assert r.returncode == 1, r.stdout + r.stderr
    assert "API error 401 authentication_error: Invalid API key" in r.stdout, r.stdout


def test_review_of_an_unchanged_work_copy_makes_no_request(calc_repo, tmp_path):
    require_claude()
    work = make_cell(tmp_path / "cell", calc_repo)
    home = tmp_path / "home"
    home.mkdir()
    script = {"steps": [{"on": "any", "times": 5, "turns": [text(json.dumps(BLOCK))]}]}
    with fake_api(brain_from_data(script)) as (url, api):
        r = gatebench_cli("review", str(work), "adv", "--json", env=claude_env(url, home), check=False)
        assert api.requests == []
        # One changed file and the same command does call the reviewer (and it blocks).
        (work / "repo" / "calc.py").write_text(SNEAKY)
        r2 = gatebench_cli("review", str(work), "adv", env=claude_env(url, home), check=False)
        assert len(api.requests) >= 1 and r2.returncode == 1, r2.stdout + r2.stderr
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["verdict"] == "pass" and data["files"] == [] and data["cost_usd"] == 0
    assert data["note"].startswith("nothing to review")
