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


class _Current:
    """The current tests, indexed by what a baseline test is looked up by: `pool` check key -> tests that
    enforce it, `skipped` check key -> [(test, markers)] where it does not run, `setup` setup key -> tests,
    `by_name` test id -> tests of that id in any file, `gained`/`gained_bare` shape / bare check ->
    [(check, test)] of enforced checks the baseline lacked."""

    __slots__ = ("by_name", "gained", "gained_bare", "pool", "setup", "skipped")

    def __init__(self, new: dict[str, dict], old_keys: set) -> None:
        self.pool: dict[str, set] = {}
        self.skipped: dict[str, list] = {}
        self.setup: dict[str, set] = {}
        self.by_name: dict[str, set] = {}
        self.gained: dict[str, list] = {}
        self.gained_bare: dict[str, list] = {}
        for path, tests in new.items():
            for tid, t in tests.items():
                self.add(f"{path}::{tid}", tid, t, old_keys)

    def add(self, where: str, tid: str, t, old_keys: set) -> None:
        for c in t.checks:
            if t.markers:
                self.skipped.setdefault(c[0], []).append((where, set(t.markers)))
                continue
            self.pool.setdefault(c[0], set()).add(where)
            if c[0] not in old_keys:
                self.gained.setdefault(c[1], []).append((c, where))
                self.gained_bare.setdefault(c[4], []).append((c, where))
        for s in t.setup:
            self.setup.setdefault(s[0], set()).add(where)
        self.by_name.setdefault(tid, set()).add(where)


def match(old: dict[str, dict], new: dict[str, dict]) -> dict:
    """{"findings", "moved": {old "path::id": [new ids]}, "new_tests": [ids]}."""
    old_keys = {c[0] for tests in old.values() for t in tests.values() for c in t.checks}
    cur = _Current(new, old_keys)
    findings: list[dict] = []
    moved: dict[str, list] = {}
    for path, tests in sorted(old.items()):
        for tid, t in tests.items():
            now = new.get(path, {}).get(tid)
            if now is None or now.source != t.source or now.markers != t.markers:
                findings += _compare(path, tid, t, now, cur, moved)
    fresh = [(path, tid, t) for path, tests in sorted(new.items()) for tid, t in tests.items()
             if tid not in old.get(path, {}) and not any(c[0] in old_keys for c in t.checks)]
    findings += [finding("new_test_not_run", path, tid, "it cannot run: " + ", ".join(
        f"`{m}`" for m in dict.fromkeys(t.markers))) for path, tid, t in fresh if t.markers]
    return {"findings": findings, "moved": moved, "new_tests": [f"{path}::{tid}" for path, tid, _t in fresh]}


def _compare(path: str, tid: str, t, now, cur: _Current, moved: dict) -> list[dict]:
    here = f"{path}::{tid}"
    lineage, lost, now_skipped = _survivors(t, cur)
    if now is not None:
        lineage.add(here)
    if not lineage:  # no check survives: a test of the same name, or holding its setup, is its heir
        lineage = set(cur.by_name.get(tid, set())) or {w for s in t.setup for w in cur.setup.get(s[0], ())}
    out: list[dict] = []
    new_marks = _new_marks(t, now, now_skipped)
    if new_marks:
        out.append(finding("skip_added", path, tid, "now cannot run: " + ", ".join(f"`{m}`" for m in new_marks)))
    if now is None and not (lineage - {here}):
        # a test folded into a table whose row for it holds another value: that case's expected value changed
        lineage = {w for c in lost for g, w in cur.gained.get(c[1], []) if g[3]}
        if not lineage:
            return out + ([_removed(path, tid, t)] if t.checks or t.setup else [])
    if now is None:
        moved[here] = sorted(lineage)
    used: set[int] = set()
    out += [_lost(path, tid, c, cur.gained, cur.gained_bare, used) for c in lost]
    out += [finding("test_changed", path, tid, f"`{shown}` is gone") for key, shown in t.setup if key not in cur.setup]
    return out


def _survivors(t, cur: _Current) -> tuple[set[str], list, list]:
    """(current tests that hold a check of `t`, its checks held nowhere, (check, first skipped holder) of
    its checks held only where they do not run under markers `t` lacks)."""
    lineage: set[str] = set()
    lost, now_skipped = [], []
    mine = set(t.markers)
    for c in t.checks:
        if c[0] in cur.pool:
            lineage |= cur.pool[c[0]]
            continue
        hits = cur.skipped.get(c[0])
        if not hits:
            lost.append(c)
            continue
        lineage |= {h[0] for h in hits}
        if not any(h[1] <= mine for h in hits):
            now_skipped.append((c, hits[0]))
    return lineage, lost, now_skipped


def _new_marks(t, now, now_skipped: list) -> list[str]:
    mine = set(t.markers)
    new_marks = sorted(set(now.markers) - mine) if now is not None else []
    for _c, (_where, marks) in now_skipped:
        new_marks += [m for m in sorted(marks - mine) if m not in new_marks]
    return new_marks


def _removed(path: str, tid: str, t) -> dict:
    shown = [f"`{c[2]}`" for c in t.checks[:MAX_SHOWN_CHECKS]]
    more = len(t.checks) - len(shown)
    return finding("test_removed", path, tid, ("it checked " + "; ".join(shown) + (
        f" and {more} more" if more > 0 else "")) if shown else "")


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
        case = f"case `{c[3]}` became `{tw[3]}`: " if c[3] and tw[3] and c[3] != tw[3] else \
            f"now case `{tw[3]}`: " if tw[3] and not c[3] else ""
        where = "" if best[1] == here else f" (in {best[1]})"
        return finding("expected_changed", path, tid, f"{case}`{c[2]}` became `{tw[2]}`{where}")
    return finding("assertion_removed", path, tid, f"`{c[2]}`{_case(c)}")
