"""`gatebench matrix`: run every (config, task, rep) cell, N at a time, into a ledger."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gatebench.common.defaults import MATRIX_RETRIES_MAX

if TYPE_CHECKING:  # the bench is imported only when the verb runs (`--help` loads no heavy module)
    from gatebench.cell.arms import Arm
    from gatebench.cell.workers import WorkerOptions
    from gatebench.matrix.matrix import MatrixSpec

HELP = "run a config x task x rep matrix in parallel into runs/<run-id>/results.jsonl (resumable)"
DESCRIPTION = """Prep, run and finalize every cell, --jobs at a time; each finished cell appends one record to
runs/<run-id>/results.jsonl under a file lock. Resume is the default: rerun the same command (same
--run-id) and only cells missing from the ledger run. Infra errors (the bench's own faults) are retried
(--retries) and never scored; a run the agent's own work broke (no tests collected, a crash in its code)
is its unsolved result, never rerun. At --max-cost-usd no new cell starts. Ctrl-C / SIGTERM stop every cell's processes and leave
the ledger valid. A preflight checks every task, config and the CLI (and credentials for --worker
claude) before anything runs, and prints the cell count and a cost estimate."""


def _list(value: str) -> list[str]:
    return [v for v in (x.strip() for x in value.split(",")) if v]


def add_arguments(p: argparse.ArgumentParser) -> None:
    from gatebench.cli.caps import add_cap_arguments

    p.add_argument("--configs", type=_list, nargs="+", metavar="NAME",
                   help="config names, space- or comma-separated (default: every configs/*.yaml)")
    p.add_argument("--tasks", type=_list, nargs="+", metavar="ID",
                   help="task ids, space- or comma-separated (default: every tasks/T*)")
    p.add_argument("--arm", action="append", default=[], metavar="NAME=PLUGIN_DIR",
                   help="a Claude Code plugin as one more arm (repeatable): its cells run the no-gate config `none` "
                        "with the plugin loaded (--plugin-dir), scored by the same oracle; its PreToolUse denials "
                        "are recorded. A PreToolUse gate (TDD Guard), a skill or a whole plugin")
    p.add_argument("--suite", nargs="+", choices=("quick", "real", "real-sample", "ci", "all"),
                   help="task suites, with --tasks or instead of it (real ones are laid from their recipes first)")
    p.add_argument("--reps", type=int, default=1, help="repetitions per (config, task) (default 1)")
    p.add_argument("--variant", type=_list, nargs="+", metavar="NAME",
                   help="task variants, comma-separated: normal (default) and/or impossible (the prompt with one "
                        "visible test made to contradict it; each such cell ends cheated, abstained or failed). "
                        "Both in one run: --variant normal,impossible; cell ids stay apart (<config>/<task>/<rep>"
                        "/impossible)")
    p.add_argument("--jobs", type=int, default=1, help="cells run at the same time (default 1)")
    add_cap_arguments(p)
    p.add_argument("--max-cost-usd", type=float, help="ceiling for the whole run: no new cell starts beyond it")
    p.add_argument("--run-id", help="run folder name under runs/ (default: a timestamp); reuse it to resume")
    p.add_argument("--runs-dir", type=Path, help="where run folders go (default: runs/ in the project)")
    p.add_argument("--retries", type=int, default=2,
                   help=f"reruns of a cell after an infra error, the bench's own fault (default 2, at most "
                        f"{MATRIX_RETRIES_MAX}); the agent's own failures are scored, never rerun")
    p.add_argument("--seed", type=int, default=0, help="base seed for the sim agent (default 0: per task and rep)")
    p.add_argument("--est-cost-per-cell", type=float,
                   help="for the cost estimate (default: the ledger's mean so far, else the per-cell cap)")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where cells run: local (default: child processes here) or ray (tasks on a Ray cluster; "
                        "pip install 'gatebench[ray]')")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="with --executor ray: the cluster to join (default: start a private one on this machine)")
    p.add_argument("--dry-run", action="store_true", help="preflight and plan only; run nothing, write nothing")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    from gatebench.cli.caps import worker_options
    from gatebench.matrix.matrix import check_pinned, preflight, write_run_json

    _check_executor(args)
    opts = worker_options(args)
    spec = _spec(args, opts, _arms(args))
    pre = preflight(spec)
    check_pinned(spec)
    _print_preflight(args, spec, pre)
    if args.dry_run:
        return 0
    from gatebench.cell.seal import require_seal

    opts.sealed = require_seal(args.unsealed)  # before the first cell: exit 2 naming what leaked
    write_run_json(spec, pre)
    if args.executor == "ray":
        from gatebench.matrix.ray_executor import RayMatrix

        summary = RayMatrix(spec, address=args.ray_address).run()
    else:
        from gatebench.matrix.matrix import Matrix

        summary = Matrix(spec).run()
    return _report(args, spec, summary)


def _check_executor(args: argparse.Namespace) -> None:
    from gatebench.cli import UsageError

    if not 0 <= args.retries <= MATRIX_RETRIES_MAX:
        raise UsageError(f"--retries must be between 0 and {MATRIX_RETRIES_MAX}")
    if args.ray_address and args.executor != "ray":
        raise UsageError("--ray-address goes with --executor ray")
    if args.executor == "ray":
        from gatebench.matrix.ray_executor import require_ray

        require_ray()  # before any other work: a missing extra is bad input


def _arms(args: argparse.Namespace) -> list[Arm]:
    from gatebench.cell.arms import parse as parse_arm
    from gatebench.cli import UsageError

    arms = [parse_arm(a) for a in args.arm]
    dup = sorted({a.name for a in arms if sum(b.name == a.name for b in arms) > 1})
    if dup:
        raise UsageError(f"--arm: named twice: {', '.join(dup)}")
    if arms and args.executor == "ray":
        raise UsageError("--arm runs on the local executor only (the Ray executor does not ship plugins)")
    return arms


def _spec(args: argparse.Namespace, opts: WorkerOptions, arms: list[Arm]) -> MatrixSpec:
    from gatebench.matrix.matrix import MatrixSpec, all_configs, default_run_id, default_tasks

    configs = [c for group in args.configs or [] for c in group]
    tasks = [t for group in args.tasks or [] for t in group]
    variants = [v for group in args.variant or [] for v in group]
    if args.suite:
        from gatebench.suite.suites import select

        tasks = select(args.suite, tasks)
    spec = MatrixSpec(configs=configs or all_configs(), tasks=tasks or default_tasks(), reps=args.reps,
                      jobs=args.jobs, worker=args.worker, opts=opts, max_cost_usd=args.max_cost_usd,
                      run_id=args.run_id or default_run_id(), retries=args.retries, seed=args.seed,
                      arms={a.name: a.plugin for a in arms}, variants=variants or ["normal"])
    if args.runs_dir:
        spec.runs_dir = args.runs_dir.absolute()
    return spec


def _print_preflight(args: argparse.Namespace, spec: MatrixSpec, pre: dict) -> None:
    """The plan (cells, what is done), the models, and the cost estimate."""
    from gatebench.matrix import ledger
    from gatebench.matrix.matrix import plan

    opts = spec.opts
    cells = plan(spec)
    records = ledger.read(spec.ledger)
    done = {r.get("cell_id") for r in records} & {c.id for c in cells}
    todo = len(cells) - len(done)
    costs = [float(r.get("cost_usd") or 0) + float(r.get("reviewer_cost_usd") or 0) for r in records]
    per_cell = args.est_cost_per_cell
    basis = "--est-cost-per-cell"
    if per_cell is None:
        per_cell, basis = ((sum(costs) / len(costs), "mean of this run's ledger") if costs
                           else (opts.max_budget_usd, "the per-cell cap (an upper bound)"))
    est = per_cell * todo
    fake = " (sim: fake dollars from the CLI's price table, nothing is paid)" if spec.worker == "sim" else ""
    arm_note = f" + {len(spec.arms)} plugin arm(s) ({', '.join(spec.arms)})" if spec.arms else ""
    vs = f" x {len(spec.variants)} variant(s) ({','.join(spec.variants)})" if spec.variants != ["normal"] else ""
    print(f"[preflight] {len(spec.configs)} config(s){arm_note} x {len(spec.tasks)} task(s){vs} x {spec.reps} rep(s) = {len(cells)} "
          f"cells; {len(done)} done, {todo} to run; worker {spec.worker}, model {opts.model}, CLI {pre['cli_version']}")
    _print_models(spec, pre)
    print(f"[preflight] cost estimate ${est:.2f} (${per_cell:.2f}/cell, {basis}){fake}"
          + (f"; ceiling ${spec.max_cost_usd:g}" if spec.max_cost_usd is not None else ""))


def _print_models(spec: MatrixSpec, pre: dict) -> None:
    from gatebench.claude_cli import DEFAULT_REVIEWER_MODEL, DEFAULT_WORKER_MODEL

    def dflt(m: str, d: str) -> str:
        return f"{m} (default)" if m == d else m

    revs = "; ".join(f"{dflt(m, DEFAULT_REVIEWER_MODEL)} in {', '.join(cs)}" for m, cs in pre["reviewer_models"].items())
    print(f"[preflight] models: worker {dflt(spec.opts.model, DEFAULT_WORKER_MODEL)}; reviewers {revs or 'none'}"
          + (" (sim: the scripted agent and reviewers play these models)" if spec.worker == "sim" else ""))


def _report(args: argparse.Namespace, spec: MatrixSpec, summary: dict) -> int:
    """The summary line (or JSON), and the exit code it makes."""
    from gatebench.cli import EXIT_FAIL, EXIT_INTERRUPTED

    print(json.dumps(summary, indent=1) if args.json else
          f"[matrix] {summary['recorded']}/{summary['cells']} cells recorded, {summary['solved']} solved, "
          f"{summary['infra_error']} infra errors, {'sim $' if spec.worker == 'sim' else '$'}{summary['cost_usd']:.2f}"
          f"{' (simulated dollars, never paid)' if spec.worker == 'sim' else ''}; ledger {summary['ledger']}")
    if summary["interrupted"]:
        return EXIT_INTERRUPTED
    if summary["recorded"] and not summary.get("oracle_judged"):
        print(f"[matrix] NO ORACLE RAN: none of the {summary['recorded']} recorded cell(s) was judged by the hidden "
              "oracle: there is no solve rate in this run", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_FAIL if summary["infra_error"] or summary["recorded"] < summary["cells"] else 0
