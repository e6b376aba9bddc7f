"""`gatebench task read-eval SUITE_DIR`: a `claude plugin eval` suite's cases and graders, as gatebench reads them
(SPEC.md section 18, "Importing a suite"), and which graders it can run offline."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

OFFLINE = {"regex", "tool_used", "tool_order", "file_exists"}


def add_arguments(sub) -> None:
    rd = sub.add_parser("read-eval", help="read a claude plugin eval suite (its eval dir): cases, graders, and which "
                                          "graders gatebench runs offline")
    rd.add_argument("suite", type=Path, metavar="SUITE_DIR")
    rd.add_argument("--json", action="store_true")
    im = sub.add_parser("import-eval", help="import a claude plugin eval suite's cases as tasks of the bench home, "
                                            "graded by their own graders and a hidden oracle")
    im.add_argument("suite", type=Path, metavar="SUITE_DIR")
    im.add_argument("--home", type=Path)
    im.add_argument("--prefix", default="", help="prepended to each case's name to make its task id")
    im.add_argument("--reference", action="append", default=[], metavar="CASE=DIR",
                    help="a known-good end state for the case (files laid over its base): the sim worker needs one")
    im.add_argument("--scaffold", action="store_true", help="run the cases' setup scripts (code from the suite)")
    im.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    if args.task_cmd == "import-eval":
        return run_import(args)
    from gatebench.cell.evalimport.cases import find_cases

    cases = find_cases(args.suite)
    rows: list[dict[str, Any]] = [{"name": c.name, "dir": str(c.dir), "runs": c.runs, "max_turns": c.max_turns, "timeout_s": c.timeout_s,
             "scaffold": str(c.scaffold) if c.scaffold else None, "allowed_tools": c.allowed_tools,
             "graders": [{"name": g["name"], "type": g["type"], "weight": g["weight"], "arm": g["arm"],
                          "offline": g["type"] in OFFLINE} for g in c.graders]} for c in cases]
    if args.json:
        print(json.dumps({"suite": str(args.suite), "cases": rows}, indent=1))
        return 0
    for c in rows:
        gs = ", ".join(f"{g['name']} ({g['type']}, {g['weight']:g}{'' if g['offline'] else ', judged: unscored offline'})"
                       for g in c["graders"])
        print(f"{c['name']}: {c['runs']} run(s), {c['max_turns']} turns; graders: {gs}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from gatebench.cell.evalimport.tasks import import_suite
    from gatebench.errors import UsageError
    from gatebench.paths import project_root

    refs = {}
    for text in args.reference:
        case, sep, d = text.partition("=")
        if not sep or not case or not d:
            raise UsageError(f"--reference {text!r}: expected CASE=DIR")
        refs[case] = Path(d).resolve()
    out = import_suite(args.suite, project_root(), prefix=args.prefix, references=refs, run_scaffold=args.scaffold)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    for t in out["tasks"]:
        un = f"; unscored: {', '.join(t['unscored'])}" if t["unscored"] else ""
        print(f"{t['id']}: case {t['case']}, hidden oracle {', '.join(t['tests'])}, graders {', '.join(t['graders'])}"
              f"{un}{'' if t['reference'] else '; no reference (the sim agent changes nothing)'}")
    for s in out["skipped"]:
        print(f"skipped {s['case']}: {s['why']}")
    return 0
