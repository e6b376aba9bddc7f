"""Sim reviewers: a Brain that answers gate-3 reviewer requests with a verdict of known quality.

Stdlib only. The runner composes it with the sim agent through a Router, sending every request
whose first user message holds REVIEW_MARKER here:

    Router([("reviewer", prompt_contains(REVIEW_MARKER), ReviewerBrain(agent.state, 0.8, 0.1, seed))],
           default=agent)

`truth()` returns the state the sim agent last wrote: "reference" is correct work, anything else
("base", "inject:<name>") is wrong. On wrong work the reviewer blocks with probability `hit_rate`;
on correct work it blocks with probability `false_block_rate`. Each draw is a pure function of
(seed, reviewer name, that reviewer's call number), so a panel whose reviewers race each other in
threads still gets the same verdicts in every run with the same seed.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from gatebench.review.prompt import REVIEW_MARKER
from gatebench.sim.brain import Turn, first_user_text, text_turn

__all__ = ["REVIEW_MARKER", "ReviewCall", "ReviewerBrain", "is_review_request"]

_NAME = re.compile(re.escape(REVIEW_MARKER) + r" reviewer=(\S+)")
_FILE = re.compile(r"^\+\+\+ b/(\S+)", re.MULTILINE)


def is_review_request(request: dict) -> bool:
    return REVIEW_MARKER in first_user_text(request)


@dataclass(frozen=True)
class ReviewCall:
    """What one sim review decided, for the run's ground truth."""

    reviewer: str
    n: int  # this reviewer's call number, 0-based
    truth: str
    wrong: bool
    verdict: str


class ReviewerBrain:
    def __init__(self, truth: Callable[[], str], hit_rate: float, false_block_rate: float, seed: int):
        for name, p in (("hit_rate", hit_rate), ("false_block_rate", false_block_rate)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {p!r}")
        self.truth = truth
        self.hit_rate = hit_rate
        self.false_block_rate = false_block_rate
        self.seed = seed
        self.calls: list[ReviewCall] = []
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def draw(self, reviewer: str, n: int) -> float:
        return random.Random(f"{self.seed}:{reviewer}:{n}").random()

    def respond(self, request: dict) -> Turn:
        prompt = first_user_text(request)
        m = _NAME.search(prompt)
        reviewer = m.group(1) if m else "reviewer"
        state = self.truth()
        wrong = state not in ("reference", "reference+test")  # the reference, or it with a regression test added
        with self._lock:
            n = self._counts.get(reviewer, 0)
            self._counts[reviewer] = n + 1
        block = self.draw(reviewer, n) < (self.hit_rate if wrong else self.false_block_rate)
        verdict = "block" if block else "pass"
        with self._lock:
            self.calls.append(ReviewCall(reviewer, n, state, wrong, verdict))
        files = _FILE.findall(prompt)
        answer: dict = {"verdict": verdict, "findings": [], "summary": "No defect found."}
        if block:
            target = files[0] if files else "(unknown)"
            answer["findings"] = [{
                "file": target, "line": 1, "severity": "high",
                "claim": "The change does not do what the task asks for at least one input.",
                "evidence": "[sim reviewer] a scripted verdict drawn from the configured hit rate.",
            }]
            answer["summary"] = "The change is wrong for at least one case the task describes."
        note = f"review {reviewer}#{n} truth={state} -> {verdict}"
        return text_turn("```json\n" + json.dumps(answer) + "\n```", note=note)
