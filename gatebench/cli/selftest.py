"""`gatebench selftest`: free, offline proof that tasks, oracles, references and injections hold."""

from __future__ import annotations

import argparse
import sys
import time

HELP = "prove the task suite measures what it claims (free: no model calls)"
DESCRIPTION = """For every task: the base fails the hidden oracle; the reference passes the visible tests
and the oracle and is allowed by the diff and tests gates; every injection fails exactly the hidden
tests it declares and is blocked by exactly the gates it names; the oracle gives the same outcome
twice; every hidden test is traced to a phrase of the prompt, which quotes none of them; every task,
injection and config file validates. End states are judged by the real Stop hook. Prints a
task x end state x gate table; exits 1 naming the task, file and check that failed, 2 on bad input."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tasks", nargs="+", metavar="ID", help="tasks to check (default: all); commas work too")
    p.add_argument("--suite", nargs="+", choices=("quick", "real", "real-sample", "ci", "all"),
                   help="task suites (real ones are laid from their recipes first); marked tasks run only when named")
    p.add_argument("--jobs", type=int, default=2, help="end states judged in parallel per task (default 2)")


def run(args: argparse.Namespace) -> int:
    from gatebench.bench import selftest as stt
    from gatebench.bench.suites import select
    from gatebench.bench.tasks import load_task
    from gatebench.bench.validate import validate_configs, validate_recipes
    from gatebench.errors import UsageError

    named = [t for a in (args.tasks or []) for t in a.split(",") if t]
    ids = select(args.suite, named)
    if not ids:
        raise UsageError("no tasks found under tasks/")
    # Every file must load before anything runs: bad input is exit 2, naming the file and field.
    tasks, bad = [], []
    for tid in ids:
        try:
            tf = load_task(tid)
            tf.injections()
            tasks.append(tf)
        except UsageError as e:
            bad.append(str(e))
    bad += [f.message for f in validate_configs()] + [str(f) for f in validate_recipes()]
    if bad:
        raise UsageError("invalid files:\n" + "\n".join(bad))
    failures: list[stt.Failure] = []
    rows = []
    t0 = time.monotonic()
    for n, tf in enumerate(tasks, 1):
        t1 = time.monotonic()
        judged, fails = stt.check_task(tf, jobs=args.jobs)
        failures += fails
        injections = tf.injections()
        for j in judged:
            kind = injections[j.state[7:]].kind if j.state.startswith("inject:") else j.state
            where = stt.file_of(tf, j.state)
            ok = "FAIL" if any(f.file.startswith(where) for f in fails) else "ok"
            rows.append((tf.id, j.state, kind, j.verdicts, ok))
        print(f"[{n}/{len(tasks)}] {tf.id}: {len(judged)} end states, {len(fails)} failures, "
              f"{time.monotonic() - t1:.1f} s", file=sys.stderr)
    print(stt.table(rows))
    print(f"\n{len(tasks)} tasks, {len(rows)} end states, {time.monotonic() - t0:.0f} s")
    if failures:
        print(f"\nselftest FAILED ({len(failures)}):")
        for f in failures:
            print(f"  {f}")
        return 1
    print("selftest passed")
    return 0
