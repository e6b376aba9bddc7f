"""Reviewer definitions, the prompt and diff they are given, and their resolution into the config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import gatebench_cli, state_of, write_tree

from gatebench.errors import UsageError
from gatebench.installer.configs import load_config, resolve
from gatebench.models.config import GateConfig
from gatebench.review.defs import load_reviewer, parse_reviewer
from gatebench.review.prompt import REVIEW_MARKER, ReviewInputs, build_prompt, diff_text
from gatebench.tree import snapshot
from gatebench.tree.globs import GlobSet

GOOD = """---
backend: claude
model: haiku
max_turns: 4
timeout_s: 30
allowed_tools: [Read, Grep]
require_evidence: false
---
Task: {task}
Diff: {diff}
"""


def test_parses_front_matter_and_body():
    d = parse_reviewer(GOOD, "x/mine.md", "mine")
    assert (d.name, d.model, d.max_turns, d.allowed_tools, d.require_evidence) == (
        "mine", "haiku", 4, ["Read", "Grep"], False)
    assert d.prompt.startswith("Task: {task}")


@pytest.mark.parametrize("text, where", [
    ("no front matter {task} {diff}", "must start with a `---` line"),
    ("---\nbackend: claude\nTask {task} {diff} and more words here\n", "not closed"),
    ("---\nbackend: gpt\n---\nTask {task} {diff} and more words here\n", "backend"),
    ("---\nallowed_tools: [Read, Bash]\n---\nTask {task} {diff} and more words here\n", "allowed_tools"),
    ("---\nbackend: command\n---\nTask {task} {diff} and more words here\n", "needs a `command`"),
    ("---\nbackend: claude\n---\nReview the task {task} with no diff shown at all\n", "{diff}"),
    ("---\nmodle: haiku\n---\nTask {task} {diff} and more words here\n", "modle: unknown key"),
    ("---\n- a list\n---\nTask {task} {diff}\n", "must be a mapping"),
])
def test_bad_definitions_name_file_and_field(text, where):
    with pytest.raises(UsageError) as e:
        parse_reviewer(text, "configs/reviewers/bad.md", "bad")
    assert "configs/reviewers/bad.md" in str(e.value) and where in str(e.value)


def test_shipped_reviewers_load_and_carry_the_output_contract():
    for name in ("adv", "spec", "tests"):
        d = load_reviewer(name)
        assert d.backend == "claude" and d.require_evidence
        assert set(d.allowed_tools) <= {"Read", "Grep", "Glob"}
        prompt = build_prompt(name, d.prompt, ReviewInputs("TASK-TEXT", "DIFF-TEXT", [], "TEST-OUT"), d.diff_chars)
        assert prompt.startswith(f"{REVIEW_MARKER} reviewer={name}\n")
        assert "TASK-TEXT" in prompt and "DIFF-TEXT" in prompt and "TEST-OUT" in prompt
        assert '"verdict"' in prompt and "{" + "diff}" not in prompt
    with pytest.raises(UsageError, match="known: adv"):
        load_reviewer("nosuch")


def test_fill_is_one_pass_and_leaves_other_braces():
    tpl = 'Task: {task}\nDiff: {diff}\nExample: {"verdict": "pass"} {unknown}'
    p = build_prompt("r", tpl, ReviewInputs("please keep {diff} literally", "D", [], ""), 1000)
    assert "please keep {diff} literally" in p
    assert '{"verdict": "pass"} {unknown}' in p


def test_command_dir_placeholder_points_at_the_definition(tmp_path):
    (tmp_path / "my dir").mkdir()
    f = tmp_path / "my dir" / "rev.md"
    f.write_text("---\nbackend: command\ncommand: '{dir}/run.sh --fast'\n---\nTask {task} diff {diff} here\n")
    d = load_reviewer(str(f))
    assert d.command == f"'{tmp_path}/my dir'/run.sh --fast"


def test_resolve_fills_reviewers_and_hash_follows_the_prompt(tmp_path):
    rev = tmp_path / "r.md"
    rev.write_text(GOOD)
    cfg = GateConfig.model_validate({"name": "c", "gates": [{"kind": "review", "reviewers": [str(rev)]}]})
    r1 = resolve(cfg, mode="installed", repo=tmp_path, state_dir=tmp_path / "s")
    assert list(r1.reviewers) == [str(rev)] and r1.reviewers[str(rev)].model == "haiku"
    rev.write_text(GOOD.replace("Task:", "The task:"))
    r2 = resolve(cfg, mode="installed", repo=tmp_path, state_dir=tmp_path / "s")
    assert r1.config_hash != r2.config_hash
    plain = resolve(load_config("tests"), mode="installed", repo=tmp_path, state_dir=tmp_path / "s")
    assert plain.reviewers == {}


def test_shipped_review_configs_resolve():
    for name, names in (("adv", ["adv"]), ("tests+adv", ["adv"]), ("panel", ["adv", "spec", "tests"]),
                        ("oracle", [])):
        r = resolve(load_config(name), mode="installed", repo=Path("."), state_dir=Path("/tmp/x"))
        assert list(r.reviewers) == names
    assert [g.kind for g in load_config("oracle").gates] == ["oracle"]
    assert load_config("panel").gates[-1].vote == "majority"


def test_install_writes_reviewers_into_the_resolved_json(calc_repo):
    gatebench_cli("install", str(calc_repo), "--config", "adv")
    data = json.loads((state_of(calc_repo) / "config.json").read_text())
    assert data["reviewers"]["adv"]["prompt"].count("{diff}") == 1
    bad = calc_repo.parent / "bad.yaml"
    bad.write_text("name: bad\ngates:\n  - kind: review\n    reviewers: [nosuch]\n")
    r = gatebench_cli("install", str(calc_repo), "--config", str(bad), check=False)
    assert r.returncode == 2 and "no reviewer named 'nosuch'" in r.stderr


def test_diff_text_from_blobs(tmp_path):
    repo = tmp_path / "repo"
    write_tree(repo, {"a.py": "x = 1\ny = 2\n", "gone.py": "old\n", "img.bin": b"\0\1\2" * 10,
                      "big.txt": "line\n" * 10})
    blobs = str(tmp_path / "blobs")
    snapshot.take_baseline(str(repo), GlobSet([]), str(tmp_path / "base"), None, blobs)
    base = snapshot.read_json(str(tmp_path / "base" / "manifest.json"))
    (repo / "a.py").write_text("x = 1\ny = 3\n")
    (repo / "gone.py").unlink()
    (repo / "new.py").write_text("print('hi')")
    (repo / "img.bin").write_bytes(b"\0\1" * 20)
    (repo / "big.txt").write_text("other\n" * 5000)
    now = snapshot.walk(str(repo), GlobSet([])).manifest
    text = diff_text(str(repo), base, now, snapshot.diff(base, now), blobs)
    assert "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n" in text
    assert "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n" in text
    assert "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+print('hi')\n\\ No newline at end of file\n" in text
    assert "@@ changed: binary or unreadable (30 -> 40 bytes) @@" in text
    assert "big.txt" in text and "too long to show" in text


def test_task_from_transcript(tmp_path):
    from gatebench.review.prompt import task_from_transcript

    # the captured real transcript (tests/captures/): the prompt, not the tool result or hook feedback
    example = Path(__file__).resolve().parent / "captures" / "example-transcript.jsonl"
    assert task_from_transcript(str(example), "16f426dd-4684-4fd2-9159-9f50260a61a8") == "do the thing"
    t = tmp_path / "t.jsonl"
    recs = [
        {"type": "user", "promptId": "p1", "message": {"role": "user", "content": "first ask"}},
        {"type": "user", "promptId": "p1", "isMeta": True, "message": {"content": "Stop hook feedback:\nX"}},
        {"type": "user", "promptId": "p2", "message": {"content": [{"type": "text", "text": "second ask"}]}},
        {"type": "user", "promptId": "p2", "toolUseResult": {}, "message": {"content": "tool out"}},
    ]
    t.write_text("\n".join(json.dumps(r) for r in recs) + "\nnot json\n")
    assert task_from_transcript(str(t), "p1") == "first ask"
    assert task_from_transcript(str(t), "p2") == "second ask"
    assert task_from_transcript(str(t), "zz") == "second ask"
    assert task_from_transcript(str(tmp_path / "none.jsonl"), "p1") == "" == task_from_transcript(None, "p1")
