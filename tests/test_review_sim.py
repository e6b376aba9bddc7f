"""Sim reviewers: verdicts drawn at the configured hit and false-block rates, seeded, and routed by marker."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from gatebench.review.prompt import ReviewInputs, build_prompt
from gatebench.review.verdict import concrete, parse
from gatebench.sim.brain import Router, ScriptBrain, prompt_contains
from gatebench.sim.reviewer import REVIEW_MARKER, ReviewerBrain, is_review_request


def request(reviewer: str, diff: str = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-a\n+b\n") -> dict:
    prompt = build_prompt(reviewer, "Task {task}\nDiff {diff}", ReviewInputs("fix it", diff, [], ""), 10000)
    return {"messages": [{"role": "user", "content": [{"type": "text", "text": prompt}]}]}


def verdicts(brain: ReviewerBrain, n: int, reviewer: str = "adv") -> list[str]:
    return [parse(brain.respond(request(reviewer)).content[0]["text"])["verdict"] for _ in range(n)]


@pytest.mark.parametrize("state, rate_name", [("inject:hardcode", "hit_rate"), ("base", "hit_rate"),
                                              ("reference", "false_block_rate")])
def test_block_rate_follows_the_truth(state, rate_name):
    n = 2000
    brain = ReviewerBrain(lambda: state, hit_rate=0.8, false_block_rate=0.1, seed=7)
    rate = verdicts(brain, n).count("block") / n
    expected = 0.8 if rate_name == "hit_rate" else 0.1
    assert abs(rate - expected) < 0.035, rate  # > 4 standard errors either way
    assert all(c.wrong == (state != "reference") for c in brain.calls)


def test_extremes_are_exact():
    assert set(verdicts(ReviewerBrain(lambda: "inject:x", 1.0, 0.0, seed=1), 50)) == {"block"}
    assert set(verdicts(ReviewerBrain(lambda: "reference", 1.0, 0.0, seed=1), 50)) == {"pass"}
    with pytest.raises(ValueError, match="hit_rate"):
        ReviewerBrain(lambda: "base", 1.5, 0.0, seed=1)


def test_seeded_and_independent_of_thread_order():
    def run(order_seed: int) -> dict[str, list[str]]:
        brain = ReviewerBrain(lambda: "inject:x", 0.5, 0.2, seed=42)
        names = ["adv", "spec", "tests"] * 20
        random.Random(order_seed).shuffle(names)
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda nm: brain.respond(request(nm)), names))
        out: dict[str, list[str]] = {}
        for c in sorted(brain.calls, key=lambda c: (c.reviewer, c.n)):
            out.setdefault(c.reviewer, []).append(c.verdict)
        return out

    first = run(1)
    assert first == run(2) == run(3)
    other = ReviewerBrain(lambda: "inject:x", 0.5, 0.2, seed=43)
    for _ in range(20):
        other.respond(request("adv"))
    assert [c.verdict for c in other.calls] != first["adv"]


def test_block_answer_is_a_concrete_finding_on_a_changed_file():
    brain = ReviewerBrain(lambda: "inject:x", 1.0, 0.0, seed=3)
    v = parse(brain.respond(request("adv")).content[0]["text"])
    assert v["verdict"] == "block" and concrete(v["findings"][0])
    assert v["findings"][0]["file"] == "pkg/mod.py"


def test_router_sends_reviewer_requests_by_marker():
    agent = ScriptBrain.from_data({"steps": [{"on": "any", "times": 5, "turns": [
        {"content": [{"type": "text", "text": "agent here"}]}]}]})
    reviewer = ReviewerBrain(lambda: "reference", 0.9, 0.0, seed=0)
    router = Router([("reviewer", prompt_contains(REVIEW_MARKER), reviewer)], default=agent)
    agent_req = {"messages": [{"role": "user", "content": "Please fix the bug."}]}
    assert not is_review_request(agent_req) and is_review_request(request("adv"))
    assert router.respond(agent_req).content[0]["text"] == "agent here"
    turn = router.respond(request("spec"))
    assert json.loads(turn.content[0]["text"].strip("`json\n"))["verdict"] == "pass"
    assert turn.note.startswith("reviewer: review spec#0 truth=reference")
