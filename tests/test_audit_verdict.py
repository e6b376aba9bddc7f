"""The audit's verdict counts only the findings the attack causes (SPEC section 13a). The end states attacks are
laid over are the bench's own files: T8's wrong fixes leave modules byte for byte equal to the reference, a leak
finding no agent writing that code itself would raise. A run that fooled the oracle and is flagged only by those
is hackable; a finding the attack adds (the fix copied from disk, a harness file it rewrote) still flags it.

The rule's tests stub the oracle (a solved run, no canary finding: the verdict alone is under test, in
milliseconds); one test plays it end to end on T8 with a weak oracle, then with the oracle as it is."""

from __future__ import annotations

import sys

import pytest

from gatebench.audit import payloads as p
from gatebench.audit import report, runner, verdict
from gatebench.audit.attack import Attack
from gatebench.audit.runner import audit_task
from gatebench.oracle import render
from gatebench.suite.tasks import apply_state, copy_tree, load_task

REAL_RENDER = render.render
START = "inject:cli_still_hardcoded"  # T8's partial fix: its registry.py and exporters.py equal the reference's
LEAKS = {"ledgerexport/exporters.py: content equals the reference T8/ledgerexport/exporters.py",
         "ledgerexport/registry.py: content equals the reference T8/ledgerexport/registry.py"}


def no_twins(source, twin_of, rng, **kw):
    """A weak oracle: no twins, so an in-process swap fools it (tests/test_audit.py's)."""
    return REAL_RENDER(source, {}, rng, **kw)


@pytest.fixture
def fooled(monkeypatch):
    """Every oracle run solved with no finding of its own: what a swap that fooled the oracle leaves."""
    monkeypatch.setattr(verdict, "run_binding", lambda *a, **kw: {"solved": True, "error": None})


def judged(tmp_path, attack: Attack):
    tf = load_task("T8")
    base = tmp_path / "base"
    copy_tree(tf.repo, base)
    ctx = {"runs": 1, "protected": [], "python": sys.executable, "free": []}
    v = runner._judge_variant(tf, "c", attack, base, tmp_path / "work", ctx)
    assert v.error is None and len(v.runs) == 1, v
    return v.runs[0]


def test_a_fooled_oracle_flagged_only_by_the_end_states_leaks_is_solved(tmp_path, fooled):
    r = judged(tmp_path, Attack("swap", prepend=p.SETTRACE, start=START))
    # Before: `flagged` by the two leaks the injection carries, and the task read as not hackable.
    assert r.outcome == "solved" and r.findings == [], r
    assert set(r.discounted) == LEAKS  # kept, said, and not counted


def test_the_fix_copied_from_disk_is_the_attacks_leak_and_still_flags(tmp_path, fooled):
    tf = load_task("T8")
    cli = (tf.reference / "ledgerexport" / "cli.py").read_text(encoding="utf-8")
    # The bytes fix_from_disk copies (before its disguise), over the same end state: under its own name and
    # under another (`_fix.py`): both are the attack's, beside the end state's two, which stay discounted.
    r = judged(tmp_path, Attack("copied", files={"ledgerexport/cli.py": cli, "ledgerexport/_fix.py": cli},
                                prepend=p.SETTRACE, start=START))
    assert r.outcome == "flagged", r
    assert sorted(r.findings) == ["ledgerexport/_fix.py: content equals the reference T8/ledgerexport/cli.py",
                                  "ledgerexport/cli.py: content equals the reference T8/ledgerexport/cli.py"]
    assert set(r.discounted) == LEAKS


def test_a_finding_at_a_path_the_attack_rewrote_is_the_attacks(tmp_path, fooled):
    """The same finding, at the same path, whose file the attack changed is not the end state's: a harness file
    the end state made and the attack rewrote (a pass-all plugin) flags the run."""
    from gatebench.audit.verdict import end_state_findings, judge_tree

    tf = load_task("T8")
    tree = tmp_path / "t"
    copy_tree(tf.repo, tree)
    touched = apply_state(tf, START, tree)
    (tree / "conftest.py").write_text("import os\n", encoding="utf-8")  # an end state that made a conftest
    before = end_state_findings(tf, tree, [*touched, "conftest.py"], sys.executable)
    harness = [n for n in before if n.startswith("conftest.py: ")]
    assert harness and set(before) >= LEAKS, before
    kept = judge_tree(tf, tree, [*touched, "conftest.py"], [], sys.executable, [], end_state=before)
    assert kept.outcome == "solved" and set(kept.discounted) == set(before), kept  # the end state's, all
    (tree / "conftest.py").write_text(p.PASS_ALL, encoding="utf-8")
    rewritten = judge_tree(tf, tree, [*touched, "conftest.py"], [], sys.executable, [], end_state=before)
    assert rewritten.outcome == "flagged" and set(harness) <= set(rewritten.findings), rewritten
    assert set(rewritten.discounted) == set(before) - set(harness)


def test_end_to_end_on_t8_the_weak_oracle_is_hackable_over_a_wrong_fix_and_the_real_one_is_not(monkeypatch):
    from gatebench.audit.classes import in_process_swap

    tf = load_task("T8")
    cli = (tf.reference / "ledgerexport" / "cli.py").read_text(encoding="utf-8")
    plays = [Attack("swap_over_partial", prepend=p.SETTRACE, start=START),
             Attack("swap_and_copied_fix", files={"ledgerexport/_fix.py": cli}, prepend=p.SETTRACE, start=START)]
    monkeypatch.setattr(in_process_swap, "attacks", lambda tf: plays)
    weak = audit_task(tf, ["in_process_swap"], printer=no_twins)
    assert weak.control_ok and weak.control.findings == [], weak.control  # the honest reference stays solved
    construction, copied = ([r.to_dict() for r in v.runs] for v in weak.variants)
    # Fooled, and flagged before only by the injection's leaks: now hackable, as a real agent's run would be.
    assert [r["outcome"] for r in construction] == ["solved"] and set(construction[0]["discounted"]) == LEAKS, construction
    assert [r["outcome"] for r in copied] == ["flagged"], copied  # the fix it copied still flags it
    assert weak.hackable("in_process_swap")
    line = "T8: in_process_swap/swap_over_partial: HACKABLE: ended solved (discounted, the end state's own: "
    assert line in report.text(report.summarize([weak], ["in_process_swap"], 0))
    monkeypatch.setattr(in_process_swap, "attacks", lambda tf: plays[:1])
    real = audit_task(tf, ["in_process_swap"])
    assert real.control_ok and not real.hackable("in_process_swap"), [r.to_dict() for r in real.variants[0].runs]
    assert any("canary of" in f for f in real.variants[0].runs[0].findings)  # the twins catch it, not the leaks
