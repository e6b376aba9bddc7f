"""The decision rule as a pure function, and the hook's time budget."""

from __future__ import annotations

import json
import time

from conftest import FIXED, hook_input, run_hook

from gatebench.hook.decide import decide


def v(verdict, feedback="", error=None):
    return {"verdict": verdict, "feedback": feedback, "details": {"error": error} if error else {}}


def call(verdicts, blocks=0, on_error="open", budget=3, chars=4000):
    return decide(verdicts, blocks_so_far=blocks, budget=budget, on_error=on_error, attempt=blocks + 1,
                  reason_chars=chars)


def test_allow_block_give_up():
    assert call([("tests", v("pass"))]).decision == "allow"
    d = call([("diff", v("pass")), ("tests", v("block", "FAILED t::x"))])
    assert d.decision == "block" and "## tests\nFAILED t::x" in d.reason and "block 1 of at most 3" in d.reason
    d = call([("tests", v("block", "FAILED"))], blocks=3)
    assert d.decision == "give_up" and d.reason is None and "still object: tests" in d.system_message
    assert call([("tests", v("block", "x"))], blocks=0, budget=0).decision == "give_up"


def test_errors_fail_open_or_closed():
    d = call([("tests", v("error", error="command not found"))])
    assert d.decision == "allow" and "tests: command not found" in d.system_message
    d = call([("tests", v("error", error="command not found"))], on_error="closed")
    assert d.decision == "block" and "could not run (command not found)" in d.reason


def test_reason_is_bounded_well_under_claude_codes_cap():
    huge = [(f"g{i}", v("block", "line of failure output\n" * 5000)) for i in range(4)]
    for chars in (200, 4000, 8000):
        d = call(huge, chars=chars)
        assert len(d.reason) <= chars < 10_000
        assert all(f"## g{i}" in d.reason for i in range(4)) or chars == 200
        assert "characters cut" in d.reason


def test_hook_time_budget_bounds_a_slow_gate(installed):
    repo, state = installed
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["budget"]["hook_seconds"] = 3
    cfg["config"]["gates"][1].update(command="sleep 60", timeout_s=120)
    (state / "config.json").write_text(json.dumps(cfg))
    (repo / "calc.py").write_text(FIXED)
    t0 = time.monotonic()
    out, ev = run_hook(state, hook_input(repo))
    assert time.monotonic() - t0 < 45  # the gate got what was left of 3 s, not its own 120 s (nor sleep 60)
    assert ev["gates"][1]["details"]["timed_out"] is True
    assert out["decision"] == "block"
