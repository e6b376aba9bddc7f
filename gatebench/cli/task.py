"""`gatebench task import REPO COMMIT` and `gatebench task check ID`: tasks from a repository's own history."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = ("import a task from a commit of a git repository (import), check one (check), list every task (list), "
        "lay the real suite from PyPI sdists (materialize), measure a recipe (curate), mine tasks from a project's "
        "releases or history (mine)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="task_cmd", metavar="import|check|list|materialize|curate|mine", required=True)
    imp = sub.add_parser("import", help="a task from one commit: its parent is the base, its tests the oracle")
    imp.add_argument("repo", type=Path, help="a local git repository")
    imp.add_argument("commit", help="the commit that fixes something and changes tests")
    imp.add_argument("--id", dest="task_id", help="task id (default: the next free T<n> in the bench home)")
    imp.add_argument("--prompt-file", type=Path, help="the task statement (default: the commit message)")
    imp.add_argument("--tests", nargs="+", metavar="GLOB", help="globs of test files (default: tests/** test/** "
                     "testing/** test_*.py *_test.py test.py tests.py conftest.py)")
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
    lst = sub.add_parser("list", help="every task (bundled, imported, real-suite recipes) with its source and status")
    lst.add_argument("--home", type=Path)
    lst.add_argument("--json", action="store_true")
    mat = sub.add_parser("materialize", help="lay real-suite tasks from their recipes (suites/real/) and PyPI sdists")
    mat.add_argument("ids", nargs="*", metavar="ID", help="recipe ids (default: --suite real)")
    mat.add_argument("--suite", choices=("real", "real-sample", "ci"), help="lay every task of a suite")
    mat.add_argument("--home", type=Path)
    mat.add_argument("--jobs", type=int, default=None, metavar="N",
                     help="tasks laid at once (default $GATEBENCH_MATERIALIZE_JOBS, else 2); environments are built "
                          "with uv when installed ($GATEBENCH_ENV_BUILDER=pip forces pip)")
    cur = sub.add_parser("curate", help="import a recipe in full and write its measurements back into it")
    cur.add_argument("recipes", nargs="+", type=Path, metavar="RECIPE")
    cur.add_argument("--timeout-s", type=float, default=300)
    chk = sub.add_parser("check", help="base fails FAIL_TO_PASS; the reference passes both sets, twice; oracle time")
    chk.add_argument("task_id", metavar="ID")
    chk.add_argument("--home", type=Path)
    chk.add_argument("--json", action="store_true")
    from gatebench.cli import mine, read_eval

    read_eval.add_arguments(sub)
    mine.add_arguments(sub)


def _home(args) -> Path:
    import os

    from gatebench.paths import project_root

    if args.home is not None:
        # Every later lookup (tasks, configs, the environment cache) follows the chosen home.
        os.environ["GATEBENCH_HOME"] = str(args.home.resolve())
    return project_root()


def run(args: argparse.Namespace) -> int:
    home = _home(args) if hasattr(args, "home") else None
    if args.task_cmd == "mine":
        from gatebench.cli import mine

        return mine.run(args)
    if args.task_cmd in ("read-eval", "import-eval"):
        from gatebench.cli import read_eval

        return read_eval.run(args)
    if args.task_cmd == "list":
        return _list(home, args.json)
    if args.task_cmd == "materialize":
        return _materialize(args, home)
    if args.task_cmd == "curate":
        return _curate(args)
    assert home is not None
    if args.task_cmd == "check":
        return _check(args, home)
    return _import(args, home)


def _materialize(args: argparse.Namespace, home: Path | None) -> int:
    from gatebench.suite.recipes import ensure_tasks
    from gatebench.suite.suites import suite_ids

    ids = list(args.ids) or suite_ids(args.suite or "real", home)
    done = ensure_tasks(ids, home, log=lambda m: print(f"materialize: {m}", file=sys.stderr), jobs=args.jobs)
    laid = [d for d in done if d["laid"]]
    down = [d for d in laid if d.get("downloaded")]
    print(f"{len(ids)} real tasks: {len(laid)} laid ({sum(d['seconds'] for d in laid):.0f} s of task time), "
          f"{len(ids) - len(laid)} already there" + (f"; {len(down)} downloaded an sdist "
          f"({sum(d['fetch_seconds'] for d in down):.0f} s)" if down else ""))
    return 0


def _curate(args: argparse.Namespace) -> int:
    from gatebench.errors import UsageError
    from gatebench.suite.recipes import curate

    bad = 0
    for path in args.recipes:
        try:
            r, warnings = curate(path, log=lambda m: print(f"curate: {m}", file=sys.stderr), timeout_s=args.timeout_s)
        except UsageError as e:
            print(f"{path}: FAILED: {e}")
            bad += 1
            continue
        wrong = sum(1 for i in r.injections if i.kind in ("partial", "plausible"))
        crude = sum(1 for i in r.injections if i.kind == "crude")
        print(f"{path}: FAIL_TO_PASS {len(r.fail_to_pass)}, PASS_TO_PASS {len(r.pass_to_pass)}, {wrong} plausible "
              f"wrong fixes and {crude} crude, "
              f"{len(r.injections)} injections; {r.cost.seconds if r.cost else 0:.0f} s")
        for w in warnings:
            print(f"  warning: {w}")
    return 1 if bad else 0


def _check(args: argparse.Namespace, home: Path) -> int:
    from gatebench.suite.taskimport import check_task
    from gatebench.suite.tasks import load_task

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
        for m in res["marked"]:
            print(f"  MARKED: the prompt does not state {m}")
        print("check passed" if not res["problems"] else "check FAILED")
    return 0 if not res["problems"] else 1


def _import(args: argparse.Namespace, home: Path) -> int:
    from gatebench.errors import UsageError
    from gatebench.suite.taskimport import import_task

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
        return 0
    print(f"imported {imp.id} from {imp.commit[:12]} (base: parent {imp.parent[:12]}) into {home}")
    print(f"  prompt from the {imp.prompt_from}")
    print(f"  hidden: {', '.join(imp.hidden)}")
    print(f"  reference: {', '.join(imp.reference)}")
    print(f"  FAIL_TO_PASS {len(imp.fail_to_pass)}, PASS_TO_PASS {len(imp.pass_to_pass)}")
    for name, inj in imp.injections.items():
        print(f"  inject {name}: {inj['kind']}, fails {inj['fails']}, blocked by {', '.join(inj['blocked_by'])}")
    ev = imp.env
    print(f"  environment {ev['key']} (shared: {ev['shared']}): {'built' if ev['built'] else 'reused'} "
          f"({ev['seconds']:.1f} s)")
    print(f"  disk: {imp.disk_bytes / 1e6:.1f} MB (task files and what its environment added)")
    print(f"  import took {imp.seconds:.1f} s (without the environment build)")
    print(f"next: gatebench selftest --tasks {imp.id}; gatebench task check {imp.id}")
    return 0


def _list(home, as_json: bool) -> int:
    """Every task in the bench home and every recipe, one line each: id, source, status, sets, import cost."""
    from gatebench.suite.recipes import recipe_paths
    from gatebench.suite.suites import _task_yaml
    from gatebench.suite.tasks import task_ids

    rows = [_task_row(tid, _task_yaml(home, tid)) for tid in task_ids(home)]
    totals, projects = _add_recipes(rows, home)
    if as_json:
        print(json.dumps({"tasks": rows, "real_suite": {"tasks": len(recipe_paths()), "projects": len(projects),
                                                          **totals}}, indent=1))
        return 0
    for row in rows:
        c = row["cost"]
        spent = f"  import {c['seconds']:.0f} s + env {c['env_seconds']:.0f} s, {c['disk_bytes'] / 1e6:.1f} MB" if c else ""
        print(f"{row['id']:5} {row['status']:44} F2P {row['fail_to_pass']:3} P2P {row['pass_to_pass']:4}  "
              f"{row['source']}{spent}")
    print(f"real suite: {len(recipe_paths())} tasks from {len(projects)} projects; import cost {totals['seconds']:.0f} s "
          f"+ environments {totals['env_seconds']:.0f} s, {totals['disk_bytes'] / 1e6:.1f} MB")
    return 0


def _task_row(tid: str, data: dict) -> dict:
    """A task's line from its task.yaml: bundled, imported, or laid from a real-suite recipe."""
    src = data.get("source") or {}
    o = data.get("oracle") or {}
    if not src:
        source, status = "bundled (hand-made)", "quick suite"
    elif src.get("recipe"):
        source = f"{src.get('project')} ({src.get('license')}) {src.get('repo')} @ {src.get('commit')}"
        status = "real suite"
    else:
        source, status = f"{src.get('repo')} @ {str(src.get('commit'))[:12]}", "imported"
    if src.get("prompt_gaps"):
        status += f", MARKED ({len(src['prompt_gaps'])} unstated details)"
    return {"id": tid, "source": source, "status": status, "fail_to_pass": len(o.get("fail_to_pass") or []),
            "pass_to_pass": len(o.get("pass_to_pass") or []), "cost": None}


def _add_recipes(rows: list[dict], home) -> tuple[dict, set[str]]:
    """Every recipe's cost onto its laid task's row, or a row of its own if not laid; (cost totals, projects)."""
    from gatebench.suite.recipes import load_recipe, materialized, recipe_hash, recipe_paths

    seen = {r["id"] for r in rows}
    totals = {"seconds": 0.0, "env_seconds": 0.0, "disk_bytes": 0}
    projects = set()
    for rid in recipe_paths():
        r = load_recipe(rid)
        projects.add(r.project)
        cost = r.cost.model_dump() if r.cost else None
        if cost:
            for k in totals:
                totals[k] += cost[k]
        if rid in seen:
            row = next(x for x in rows if x["id"] == rid)
            row["cost"] = cost
            if materialized(rid, home) != recipe_hash(r):
                row["status"] = "real suite, recipe changed: materialize again"
            continue
        rows.append({"id": rid, "source": f"{r.project} ({r.license}) {r.repo} @ {r.provenance_label()}",
                     "status": "real suite, not materialized", "fail_to_pass": len(r.fail_to_pass),
                     "pass_to_pass": len(r.pass_to_pass), "cost": cost})
    return totals, projects
