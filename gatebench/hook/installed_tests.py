"""The installed-mode tests gate: refactors pass, weakening never hides a failure (stdlib only).

At each stop: the current tests run (with the runner's report, `testguard/runners/`); when the source
checks (`testpolicy.evaluate`) found a weakening, or test files of a runner the source checks do
not read changed, the *originals* run too: the same command in a copy where every test file of
the diff is as in the baseline. The two reports are compared (`testresults.py`). Then:

- current tests fail: block, as any tests gate;
- a weakening stands (not let through by `userask.excuse`) and its originals fail: block at every
  stop, until the block budget ends; the user is then told what was weakened and that it fails;
- a weakening stands and its originals pass (or cannot be told apart): block once; the same
  weakening again passes, and the user is told;
- new tests that do not run (skipped, xfailed, never collected): block once, then tell the user;
- a weakening the user's request asks for passes at the first stop, and the user is told.
"""

from __future__ import annotations

import copy

from gatebench.common.defaults import TESTS_COMMAND as DEFAULT_COMMAND
from gatebench.testguard import runners, testpolicy, testresults, userask

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gatebench.hook.gates import GateContext, Verdict

SESSION_KEY = "testpolicy"  # session memory: fingerprints already blocked once (kept across prompts)
NOT_RUN = "new_test_not_run"


def coverage(runner: str | None, last: str) -> dict:
    """What checks weakening for this command, said plainly (install prints it, every event has it)."""
    if runner is None:
        return {"runner": None, "source": "Python and JavaScript/TypeScript test files",
                "results": "not checked: the test command's runner is not one gatebench reads "
                           f"({', '.join(runners.RUNNERS)})"}
    mod = runners.get(runner)
    source = "Python and JavaScript/TypeScript test files" if mod.SOURCE else \
        f"not checked: gatebench does not read {runner} test sources"
    if runner == "go" and not last:
        results = (f"not checked: {runner} is not the last command of the test line (or of its package "
                   "script), so its report flags cannot reach it")
    elif runner in ("jest", "vitest") and not last:
        results = (f"{runner}'s failing tests and counts read from its own output (its report flags cannot reach "
                   "it: not the last command of the test line or of its package script); removed tests are not "
                   "looked for")
    else:
        results = f"{runner} results compared with the originals'"
    return {"runner": runner, "source": source, "results": results}


def _variant(ctx: GateContext, restore: list[str], runner: str | None, last: str) -> GateContext:
    c = copy.copy(ctx)
    c.protected_touched = restore
    c._testpolicy_pass = True  # type: ignore[attr-defined]
    c._runner = runners.get(runner) if runner else None  # type: ignore[attr-defined]
    c._runner_last = last  # type: ignore[attr-defined]
    return c


def gate(spec: dict, ctx: GateContext, run_once) -> Verdict:
    policy = testpolicy.evaluate(ctx)
    command = spec.get("command") or DEFAULT_COMMAND
    runner, last = runners.detect(command.replace("{python}", "python"), ctx.repo)
    covers = coverage(runner, last)
    now = run_once(spec, _variant(ctx, [], runner, last))
    now_results = now.details.pop("_results", None)
    now.details["weakening_checks"] = covers
    if now.verdict == "error":
        if now.details.get("broken_install"):
            now.details["user_notice"] = (
                f"gatebench: BROKEN INSTALL: the tests gate's command {now.details['broken_install']}; no test "
                "ran at this stop, so nothing was checked. Run `gatebench install` again with a working "
                "--test-command.")
        return now
    findings = list(policy["findings"])
    weak = [f for f in findings if f["kind"] != NOT_RUN]
    uncovered = [p for p in ctx.diff.paths if (runner and not runners.get(runner).SOURCE
                                               and runners.get(runner).is_test_file(p))
                 or (policy.get("crashed") and testpolicy.relevant(p))]
    orig = orig_results = None
    restore = sorted({*policy["paths"], *uncovered})
    if (weak or uncovered) and restore:
        orig = run_once(spec, _variant(ctx, restore, runner, last))
        orig_results = orig.details.pop("_results", None)
    named = {testpolicy.where(f) for f in findings}
    res = testresults.compare(orig_results, now_results, policy["moved"], policy["new_tests"], named,
                              sum(1 for f in findings if f["kind"] == "skip_added"))
    if orig is not None and orig_results is None and res["checked"] is True:
        res["checked"] = "the runner wrote no report in the originals' run: no test is called removed"
    findings += [f for f in res["findings"] if testpolicy.where(f) not in named]
    weak = [f for f in findings if f["kind"] != NOT_RUN]
    not_run = [f for f in findings if f["kind"] == NOT_RUN]
    hidden = list(res["hidden"])
    orig_broken = orig.details.get("error") if orig is not None and orig.verdict == "error" else None
    if orig is not None and not hidden and orig.verdict == "block" and now.verdict == "pass" and orig_results is None:
        hidden = ["(the originals' run failed; the runner wrote no report naming the tests)"]
    standing, let = userask.excuse(ctx, weak)
    details = now.details
    details.update(test_policy={"findings": findings, "moved": policy["moved"], "errors": policy["errors"],
                                "results_check": res["checked"]},
                   weakened_restored=restore if orig is not None else [],
                   originals=None if orig is None else {
                       "verdict": orig.verdict, "returncode": orig.details.get("returncode"),
                       "results": orig.details.get("results"), "failing_now_hidden": hidden,
                       "seconds": round(orig.seconds, 3), "error": orig_broken},
                   excused=[{"test": testpolicy.where(x["finding"]), "by": x["by"]} for x in let])
    if orig is not None:
        now.seconds += orig.seconds
    notices = []
    if let:
        notices.append("gatebench: tests changed as your request asked: "
                       + "; ".join(x[2:] for x in testpolicy.describe([x["finding"] for x in let], 10)))
    memory = ctx.session.setdefault(SESSION_KEY, {})
    if now.verdict == "block":
        if standing:
            now.feedback += "\n\n" + weak_text(standing, hidden)
        details["user_notice"] = "; ".join(notices) or None
        return now
    if standing and hidden:
        details["user_notice"] = "; ".join([*notices, hidden_notice(standing, hidden)])
        return _block(now, hidden_text(standing, hidden, orig))
    if standing:
        fp = testpolicy.fingerprint(standing)
        if memory.get("blocked") != fp:
            memory["blocked"] = fp
            return _block(now, weak_text(standing, hidden) + (
                f"\n(The original tests could not run: {orig_broken[:300]}.)" if orig_broken else ""))
        notices.append(notice_text(standing, orig_broken))
    if not_run:
        fp = testpolicy.fingerprint(not_run)
        if memory.get("not_run") != fp:
            memory["not_run"] = fp
            return _block(now, not_run_text(not_run))
        notices.append("gatebench: these new tests do not run (the agent kept them so after being told): "
                       + "; ".join(x[2:] for x in testpolicy.describe(not_run, 10)))
    details["user_notice"] = "; ".join(notices) or None
    return now


def _block(v: Verdict, feedback: str) -> Verdict:
    v.verdict = "block"
    v.feedback = feedback
    return v


def _names(findings: list[dict]) -> str:
    names = list(dict.fromkeys(testpolicy.where(f) for f in findings))
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def weak_text(findings: list[dict], hidden: list[str]) -> str:
    return (
        f"You weakened existing tests: {_names(findings)}.\nRefactoring tests (renaming, moving, splitting, "
        "merging, parametrizing) is fine as long as every check is kept; these checks were lost or loosened:\n"
        + "\n".join(testpolicy.describe(findings)) + "\n"
        "Restore them, and fix the code instead. If the user asked for exactly this change, keep it and "
        "stop again without changing it: the user will be told which tests changed."
    )


def hidden_text(findings: list[dict], hidden: list[str], orig: Verdict | None) -> str:
    shown = ", ".join(hidden[:10]) + (f" and {len(hidden) - 10} more" if len(hidden) > 10 else "")
    out = (f"Weakened tests hide failures: the original versions of these tests fail on your code: {shown}.\n"
           "The weakening:\n" + "\n".join(testpolicy.describe(findings)) + "\n"
           "Restore the tests and fix the code. This stop is blocked every time while the weakened "
           "tests hide a failure, unless the user's request asks for this test change.")
    if orig is not None and orig.feedback:
        out += "\n\nThe original tests' run:\n" + orig.feedback
    return out


def hidden_notice(findings: list[dict], hidden: list[str]) -> str:
    return ("gatebench: the agent weakened these tests and their ORIGINAL versions FAIL on its code ("
            + ", ".join(hidden[:10]) + "): " + "; ".join(x[2:] for x in testpolicy.describe(findings, 10)))


def notice_text(findings: list[dict], orig_broken: str | None = None) -> str:
    how = (f"their original versions could not run: {orig_broken[:200]}" if orig_broken else
           "their original versions pass")
    return (f"gatebench: the agent kept these weakened tests after being asked to restore them ({how}; check "
            "that you asked for it): " + "; ".join(x[2:] for x in testpolicy.describe(findings, 10)))


def not_run_text(findings: list[dict]) -> str:
    return ("New tests you added do not run, so they check nothing:\n" + "\n".join(testpolicy.describe(findings))
            + "\nMake them run (no skip/xfail, a file and name the runner collects), or say why in your answer "
            "and stop again: the user will be told.")
