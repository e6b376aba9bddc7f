"""`gatebench export plugin-eval`: tasks and gate configs as `claude plugin eval` suites."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "export tasks x gate configs as claude plugin eval suites (plugin-eval), scored by the hidden oracle"
DESCRIPTION = """plugin-eval: write one Claude Code plugin per gate config under --out, each with an eval case per
task (prompt, a scaffold that lays out the task's repo, graders on the verdict file). The plugin's Stop hook
runs the config's gates and gatebench's hidden oracle and, after the agent's final stop, writes a verdict the
agent cannot forge. Run each plugin with `claude plugin eval OUT/<config> --scaffold --trust-plugin --ablation
none --allow-tools Bash Write Edit`, then `gatebench analyze OUT`. Layout and formats: SPEC.md section 18."""


def _list(value: str) -> list[str]:
    return [v for v in (x.strip() for x in value.split(",")) if v]


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="format", metavar="plugin-eval", required=True)
    pe = sub.add_parser("plugin-eval", help="claude plugin eval suites: one plugin per config, one case per task",
                        description=DESCRIPTION)
    pe.add_argument("--tasks", type=_list, nargs="+", metavar="ID", required=True,
                    help="task ids, space- or comma-separated")
    pe.add_argument("--configs", type=_list, nargs="+", metavar="NAME", required=True,
                    help="gate configs, space- or comma-separated; include `none` for the no-gate baseline")
    pe.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder to write (must not exist)")
    pe.add_argument("--runs", type=int, default=3, help="runs per case, case.yaml `runs` (default 3, at most 50)")
    pe.add_argument("--max-turns", type=int, default=40, help="turn cap per run (default 40, at most 200)")
    pe.add_argument("--timeout-s", type=int, default=900, help="wall cap per run in seconds (default 900, at most 3600)")
    pe.add_argument("--force", action="store_true", help="replace an earlier export at --out")
    pe.add_argument("--allow-readable-home", action="store_true",
                    help="export although the bench home lies where claude plugin eval's sandbox lets the agent read "
                         "(outside $HOME and the temp dirs): its hidden/ and reference/ folders are then readable")
    pe.add_argument("--json", action="store_true", help="print the export manifest as JSON")


def run(args: argparse.Namespace) -> int:
    from gatebench.plugineval.plugineval import ExportSpec, eval_command, export

    spec = ExportSpec(tasks=[t for g in args.tasks for t in g], configs=[c for g in args.configs for c in g],
                      out=args.out, runs=args.runs, max_turns=args.max_turns, timeout_s=args.timeout_s,
                      force=args.force, allow_readable_home=args.allow_readable_home)
    manifest, warnings = export(spec)
    for w in warnings:
        print(f"export: warning: {w}", file=sys.stderr)
    out = args.out.absolute()
    if args.json:
        print(json.dumps(manifest.model_dump(mode="json", by_alias=True), indent=1))
        return 0
    print(f"exported {len(spec.tasks)} task(s) x {len(spec.configs)} config(s) to {out} "
          f"({spec.runs} run(s) per case)")
    print("run each config's plugin:")
    for c in spec.configs:
        print(f"  {eval_command(out / c)}")
    print(f"then: gatebench analyze {out}")
    return 0
