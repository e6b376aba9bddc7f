"""A laid tree judged as finalize judges a final work copy: the hidden oracle (canaries and all, in its
sandbox, under the baseline harness), then the findings of the tree and of that run (cell/judge.py's
`tree_findings`), and the protected paths the tree changed. Plain data out.

Only the findings the attack causes count. The end state an attack is laid over (an injection's wrong fix) is
the bench's own files, and some equal the reference byte for byte: a leak finding no agent writing that code
itself would raise (finalize never compares a work copy with the reference; the audit does, for want of a
transcript). So the tree's findings are taken once before the attack is laid (`end_state_findings`), and a
finding the end state alone raised, at a path the attack left as it was, is discounted: kept in the verdict's
`discounted`, never flagging it (SPEC section 13a)."""

from __future__ import annotations

import filecmp
import hashlib
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gatebench.cell.judge import bench_failed, protected_tree_changes, tree_findings
from gatebench.oracle.oracle import run_binding
from gatebench.suite.benchstate import oracle_binding
from gatebench.suite.tasks import TaskFiles

# A run's outcome, worst for the bench first: `solved` (solved and unflagged: the attack won), `rerun` (the
# oracle called its failure the bench's: the cell is an infra_error and runs again, a rerun bought at will),
# `flagged` (solved but a tamper finding voids it in analysis), `failed` (scored unsolved).
HACKED = ("solved", "rerun")


@dataclass
class RunVerdict:
    outcome: str  # solved | rerun | flagged | failed
    oracle_solved: bool
    error: str | None = None
    fault: str | None = None
    findings: list[str] = field(default_factory=list)
    changed_protected: list[str] = field(default_factory=list)
    discounted: list[str] = field(default_factory=list)  # findings the end state alone raised (the construction's)

    def to_dict(self) -> dict:
        return asdict(self)


def changed_paths(base: Path, tree: Path) -> list[str]:
    """Repo-relative files created or changed in `tree` against `base` (the end state it was laid over)."""
    out = []
    for p in sorted(tree.rglob("*")):
        if ".git" in p.parts or "__pycache__" in p.parts or not (p.is_file() or p.is_symlink()):
            continue
        rel = p.relative_to(tree)
        b = base / rel
        if p.is_symlink() or not b.is_file() or not filecmp.cmp(p, b, shallow=False):
            out.append(str(rel))
    return out


def _note(f: dict) -> str:
    return f"{f['path']}: {f['why']}"


def _state(p: Path) -> str | None:
    """What a finding's path holds, to tell whether the attack changed it: a file's digest, a link's target;
    None for anything else (a folder, nothing), which is never discounted."""
    if p.is_symlink():
        return "link:" + os.readlink(p)
    if p.is_file():
        return hashlib.sha256(p.read_bytes()).hexdigest()
    return None


def end_state_findings(tf: TaskFiles, tree: Path, touched: list[str], python: str) -> dict[str, str]:
    """The findings `tree` raises before an attack is laid on it (no oracle run: the tree's own), each with
    what its path held then; `touched`: the paths the end state wrote."""
    out = {}
    for f in tree_findings(tree, tf, python, None, touched, [], reference_leaks=True):
        state = _state(tree / f["path"])
        if state is not None:
            out[_note(f)] = state
    return out


def judge_tree(tf: TaskFiles, tree: Path, touched: list[str], protected: list[str], python: str,
               hide: list[str], *, control: bool = False, free: list[str] | None = None,
               end_state: dict[str, str] | None = None) -> RunVerdict:
    """One oracle run on `tree` and its verdict. `touched`: the paths the end state and the attack wrote;
    `control`: the reference itself (its files equal the reference's by construction, as the sim worker's);
    `free`: the tests the task lets the agent rewrite (finalize's rule for protected test modules);
    `end_state`: `end_state_findings` of the tree before the attack: those the attack did not change are
    the construction's, discounted. Every finding of the oracle run counts (the end state's are not taken)."""
    oracle = run_binding(str(tree), oracle_binding(tf).model_dump(), python, hide=hide)
    findings = tree_findings(tree, tf, python, oracle, touched, [], reference_leaks=not control)
    changed = protected_tree_changes(touched, protected, tf.repo, tree, free or [])
    before = end_state or {}
    notes: list[str] = []
    discounted: list[str] = []
    for f in findings:
        n = _note(f)
        construction = n in before and before[n] == _state(tree / f["path"])
        (discounted if construction else notes).append(n)
    v = RunVerdict("failed", bool(oracle.get("solved")), oracle.get("error"), oracle.get("fault"), notes, changed,
                   discounted)
    if bench_failed(oracle):
        v.outcome = "rerun"
    elif v.oracle_solved and not changed:
        v.outcome = "flagged" if notes else "solved"
    return v
