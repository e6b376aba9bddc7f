"""`gatebench task import REPO COMMIT` and `gatebench task check ID`: tasks from a repository's own history."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "import a task from a commit of a git repository (import), or check an imported task (check)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="task_cmd", metavar="import|check|list|materialize", required=True)
    imp = sub.add_parser("import", help="a task from one commit: its parent is the base, its tests the oracle")
    imp.add_argument("repo", type=Path, help="a local git repository")
    imp.add_argument("commit", help="the commit that fixes something and changes tests")
    imp.add_argument("--id", dest="task_id", help="task id (default: the next free T<n> in the bench home)")
    imp.add_argument("--prompt-file", type=Path, help="the task statement (default: the commit message)")
    imp.add_argument("--tests", nargs="+", metavar="GLOB", help="globs of test files (default: tests/** test/** "
                     "testing/** test_*.py *_test.py conftest.py)")
    imp.add_argument("--files", nargs="+", metavar="PATH", help="the fix's files (default: every non-test file the "
                     "commit changes); the reference is these, the rest of the commit stays out")
    imp.add_argument("--python", help="Python X.Y of the task's environment (default: this interpreter's)")
    imp.add_argument("--setup", help="shell command run once in the new environment (its bin/ first on PATH)")
    imp.add_argument("--env", nargs="+", metavar="SPEC", dest="extra_env", help="pip requirement specs added to the "
                     "environment's resolution (a missing test dependency, or a cap such as 'pytest<8')")
    imp.add_argument("--exclude", nargs="+", metavar="TEST_ID", help="test ids (path::name) left out of the visible "
                     "tests and of FAIL_TO_PASS/PASS_TO_PASS (a test that cannot pass here)")
    imp.add_argument("--timeout-s", type=float, default=300, help="per oracle run (default 300)")
    imp.add_argument("--home", type=Path, help="bench home to write into (default: $GATEBENCH_HOME or the checkout)")
    imp.add_argument("--json", action="store_true")
    chk = sub.add_parser("check", help="base fails FAIL_TO_PASS; the reference passes both sets, twice; oracle time")
    chk.add_argument("task_id", metavar="ID")
    chk.add_argument("--home", type=Path)
    chk.add_argument("--json", action="store_true")


def _home(args) -> Path:
    import os

    from gatebench.paths import project_root

    if args.home is not None:
        # Every later lookup (tasks, configs, the environment cache) follows the chosen home.
        os.environ["GATEBENCH_HOME"] = str(args.home.resolve())
    return project_root()


def run(args: argparse.Namespace) -> int:
    from gatebench.errors import UsageError

    home = _home(args)
    if args.task_cmd == "check":
        from gatebench.bench.taskimport import check_task
        from gatebench.bench.tasks import load_task

        res = check_task(load_task(args.task_id, home))
        if args.json:
            print(json.dumps(res, indent=1))
        else:
            print(f"{res['task']}: FAIL_TO_PASS {res['fail_to_pass']}, PASS_TO_PASS {res['pass_to_pass']}")
            b = res["base"]
            print(f"  base:      solved={b['solved']} failing={b['failing']} ({b['seconds']:.2f} s)")
            for n, r in enumerate(res["reference"], 1):
                print(f"  reference run {n}: solved={r['solved']} failing={len(r['failing'])} ({r['seconds']:.2f} s)")
            print(f"  oracle time: {res['oracle_seconds']:.2f} s")
            for p in res["problems"]:
                print(f"  PROBLEM: {p}")
            print("check passed" if not res["problems"] else "check FAILED")
        return 0 if not res["problems"] else 1

    from gatebench.bench.taskimport import import_task

    if not args.repo.is_dir():
        raise UsageError(f"{args.repo}: not a folder")
    home.mkdir(parents=True, exist_ok=True)
    imp = import_task(args.repo, args.commit, home, task_id=args.task_id, prompt_file=args.prompt_file,
                      test_globs=args.tests, python=args.python, setup=args.setup, extra_env=args.extra_env,
                      exclude=args.exclude, code_files=args.files, timeout_s=args.timeout_s,
                      log=lambda m: print(f"import: {m}", file=sys.stderr))
    for w in imp.warnings:
        print(f"import: warning: {w}", file=sys.stderr)
    if args.json:
        from dataclasses import asdict

        print(json.dumps(asdict(imp), indent=1))
    else:
        print(f"imported {imp.id} from {imp.commit[:12]} (base: parent {imp.parent[:12]}) into {home}")
        print(f"  prompt from the {imp.prompt_from}")
        print(f"  hidden: {', '.join(imp.hidden)}")
        print(f"  reference: {', '.join(imp.reference)}")
        print(f"  FAIL_TO_PASS {len(imp.fail_to_pass)}, PASS_TO_PASS {len(imp.pass_to_pass)}")
        for name, inj in imp.injections.items():
            print(f"  inject {name}: {inj['kind']}, fails {inj['fails']}, blocked by {', '.join(inj['blocked_by'])}")
        e = imp.env
        print(f"  environment {e['key']}: {'built' if e['built'] else 'reused'} ({e['seconds']:.1f} s)")
        print(f"  import took {imp.seconds:.1f} s (without the environment build)")
        print(f"next: gatebench selftest --tasks {imp.id}; gatebench task check {imp.id}")
    return 0
