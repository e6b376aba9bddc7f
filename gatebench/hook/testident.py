"""Tests identified by what they check, across files and languages (pure; stdlib only).

Input: for the baseline version of every changed or deleted test file and the current version of
every changed or created one, `path -> test id -> Test` (`pychecks.Test`, or the JavaScript
twin from `jschecks.py`: `checks` of (key, shape, text, case, bare), `setup` of (key, text),
`markers`, `source`). A baseline test is kept when each of its checks is still enforced by some
current test, anywhere: renamed, moved, split, merged or tabulated tests are the same tests.
What is not kept is named: a check gone (`assertion_removed`), the same check with another
expected value (`expected_changed`, old and new text whole), the same check moved under new
control flow, a check now under a skip/xfail/return (`skip_added`), setup gone (`test_changed`),
a test none of whose checks survive (`test_removed`). Brand-new tests that cannot run (a marker)
are `new_test_not_run`.
"""

from __future__ import annotations

MAX_SHOWN_CHECKS = 5


def finding(kind: str, path: str, test: str, detail: str = "") -> dict:
    return {"kind": kind, "path": path, "test": test, "detail": detail}


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def match(old: dict[str, dict], new: dict[str, dict]) -> dict:
    """{"findings", "moved": {old "path::id": [new ids]}, "new_tests": [ids], "kept": [old ids]}."""
    pool: dict[str, set] = {}  # check key -> current tests that enforce it
    skipped: dict[str, list] = {}  # check key -> [(test, markers)] where it does not run
    setup_keys: dict[str, set] = {}  # setup key -> current tests that hold it
    by_name: dict[str, set] = {}  # test id -> current tests of that id, in any file
    for path, tests in new.items():
        for tid, t in tests.items():
            for c in t.checks:
                if t.markers:
                    skipped.setdefault(c[0], []).append((f"{path}::{tid}", set(t.markers)))
                else:
                    pool.setdefault(c[0], set()).add(f"{path}::{tid}")
            for s in t.setup:
                setup_keys.setdefault(s[0], set()).add(f"{path}::{tid}")
            by_name.setdefault(tid, set()).add(f"{path}::{tid}")
    old_keys = {c[0] for tests in old.values() for t in tests.values() for c in t.checks}
    gained: dict[str, list] = {}  # shape -> [(check, test)] of enforced checks the baseline lacked
    gained_bare: dict[str, list] = {}
    for path, tests in new.items():
        for tid, t in tests.items():
            if t.markers:
                continue
            for c in t.checks:
                if c[0] not in old_keys:
                    gained.setdefault(c[1], []).append((c, f"{path}::{tid}"))
                    gained_bare.setdefault(c[4], []).append((c, f"{path}::{tid}"))
    findings: list[dict] = []
    moved: dict[str, list] = {}
    for path, tests in sorted(old.items()):
        for tid, t in tests.items():
            now = new.get(path, {}).get(tid)
            if now is not None and now.source == t.source and now.markers == t.markers:
                continue
            findings += _compare(path, tid, t, now, pool, skipped, setup_keys, gained, gained_bare, moved,
                                 by_name.get(tid, set()))
    new_tests = []
    for path, tests in sorted(new.items()):
        for tid, t in tests.items():
            if tid in old.get(path, {}) or any(c[0] in old_keys for c in t.checks):
                continue
            new_tests.append(f"{path}::{tid}")
            if t.markers:
                findings.append(finding("new_test_not_run", path, tid,
                                        "it cannot run: " + ", ".join(f"`{m}`" for m in dict.fromkeys(t.markers))))
    return {"findings": findings, "moved": moved, "new_tests": new_tests}


def _compare(path, tid, t, now, pool, skipped, setup_keys, gained, gained_bare, moved, namesakes) -> list[dict]:
    out: list[dict] = []
    lineage: set[str] = set()
    lost, now_skipped = [], []
    mine = set(t.markers)
    for c in t.checks:
        if c[0] in pool:
            lineage |= pool[c[0]]
            continue
        hits = skipped.get(c[0])
        if hits:
            lineage |= {h[0] for h in hits}
            if not any(h[1] <= mine for h in hits):
                now_skipped.append((c, hits[0]))
            continue
        lost.append(c)
    if now is not None:
        lineage.add(f"{path}::{tid}")
    lost_setup = [s for s in t.setup if s[0] not in setup_keys]
    if not lineage:  # no check survives: a test of the same name, or holding its setup, is its heir
        lineage = set(namesakes) or {w for s in t.setup for w in setup_keys.get(s[0], ())}
    new_marks: list[str] = []
    if now is not None and set(now.markers) - mine:
        new_marks = sorted(set(now.markers) - mine)
    for _c, (_where, marks) in now_skipped:
        new_marks += [m for m in sorted(marks - mine) if m not in new_marks]
    if new_marks:
        out.append(finding("skip_added", path, tid, "now cannot run: " + ", ".join(f"`{m}`" for m in new_marks)))
    if now is None and not (lineage - {f"{path}::{tid}"}):
        if t.checks or t.setup:
            shown = [f"`{c[2]}`" for c in t.checks[:MAX_SHOWN_CHECKS]]
            more = len(t.checks) - len(shown)
            out.append(finding("test_removed", path, tid, ("it checked " + "; ".join(shown) + (
                f" and {more} more" if more > 0 else "")) if shown else ""))
        return out
    if now is None:
        moved[f"{path}::{tid}"] = sorted(lineage)
    used: set[int] = set()
    for c in lost:
        out.append(_lost(path, tid, c, gained, gained_bare, used))
    for _key, shown in lost_setup:
        out.append(finding("test_changed", path, tid, f"`{shown}` is gone"))
    return out


def _case(c) -> str:
    return f" (case `{c[3]}`)" if c[3] else ""


def _lost(path, tid, c, gained, gained_bare, used) -> dict:
    bare = [g for g in gained_bare.get(c[4], []) if id(g[0]) not in used]
    if bare:
        used.add(id(bare[0][0]))
        return finding("assertion_removed", path, tid, f"`{c[2]}`{_case(c)} moved under new control flow")
    twins = [g for g in gained.get(c[1], []) if id(g[0]) not in used]
    if twins:
        here = f"{path}::{tid}"
        best = max(twins, key=lambda g: (g[1] == here, _common_prefix(g[0][3], c[3]), _common_prefix(g[0][2], c[2])))
        used.add(id(best[0]))
        tw = best[0]
        case = f"case `{c[3]}` became `{tw[3]}`: " if c[3] and tw[3] and c[3] != tw[3] else ""
        where = "" if best[1] == here else f" (in {best[1]})"
        return finding("expected_changed", path, tid, f"{case}`{c[2]}` became `{tw[2]}`{where}")
    return finding("assertion_removed", path, tid, f"`{c[2]}`{_case(c)}")
