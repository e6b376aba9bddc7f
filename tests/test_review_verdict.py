"""Reviewer output parsing: good answers are read, every malformed one is an error with a reason.

The ten malformed kinds run end to end through the `command` backend (a real subprocess), so the
byte handling, exit codes, timeouts and the output cap are exercised, not only the parser.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from gatebench.review import runproc
from gatebench.review.backends import ReviewJob, command, reviewer_env
from gatebench.review.prompt import ReviewInputs
from gatebench.review.verdict import VerdictError, from_text, parse

GOOD = {"verdict": "block", "findings": [{"file": "calc.py", "line": 2, "severity": "high",
                                          "claim": "add subtracts", "evidence": "add(2, 3) returns -1"}],
        "summary": "add is wrong"}


def test_reads_plain_fenced_and_embedded_json():
    plain = parse(json.dumps(GOOD))
    assert plain["verdict"] == "block" and plain["findings"][0]["line"] == 2
    fenced = parse("I looked.\n```json\n" + json.dumps(GOOD) + "\n```\nThat's all.")
    assert fenced["findings"] == plain["findings"]
    embedded = parse("My verdict: " + json.dumps({"verdict": "PASS", "findings": []}) + " -- done")
    assert embedded["verdict"] == "pass" and embedded["findings"] == []


def test_normalises_loose_but_unambiguous_fields():
    v = parse(json.dumps({"verdict": " Block ", "findings": [
        {"file": "a.py", "line": "12-14", "severity": "Critical", "claim": "x", "evidence": "y"},
        {"file": "b.py", "line": None, "claim": "z", "evidence": "w"}], "confidence": 0.9}))
    assert v["verdict"] == "block"
    assert [f["line"] for f in v["findings"]] == [12, None]
    assert [f["severity"] for f in v["findings"]] == ["high", "medium"]
    assert v["ignored_keys"] == ["confidence"]


def test_same_verdict_twice_is_not_a_conflict():
    text = json.dumps({"verdict": "pass"}) + "\nTo repeat:\n" + json.dumps({"verdict": "pass", "summary": "ok"})
    assert parse(text)["summary"] == "ok"


@pytest.mark.parametrize("text, reason", [
    ("", "empty output"),
    ("   \n", "empty output"),
    ("Looks good to me, ship it.", "prose only"),
    ('{"verdict": "block", "findings": "calc.py is wrong"}', "findings: expected a list"),
    ('{"verdict": "maybe"}', "expected 'pass' or 'block'"),
    ('{"verdict": "block", "findngs": []}', "did you mean 'findings'"),
    ('{"verdict": "block", "findings": [{"file": "a.py", "severity": "urgent"}]}', "severity"),
    ('{"verdict": "block", "findings": [{"file": ["a.py"]}]}', "findings[0].file"),
    ('{"summary": "fine", "findings": []}', "without a `verdict` field"),
    ('{"verdict": "block", "findings": [{"file": "a.py", "li', "truncated"),
    ('{"verdict": "pass"}\n{"verdict": "block"}', "conflicting verdicts"),
    ("x" * 300_000, "too large"),
])
def test_parse_rejects_with_reason(text, reason):
    with pytest.raises(VerdictError, match=None) as e:
        parse(text)
    assert reason in str(e.value)


def test_evidence_rule():
    bare = json.dumps({"verdict": "block", "findings": [{"file": "a.py", "claim": "wrong"}], "summary": "no"})
    assert from_text("adv", bare, require_evidence=True).no_evidence
    assert not from_text("adv", bare, require_evidence=False).no_evidence
    assert not from_text("adv", json.dumps(GOOD), require_evidence=True).no_evidence
    passing = from_text("adv", json.dumps({"verdict": "pass"}), require_evidence=True)
    assert passing.verdict == "pass" and not passing.no_evidence


# --- the ten malformed kinds, through the command backend ------------------------------------------

def _py(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


MALFORMED = {
    "empty": ("true", "empty output"),
    "prose": ("echo 'I think this is fine overall.'", "prose only"),
    "wrong_field": ("""echo '{"verdict": "block", "findings": {"file": "a.py"}}'""", "findings: expected a list"),
    "no_verdict": ("""echo '{"findings": [], "summary": "ok"}'""", "without a `verdict` field"),
    "truncated": ("""printf '{"verdict": "block", "findings": [{"file": "calc.py", "line": 2, "cla'""", "truncated"),
    "nonzero_exit": ("""echo '{"verdict": "pass"}'; echo 'model quota exceeded' >&2; exit 3""", "exit 3"),
    "timeout": ("""echo $$ > "$PGID_FILE"; sleep 30 & sleep 30; echo '{"verdict": "pass"}'""", "timed out"),
    "huge": (_py("import sys; sys.stdout.write('{\"verdict\": \"pass\", \"summary\": \"' + 'a' * 5_000_000 + '\"}')"),
             "output too large"),
    "encoding": (_py("import sys; sys.stdout.buffer.write(b'{\"verdict\": \"pass\", \"summary\": \"caf\\xe9\"}')"),
                 "not valid UTF-8"),
    "conflict": ("""echo '{"verdict": "pass", "findings": []}'; echo 'On second thought:'; """
                 """echo '{"verdict": "block", "findings": []}'""", "conflicting verdicts"),
}


def _job(cmd: str, tmp: Path, timeout_s: float = 10.0, env: dict | None = None) -> ReviewJob:
    inputs = ReviewInputs("fix add", "--- a/calc.py\n+++ b/calc.py\n", [{"path": "calc.py", "status": "changed"}],
                          "1 passed")
    spec = {"name": "cmd", "backend": "command", "command": cmd, "require_evidence": True}
    return ReviewJob("cmd", spec, "[gatebench-review] reviewer=cmd\nreview it", inputs, str(tmp), timeout_s,
                     reviewer_env({**os.environ, **(env or {})}), sys.executable)


def _gone(pgid: int) -> bool:
    """No live process left in the group (zombies waiting for a container's init to reap them count as gone)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return False
    return True


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_malformed_reviewer_output_is_an_error(kind, tmp_path):
    cmd, reason = MALFORMED[kind]
    pgid_file = tmp_path / "pgid"
    timeout = 1.5 if kind == "timeout" else 20.0
    t0 = time.monotonic()
    r = command.run(_job(cmd, tmp_path, timeout, {"PGID_FILE": str(pgid_file)}))
    assert r.verdict == "error", (kind, r)
    assert r.error and reason in r.error, (kind, r.error)
    assert r.findings == []
    if kind == "timeout":
        assert time.monotonic() - t0 < 25  # killed at 1.5 s, not after its sleep 30
        pgid = int(pgid_file.read_text())
        assert _gone(pgid), "the timed-out reviewer's process group is still alive"


def test_timeout_kills_the_whole_group_not_only_the_leader(tmp_path):
    # A grandchild in its own background job would keep a pipe open forever if only the shell died.
    pid_file = tmp_path / "pids"
    cmd = f"sleep 60 & echo $! >> {pid_file}; (sleep 60 & echo $! >> {pid_file}; wait) & wait"
    r = runproc.run(cmd, cwd=str(tmp_path), env=dict(os.environ), timeout_s=1.0)
    assert r.timed_out and r.returncode is None
    time.sleep(0.2)
    assert len(pid_file.read_text().split()) == 2  # both sleepers had started
    assert _gone(r.pgid)


def test_a_shell_reviewer_in_a_few_lines_works(tmp_path):
    """The command protocol: JSON on stdin (task, diff, files, test output), a JSON verdict on stdout."""
    script = tmp_path / "rev.sh"
    script.write_text(
        "#!/bin/sh\n"
        "input=$(cat)\n"
        'case "$input" in\n'
        '  *"return a - b"*) echo \'{"verdict": "block", "findings": [{"file": "calc.py", "line": 2, '
        '"severity": "high", "claim": "add subtracts", "evidence": "add(2, 3) == -1"}], "cost_usd": 0.25}\' ;;\n'
        "  *) echo '{\"verdict\": \"pass\", \"findings\": []}' ;;\n"
        "esac\n"
    )
    script.chmod(0o755)
    job = _job(str(script), tmp_path)
    job.inputs.diff = "+    return a - b\n"
    bad = command.run(job)
    assert bad.verdict == "block" and bad.findings[0]["claim"] == "add subtracts" and bad.cost_usd == 0.25
    job.inputs.diff = "+    return a + b\n"
    good = command.run(job)
    assert good.verdict == "pass" and good.error is None


def test_command_gets_the_documented_stdin(tmp_path):
    out = tmp_path / "stdin.json"
    r = command.run(_job(f"cat > {out}; echo '{{\"verdict\": \"pass\"}}'", tmp_path))
    assert r.verdict == "pass"
    data = json.loads(out.read_text())
    assert {"reviewer", "prompt", "task", "diff", "files", "test_output", "agent_message", "workdir"} <= set(data)
    assert data["task"] == "fix add" and data["files"] == [{"path": "calc.py", "status": "changed"}]
