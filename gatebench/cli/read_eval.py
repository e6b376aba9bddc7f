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


def run(args: argparse.Namespace) -> int:
    from gatebench.bench.evalimport.cases import find_cases

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
