"""The audit of one task: one base copy, the honest reference judged as the control, then every variant of
every class laid over its own copy of the end state it starts from and judged `runs` times, in parallel
(`jobs` oracle runs at once). Plain data out; `rendering` puts another printer of the hidden modules in the
oracle for tests (the oracle runs in this process: canaries call `render.render` at every run)."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from gatebench import audit
from gatebench.audit.attack import Attack, lay
from gatebench.audit.verdict import HACKED, RunVerdict, changed_paths, end_state_findings, judge_tree
from gatebench.suite.benchstate import bench_resolved, oracle_binding
from gatebench.suite.selftest import SELFTEST_CONFIG
from gatebench.suite.tasks import TaskFiles, apply_state, copy_tree


@dataclass
class VariantResult:
    cls: str
    variant: str
    runs: list[RunVerdict] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None  # the attack could not be laid: the audit failed here

    @property
    def hacked(self) -> bool:
        return any(r.outcome in HACKED for r in self.runs)


@dataclass
class TaskAudit:
    task: str
    control: RunVerdict | None
    variants: list[VariantResult]
    skipped: dict[str, str]  # class -> why it does not apply to this task
    seconds: float = 0.0
    odds: float | None = None  # a blind guess's odds in one oracle run of the task (SPEC section 8)

    @property
    def control_ok(self) -> bool:
        return self.control is not None and self.control.outcome == "solved"

    def hackable(self, cls: str) -> bool:
        return any(v.hacked for v in self.variants if v.cls == cls)

    def failed(self, cls: str) -> bool:
        """The audit itself could not judge the class on this task: its control or an attack failed."""
        return not self.control_ok or any(v.error for v in self.variants if v.cls == cls)

    def class_seconds(self, cls: str) -> float:
        return round(sum(v.seconds for v in self.variants if v.cls == cls), 2)


@contextlib.contextmanager
def rendering(printer: Callable | None) -> Iterator[None]:
    """Run the audit's oracles with `printer` in place of `render.render`, the hidden modules' one printer
    (None: the oracle's own); it takes and returns what `render.render` does."""
    from gatebench.oracle import render

    if printer is None:
        yield
        return
    real = render.render
    render.render = printer
    try:
        yield
    finally:
        render.render = real


def _judge_variant(tf: TaskFiles, cls: str, attack: Attack, base: Path, work: Path, ctx: dict) -> VariantResult:
    out = VariantResult(cls, attack.name)
    t0 = time.monotonic()
    tree = work / f"{cls}-{attack.name}"
    try:
        if attack.turns is not None:
            from gatebench.audit import cli_play

            out.runs = [cli_play.play(tf, attack, tree / f"cell{i}") for i in range(ctx["runs"])]
            return out
        copy_tree(base, tree)
        start = apply_state(tf, attack.start, tree)
        # The end state's own findings, before the attack: the construction's, not the attack's (verdict.py).
        before = end_state_findings(tf, tree, sorted(set(start) | set(changed_paths(base, tree))), ctx["python"])
        touched = sorted(set(start + lay(attack, tree)) | set(changed_paths(base, tree)))
        for _ in range(ctx["runs"]):
            out.runs.append(judge_tree(tf, tree, touched, ctx["protected"], ctx["python"], [], free=ctx["free"],
                                       end_state=before))
    except Exception as e:  # the attack could not be laid or judged: the audit failed, said so, never "safe"
        out.error = f"{type(e).__name__}: {e}"
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        out.seconds = round(time.monotonic() - t0, 2)
    return out


def _control(tf: TaskFiles, base: Path, work: Path, ctx: dict) -> RunVerdict:
    tree = work / "control-reference"
    copy_tree(base, tree)
    touched = apply_state(tf, "reference", tree)
    return judge_tree(tf, tree, touched, ctx["protected"], ctx["python"], [], control=True, free=ctx["free"])


def audit_task(tf: TaskFiles, classes: list[str], runs: int = 1, jobs: int = 2,
               printer: Callable | None = None, no_cli: bool = False) -> TaskAudit:
    """Every class in `classes` played on `tf`, beside the reference (the control); `printer`: the oracle's
    printer of the hidden modules replaced for the audit (tests: the recorded old layout, a printer with no
    twins)."""
    return audit_tasks([tf], classes, runs, jobs, printer, no_cli)[0]


def plays_of(tf: TaskFiles, classes: list[str], no_cli: bool) -> tuple[list[tuple[str, Attack]], dict[str, str]]:
    """(class, variant) pairs to play on `tf`, and class -> why it is not played there."""
    plays: list[tuple[str, Attack]] = []
    skipped: dict[str, str] = {}
    for name in classes:
        mod = audit.load(name)
        found = mod.attacks(tf)
        if no_cli and any(a.turns is not None for a in found):
            found = [a for a in found if a.turns is None]
            skipped[name] = "needs the real CLI (--no-cli)" if not found else ""
        if not found:
            skipped[name] = skipped.get(name) or mod.why_not(tf) or "does not apply"
        plays += [(name, a) for a in found]
    return plays, skipped


def audit_tasks(tasks: list[TaskFiles], classes: list[str], runs: int = 1, jobs: int = 2,
                printer: Callable | None = None, no_cli: bool = False,
                done: Callable[[TaskAudit], None] | None = None) -> list[TaskAudit]:
    """Every task audited through one pool of `jobs` oracle runs; `done` is called with each task's audit, in
    task order, as it completes. The tasks' variants are submitted in turn (the first of every task, then the
    second...): a task whose unfixed code makes its tests wait out their timeouts (T11's jobs on Events) then
    sleeps beside other tasks' runs instead of holding every worker at once. A task's `seconds` are its own
    runs' (control and variants), not wall time: the tasks' runs interleave."""
    with rendering(printer), tempfile.TemporaryDirectory(prefix="gatebench-audit-") as tmp, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        pending = [_prepare(tf, classes, runs, no_cli, Path(tmp) / tf.id) for tf in tasks]
        for p in pending:
            p["control"] = pool.submit(_timed, _control, p["tf"], p["base"], p["work"], p["ctx"])
            p["futures"] = []
        for i in range(max((len(p["plays"]) for p in pending), default=0)):
            for p in pending:
                if i < len(p["plays"]):
                    c, a = p["plays"][i]
                    p["futures"].append(pool.submit(_judge_variant, p["tf"], c, a, p["base"], p["work"], p["ctx"]))
        out = []
        for p in pending:
            a = _collected(p)
            if done:
                done(a)
            out.append(a)
    return out


def _prepare(tf: TaskFiles, classes: list[str], runs: int, no_cli: bool, work: Path) -> dict:
    """A task's plays and the base copy they share, with the harness and python selftest's config resolves."""
    plays, skipped = plays_of(tf, classes, no_cli)
    base = work / "base"
    copy_tree(tf.repo, base)
    resolved = bench_resolved(SELFTEST_CONFIG, tf, base, work / "state")
    ctx = {"runs": runs, "protected": list(resolved.protected), "python": resolved.python or sys.executable,
           "free": list(resolved.free_tests)}
    return {"tf": tf, "plays": plays, "skipped": skipped, "base": base, "work": work, "ctx": ctx}


def _collected(p: dict) -> TaskAudit:
    results = [f.result() for f in p["futures"]]
    try:
        ctl, ctl_s = p["control"].result()
    except Exception as e:
        ctl, ctl_s = RunVerdict("failed", False, f"the control could not run: {type(e).__name__}: {e}"), 0.0
    shutil.rmtree(p["work"], ignore_errors=True)
    return TaskAudit(p["tf"].id, ctl, results, p["skipped"], round(ctl_s + sum(v.seconds for v in results), 2),
                     _odds(p["tf"]))


def _odds(tf: TaskFiles) -> float | None:
    from gatebench.suite.canaries import blind_odds, run_plans

    try:
        return blind_odds(run_plans(oracle_binding(tf).model_dump()))
    except (OSError, ValueError, KeyError):
        return None


def _timed(fn: Callable, *args) -> tuple[RunVerdict, float]:
    t0 = time.monotonic()
    return fn(*args), time.monotonic() - t0
