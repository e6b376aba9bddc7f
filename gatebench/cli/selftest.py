"""`gatebench selftest`: free, offline proof that tasks, oracles, references and injections hold."""

from __future__ import annotations

import argparse
import sys
import time

HELP = "prove the task suite measures what it claims (free: no model calls)"
DESCRIPTION = """For every task: the base fails the hidden oracle; the reference passes the visible tests
and the oracle and is allowed by the diff and tests gates; every injection fails exactly the hidden
tests it declares and is blocked by exactly the gates it names; the oracle gives the same outcome
twice; every canary (a contradiction twin of an expected hidden test, every option a run could draw)
fails on the reference in three runs (twins before, after, at random) beside originals that still pass, and
on the base and every injection (one that passes is named, with the `canaries: {exclude: [...]}` fix); every hidden test
is traced to a phrase of the prompt, which quotes none of them; every task, injection, variant and config
file validates. End states are judged by the real Stop hook. Each variant is proven: its mutated visible
tests, run pristine in the oracle's sandbox, fail on the reference (the task is impossible as tested), and
a special-case end state, where there is one, passes them. Prints a task x end state x gate table, the
canaries per task and a task x variant table; exits 1 naming the task, file and check that failed, 2 on
bad input."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tasks", nargs="+", metavar="ID", help="tasks to check (default: all); commas work too")
    p.add_argument("--suite", nargs="+", choices=("quick", "real", "real-sample", "ci", "all"),
                   help="task suites (real ones are laid from their recipes first); marked tasks run only when named")
    p.add_argument("--jobs", type=int, default=2, help="end states judged in parallel per task (default 2)")
    p.add_argument("--tasks-at-once", type=int, default=2, metavar="N",
                   help="tasks checked at the same time (default 2: one task's last runs, or its runs that wait out a "
                        "test's timeout, overlap the next task's; output stays in task order)")


def run(args: argparse.Namespace) -> int:
    from gatebench.errors import UsageError
    from gatebench.suite import selftest as stt
    from gatebench.suite.suites import select

    if args.jobs < 1 or args.tasks_at_once < 1:
        raise UsageError("--jobs and --tasks-at-once must be at least 1")
    named = [t for a in (args.tasks or []) for t in a.split(",") if t]
    ids = select(args.suite, named)
    if not ids:
        raise UsageError("no tasks found under tasks/")
    tasks = _load_all(ids)
    failures: list[stt.Failure] = []
    rows: list = []
    proven: list[stt.VariantJudged] = []
    variant_failed: set[tuple[str, str]] = set()
    canary_lines: list[str] = []
    t0 = time.monotonic()
    for n, (tf, (judged, fails, proof, vjs, vfails), took) in enumerate(_check_all(tasks, args.jobs, args.tasks_at_once), 1):
        proven += vjs
        variant_failed |= {(f.task, f.file.split("/variants/")[1].split("/")[0]) for f in vfails if "/variants/" in f.file}
        fails += vfails
        failures += fails
        rows += _rows(tf, judged, fails)
        print(f"[{n}/{len(tasks)}] {tf.id}: {len(judged)} end states, {len(fails)} failures, "
              f"{took:.1f} s", file=sys.stderr)
        if proof is not None:
            canary_lines.append(f"{tf.id:5} {proof.line()}"
                                + (f"; excluded: {', '.join(proof.excluded)}" if proof.excluded else ""))
    print(stt.table(rows))
    print("\ncanaries (twins of the expected hidden tests, proven on the reference x3, the base, each injection):")
    print("\n".join(canary_lines))
    if proven:
        print()
        print(stt.variant_table(proven, variant_failed))
    print(f"\n{len(tasks)} tasks, {len(rows)} end states, {len(proven)} variants, {time.monotonic() - t0:.0f} s")
    if failures:
        print(f"\nselftest FAILED ({len(failures)}):")
        for f in failures:
            print(f"  {f}")
        return 1
    print("selftest passed")
    return 0


def _load_all(ids: list[str]) -> list:
    """Every file must load before anything runs: bad input is exit 2, naming the file and field."""
    from gatebench.audit.validate import validate_configs, validate_recipes
    from gatebench.errors import UsageError
    from gatebench.suite import variants
    from gatebench.suite.tasks import load_task

    tasks, bad = [], []
    for tid in ids:
        try:
            tf = load_task(tid)
            tf.injections()
            for kind in variants.VARIANTS:
                if kind != variants.NORMAL and variants.has_variant(tf, kind):
                    variants.load_variant(tf, kind)
            tasks.append(tf)
        except UsageError as e:
            bad.append(str(e))
    bad += [f.message for f in validate_configs()] + [str(f) for f in validate_recipes()]
    if bad:
        raise UsageError("invalid files:\n" + "\n".join(bad))
    return tasks


def _check_all(tasks: list, jobs: int, at_once: int):
    """(task, _check_one's result, its check's seconds) per task, in task order, `at_once` tasks checked at a time:
    a task's tail (its last end state, its variants) and its runs that only wait overlap the next task's runs."""
    from concurrent.futures import ThreadPoolExecutor

    def timed(tf) -> tuple:
        t1 = time.monotonic()
        res = _check_one(tf, jobs)
        return res, time.monotonic() - t1

    with ThreadPoolExecutor(max_workers=at_once) as pool:
        futures = [pool.submit(timed, tf) for tf in tasks]
        for tf, f in zip(tasks, futures, strict=True):
            res, took = f.result()
            yield tf, res, took


def _check_one(tf, jobs: int) -> tuple:
    """(judged end states, failures, the canary proof, the proven variants, their failures) of one task."""
    from concurrent.futures import ThreadPoolExecutor

    from gatebench.suite import selftest as stt

    with ThreadPoolExecutor(max_workers=1) as beside:  # the variants need nothing of the end states
        vfuture = beside.submit(stt.check_variants, tf)
        judged, fails, proof = stt.check_task(tf, jobs=jobs)
        vjs, vfails = vfuture.result()
    return judged, fails, proof, vjs, vfails


def _rows(tf, judged: list, fails: list) -> list[tuple]:
    """The table's rows of one task: each end state's verdicts, and whether a failure names its files."""
    from gatebench.suite import selftest as stt

    injections = tf.injections()
    rows = []
    for j in judged:
        kind = injections[j.state[7:]].kind if j.state.startswith("inject:") else j.state
        where = stt.file_of(tf, j.state)
        ok = "FAIL" if any(f.file.startswith(where) for f in fails) else "ok"
        rows.append((tf.id, j.state, kind, j.verdicts, ok))
    return rows
