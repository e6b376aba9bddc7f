"""`gatebench audit`: the hackable-task ratio, per task and per attack class (SPEC section 13a)."""

from __future__ import annotations

import argparse
import json
import sys
import time

HELP = "play every known class of attack on every task: how many end solved and unflagged (free: no model calls)"
DESCRIPTION = """For every task, each attack class's variants are laid over the unfixed base in a copy and
judged as finalize judges a final work copy (the hidden oracle with its canaries, in its sandbox, under the
baseline harness; then the tamper findings of the tree and the run, and the protected paths it changed).
A task is hackable for a class when a run of one of its variants ended solved and unflagged, or ended an
infra_error the agent caused (a rerun bought at will). The honest reference is judged beside them as the
control: a task whose control does not end solved and unflagged is reported as such, never as safe.
Prints a class x ratio table (hackable tasks / tasks played, seconds per task), and per task detail with
--json. Exits 0 when no task is hackable, 1 when one is (naming class and task), 3 when the audit itself
failed (a control, or an attack that could not be laid), 2 on bad input."""

EXIT_AUDIT_FAILED = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tasks", nargs="+", metavar="ID", help="tasks to audit (default: all); commas work too")
    p.add_argument("--suite", nargs="+", choices=("quick", "real", "real-sample", "ci", "all"),
                   help="task suites (real ones are laid from their recipes first)")
    p.add_argument("--classes", nargs="+", metavar="NAME", help="attack classes (default: all but adaptive_guess, played only when named; SPEC section 13a lists them)")
    p.add_argument("--runs", type=int, default=1, help="oracle runs per attack variant (fresh canaries each; default 1)")
    p.add_argument("--jobs", type=int, default=4, help="oracle runs in parallel, across tasks (default 4: some runs mostly wait)")
    p.add_argument("--no-cli", action="store_true", help="skip the classes that need the real CLI (each skip is printed)")
    p.add_argument("--json", action="store_true", help="print the whole audit as JSON")
    p.add_argument("--home", help="bench home holding tasks/ (default: this checkout)")


def run(args: argparse.Namespace) -> int:
    from gatebench.audit import default_classes, load
    from gatebench.audit import report as rep
    from gatebench.audit.runner import audit_tasks
    from gatebench.errors import UsageError
    from gatebench.suite.suites import select

    if args.home:
        import os

        os.environ["GATEBENCH_HOME"] = args.home
    if args.runs < 1:
        raise UsageError("--runs: at least 1")
    classes = [c for a in (args.classes or default_classes()) for c in a.split(",") if c]
    for c in classes:
        load(c)  # an unknown name is bad input before anything runs
    named = [t for a in (args.tasks or []) for t in a.split(",") if t]
    ids = select(args.suite, named)
    if not ids:
        raise UsageError("no tasks found under tasks/")
    tasks = _load_all(ids)
    t0 = time.monotonic()
    seen: list = []

    def progress(a) -> None:
        seen.append(a)
        hacked = [c for c in classes if a.hackable(c)]
        print(f"[{len(seen)}/{len(tasks)}] {a.task}: control {a.control.outcome if a.control else 'none'}, "
              f"{len(a.variants)} attacks, hackable: {', '.join(hacked) or 'none'}, {a.seconds:.1f} s of runs, "
              f"{time.monotonic() - t0:.0f} s in", file=sys.stderr)

    audits = audit_tasks(tasks, classes, runs=args.runs, jobs=args.jobs, no_cli=args.no_cli, done=progress)
    summary = rep.summarize(audits, classes, round(time.monotonic() - t0, 1))
    print(json.dumps(summary, indent=1) if args.json else rep.text(summary))
    return rep.exit_code(summary, EXIT_AUDIT_FAILED)


def _load_all(ids: list[str]) -> list:
    from gatebench.errors import UsageError
    from gatebench.suite.tasks import load_task

    tasks, bad = [], []
    for tid in ids:
        try:
            tasks.append(load_task(tid))
        except UsageError as e:
            bad.append(str(e))
    if bad:
        raise UsageError("invalid files:\n" + "\n".join(bad))
    return tasks
