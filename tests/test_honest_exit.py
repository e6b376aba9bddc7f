"""The honest exit (gatebench/hook/honest.py): a stop that names a test contradicting the request is let
through only when the config switches the exit on; the claim is logged and the user told; the reason says
how; with the exit off the same stop is blocked as before."""

from __future__ import annotations

from pathlib import Path

from conftest import gatebench_cli, hook_input, run_hook, state_of

from gatebench.hook import honest
from gatebench.hook.decide import decide
from gatebench.models.events import HookEvent

TEST = "tests/test_calc.py::test_add"
CLAIM = f"I fixed what I could.\n{honest.MARKER} `{TEST}` — the request says add, the test expects 6 for 2 + 3."


def test_claim_lines_are_parsed_from_the_message_and_nothing_else_is_a_claim():
    c = honest.claim(CLAIM, None)
    assert c == {"tests": [TEST], "words": {TEST: "the request says add, the test expects 6 for 2 + 3."},
                 "via": "message"}
    two = honest.parse("- contradicting test: a.py::x - one\n> CONTRADICTING TEST: b.py::y: two\n"
                       "CONTRADICTING TEST: a.py::x - again")
    assert two == [{"test": "a.py::x", "words": "one"}, {"test": "b.py::y", "words": "two"}]
    for text in ("Done.", "The tests contradict nothing.", "CONTRADICTING TEST:", "contradicting test - x", ""):
        assert honest.claim(text, None) is None, text


def test_the_note_file_is_a_claim_but_never_through_a_link(tmp_path: Path):
    (tmp_path / honest.NOTE_FILE).write_text(f"{honest.MARKER} t.py::test_a - expects 5 pages for 40 items\n")
    assert honest.claim("Done.", str(tmp_path))["tests"] == ["t.py::test_a"]
    assert honest.claim("Done.", str(tmp_path))["via"] == "note"
    secret = tmp_path / "secret.txt"
    secret.write_text(f"{honest.MARKER} s.py::leak - from outside the repo\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / honest.NOTE_FILE).symlink_to(secret)
    c = honest.claim("Done.", str(repo))
    assert c is not None and c["tests"] == [] and "not read" in c["error"]


def test_says_contradiction_needs_a_test_and_a_contradiction_not_negated():
    yes = ["I could not make it pass: test_exact_multiple expects 5 pages, which contradicts the request.",
           "The test is inconsistent with what you asked.", f"{honest.MARKER} a::b - x"]
    no = ["All tests pass.", "The tests do not contradict the request.", "I don't think the test contradicts it.",
          "This contradicts nothing I wrote.", "No conflicts with the tests were found."]
    assert all(honest.says_contradiction(t) for t in yes), [t for t in yes if not honest.says_contradiction(t)]
    assert not [t for t in no if honest.says_contradiction(t)]


def call(claim=None, on=True, blocks=0):
    return decide([("tests", {"verdict": "block", "feedback": "FAILED " + TEST, "details": {}})],
                  blocks_so_far=blocks, budget=3, on_error="open", attempt=blocks + 1, reason_chars=4000,
                  honest_exit=on, claim=claim)


def test_decision_allows_a_claim_only_with_the_exit_on_and_the_reason_says_how():
    c = honest.claim(CLAIM, None)
    d = call(c)
    assert d.decision == "allow" and d.honest and d.reason is None
    assert TEST in d.system_message and "honest exit" in d.system_message and "still object: tests" in d.system_message
    assert call(c, blocks=3).decision == "allow"  # the exit also ends a give-up: the user learns why
    off = call(c, on=False)
    assert off.decision == "block" and not off.honest and honest.MARKER not in off.reason
    hinted = call(None)
    assert hinted.decision == "block" and honest.MARKER in hinted.reason and "do not special-case" in hinted.reason


def test_the_hook_lets_the_claim_through_logs_it_and_names_the_test(calc_repo: Path, tmp_path: Path):
    """Installed mode, the tests gate blocking a wrong add: the same claim, exit off then on."""
    cfg = tmp_path / "exit.yaml"
    cfg.write_text("name: exit\ngates:\n  - kind: tests\nhonest_exit: true\n")
    (calc_repo / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    state = state_of(calc_repo)
    out, ev = run_hook(state, hook_input(calc_repo, last_assistant_message=CLAIM))
    assert out["decision"] == "block" and "honest_exit" not in ev and honest.MARKER not in out["reason"]

    gatebench_cli("install", str(calc_repo), "--config", str(cfg))
    out, ev = run_hook(state, hook_input(calc_repo, prompt="p2"))
    assert out["decision"] == "block" and honest.MARKER in out["reason"] and "the user asked" in out["reason"]
    out, ev = run_hook(state, hook_input(calc_repo, prompt="p2", last_assistant_message=CLAIM))
    assert "decision" not in out and TEST in out["systemMessage"]
    assert ev["decision"] == "allow" and [g["verdict"] for g in ev["gates"]] == ["block"]  # the gate still ran
    assert ev["honest_exit"] == {**honest.claim(CLAIM, None), "let_through": True}
    HookEvent.model_validate(ev)
