#!/usr/bin/env python3
"""Measure the runner: its own overhead per cell, and what --jobs 3 buys over --jobs 1.

    .venv/bin/python scripts/bench_matrix.py [--configs a,b (default: all)] [--tasks T1,T2,T7] [--reps 1]

Runs the same offline `sim` matrix twice (--jobs 1, then --jobs 3) into a temporary runs folder and prints:
- overhead per cell = prep + finalize (without its oracle) + the hook's own machinery at every stop
  (hook time minus its oracle and gates, plus the hook process's start-up, measured here on a cold
  process exactly as Claude Code starts it), as a share of a whole sim cell (prep + worker + finalize);
- the wall-time ratio of --jobs 3 to --jobs 1;
- a sealed against an unsealed sim cell (the same small matrix, --jobs 1, both run here): mean cell wall.
Goals: overhead under 10% of a sim cell; --jobs 3 at most 0.6x the wall of --jobs 1; sealed at most 1.2x unsealed.
`--seal-only` runs just the seal comparison (--seal-configs x --seal-tasks x --seal-reps).

`--overhead-only --vs CHECKOUT` measures the overhead alone, of this checkout and of another one (a clone of
main, say) side by side: the same --jobs 1 matrix with each checkout's code in turn, --rounds times, order
alternated, the same interpreter for both; it prints each one's overhead, its parts, and their ratio.

With --ray (needs the `ray` extra) it also runs the same matrix with `--executor ray` on a private local
Ray cluster, --jobs 3 both ways, and prints the Ray path's extra wall per cell against the local executor
(cluster start-up is reported apart: it is paid once per matrix, not per cell).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run_matrix(runs: Path, run_id: str, args: argparse.Namespace, jobs: int, *extra: str,
               configs: str | None = None, tasks: str | None = None, reps: int | None = None,
               root: Path = ROOT) -> float:
    """`gatebench matrix` of the checkout `root` (its package: `-m` from its folder), --worker sim."""
    cmd = [sys.executable, "-m", "gatebench", "matrix", "--worker", "sim", "--configs", configs or args.configs,
           "--tasks", tasks or args.tasks, "--reps", str(reps or args.reps), "--jobs", str(jobs), "--run-id", run_id,
           "--runs-dir", str(runs), *extra]
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env={**os.environ, "GATEBENCH_HOME": str(root)})
    wall = time.monotonic() - t0
    if r.returncode not in (0, 1):
        sys.exit(f"matrix failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return wall


def hook_startup_s(tmp: Path, n: int = 5, root: Path = ROOT) -> float:
    """Wall of a cold hook process minus the time it reports for itself: the start-up the events cannot see."""
    cell = tmp / "hookcell"
    subprocess.run([sys.executable, "-m", "gatebench", "prep", "T1", "--config", "none", "--out", str(cell), "--force"],
                   cwd=root, env={**os.environ, "GATEBENCH_HOME": str(root)}, check=True, capture_output=True)
    settings = json.loads((cell / "repo" / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    stdin = json.dumps({"session_id": "s", "cwd": str(cell / "repo"), "prompt_id": "p", "hook_event_name": "Stop",
                        "stop_hook_active": False, "last_assistant_message": "Done."})
    samples = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True, cwd=cell / "repo")
        wall = time.monotonic() - t0
        last = json.loads((cell / "state" / "events.jsonl").read_text().splitlines()[-1])
        samples.append(wall - float(last.get("seconds") or 0))
    return statistics.median(samples)


def seal_report(args: argparse.Namespace) -> None:
    """The same cells sealed and unsealed, side by side in one run (each cell a fresh prep, --jobs 1)."""
    kw = {"configs": args.seal_configs, "tasks": args.seal_tasks, "reps": args.seal_reps}
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-seal-") as t:
        runs = Path(t) / "runs"
        os.environ["XDG_CACHE_HOME"] = str(Path(t) / "cache")  # a cold probe cache: the probe is measured too
        run_matrix(runs, "warm", args, 1, "--unsealed", configs="none", tasks=args.seal_tasks, reps=1)  # caches
        t0 = time.monotonic()
        run_matrix(runs, "probe", args, 1, configs="none", tasks=args.seal_tasks, reps=1)  # proves the seal once
        probe_s = time.monotonic() - t0
        walls: dict[str, list[float]] = {"sealed": [], "unsealed": []}
        workers: dict[str, list[float]] = {"sealed": [], "unsealed": []}
        calls: dict[str, list[int]] = {"sealed": [], "unsealed": []}
        for i in range(2):  # alternate the order, so drift of the shared machine hits both alike
            for arm in (("sealed", "unsealed") if i == 0 else ("unsealed", "sealed")):
                run_matrix(runs, f"{arm}{i}", args, 1, *(["--unsealed"] if arm == "unsealed" else []), **kw)
                recs = [json.loads(x) for x in (runs / f"{arm}{i}" / "results.jsonl").read_text().splitlines()]
                bad = [r for r in recs if r["sealed"] != (arm == "sealed") or r["status"] != "ok"]
                if bad:
                    sys.exit(f"{arm}: unexpected records: {[(r['cell_id'], r['status'], r['sealed']) for r in bad]}")
                walls[arm] += [(r.get("timing") or {}).get("cell_wall_s", 0.0) for r in recs]
                workers[arm] += [(r.get("timing") or {}).get("worker_s", 0.0) for r in recs]
                calls[arm] += [sum((r.get("tool_calls") or {}).values()) for r in recs]
    s, u = statistics.mean(walls["sealed"]), statistics.mean(walls["unsealed"])
    print(f"seal: {len(walls['sealed'])} sealed and {len(walls['unsealed'])} unsealed sim cells "
          f"({args.seal_configs} x {args.seal_tasks} x {args.seal_reps}, twice each): mean cell wall sealed {s:.2f} s, "
          f"unsealed {u:.2f} s, ratio {s / u:.2f} (goal <= 1.20); medians {statistics.median(walls['sealed']):.2f} / "
          f"{statistics.median(walls['unsealed']):.2f} s; the seal probe (once per machine and CLI, cached) "
          f"{probe_s:.1f} s including a 1-cell matrix", flush=True)
    ws, wu = statistics.mean(workers["sealed"]), statistics.mean(workers["unsealed"])
    print(f"seal: worker (the CLI session) sealed {ws:.2f} s, unsealed {wu:.2f} s, ratio {ws / wu:.2f}; tool calls per "
          f"cell {statistics.mean(calls['sealed']):.1f} / {statistics.mean(calls['unsealed']):.1f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", help="comma-separated (default: every configs/*.yaml)")
    ap.add_argument("--tasks", default="T1,T2,T7")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--seal-configs", default="none,tests")
    ap.add_argument("--seal-tasks", default="T1")
    ap.add_argument("--seal-reps", type=int, default=2)
    ap.add_argument("--seal-only", action="store_true", help="only the sealed vs unsealed comparison")
    ap.add_argument("--ray", action="store_true", help="also measure --executor ray against local (jobs 3)")
    ap.add_argument("--overhead-only", action="store_true", help="only the runner's overhead (no seal, no --jobs 3)")
    ap.add_argument("--vs", type=Path, help="with --overhead-only: another checkout measured alternately with this one")
    ap.add_argument("--rounds", type=int, default=2, help="with --overhead-only: matrices per checkout (default 2)")
    args = ap.parse_args()
    os.chdir(ROOT)
    if not args.configs:
        args.configs = ",".join(sorted(p.stem for p in (ROOT / "configs").glob("*.yaml")))
    if args.overhead_only:
        return overhead_report(args)
    seal_report(args)
    if args.seal_only:
        return 0
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-matrix-") as t:
        tmp = Path(t)
        startup = hook_startup_s(tmp)
        wall1 = run_matrix(tmp / "runs", "jobs1", args, 1)
        wall3 = run_matrix(tmp / "runs", "jobs3", args, 3)
        recs = [json.loads(x) for x in (tmp / "runs" / "jobs1" / "results.jsonl").read_text().splitlines()]
        ray_lines = ray_overhead(tmp / "runs", args, wall3) if args.ray else []
    o = overhead_of(recs, startup)
    print_overhead(args, o)
    print(f"wall: --jobs 1 {wall1:.1f} s, --jobs 3 {wall3:.1f} s, ratio {wall3 / wall1:.2f} (goal <= 0.60) "
          f"on {os.cpu_count()} cores")
    for line in ray_lines:
        print(line)
    return 0


PARTS = ("prep_s", "finalize_s", "hook_own", "child")


def overhead_of(recs: list[dict], startup: float) -> dict:
    """Mean per cell of the runner's overhead and its parts, from a --jobs 1 run's records."""
    rows = []
    for r in recs:
        tm = r.get("timing") or {}
        stops = len(r.get("stops") or [])
        hook_own = tm.get("hook_s", 0) - tm.get("hook_oracle_s", 0) - tm.get("hook_gates_s", 0) + startup * stops
        # Everything of the cell's wall that is not the worker or the final oracle is the runner's (prep, the
        # child process, finalize), plus the hook's own machinery inside the worker's time.
        cell = tm.get("cell_wall_s", 0)
        overhead = cell - tm.get("worker_s", 0) - tm.get("final_oracle_s", 0) + hook_own
        child = cell - tm.get("worker_s", 0) - tm.get("final_oracle_s", 0) - tm.get("prep_s", 0) - \
            tm.get("finalize_s", 0)  # the child process, run_worker's own steps, the worker's set-up
        rows.append({"overhead": overhead, "cell": cell, "prep_s": tm.get("prep_s", 0),
                     "worker_s": tm.get("worker_s", 0), "finalize_s": tm.get("finalize_s", 0),
                     "final_oracle_s": tm.get("final_oracle_s", 0), "hook_s": tm.get("hook_s", 0),
                     "hook_oracle_s": tm.get("hook_oracle_s", 0), "hook_gates_s": tm.get("hook_gates_s", 0),
                     "hook_own": hook_own, "child": child})
    out = {k: statistics.mean(x[k] for x in rows) for k in rows[0]}
    out.update(n=len(rows), ok=sum(1 for r in recs if r["status"] == "ok"), startup=startup)
    return out


def print_overhead(args: argparse.Namespace, o: dict, label: str = "") -> None:
    print(f"{label}sim matrix: configs {args.configs} x tasks {args.tasks} x {args.reps} rep(s) = {o['n']} cells "
          f"({o['ok']} ok)")
    print(f"{label}mean per cell (jobs 1): whole cell {o['cell']:.2f} s wall; prep {o['prep_s']:.3f}"
          f", worker {o['worker_s']:.2f}, finalize {o['finalize_s']:.3f}, final oracle {o['final_oracle_s']:.2f}")
    print(f"{label}  hook: {o['hook_s']:.2f} s in-process per cell, of which oracle {o['hook_oracle_s']:.2f} and gates "
          f"{o['hook_gates_s']:.2f}; process start-up {o['startup'] * 1000:.0f} ms per stop")
    print(f"{label}runner overhead per cell (prep, run process, finalize, hook machinery; no agent/oracle/gates): "
          f"{o['overhead']:.3f} s = {100 * o['overhead'] / o['cell']:.1f}% of a sim cell (goal < 10%); parts: "
          + ", ".join(f"{k} {o[k]:.3f}" for k in PARTS))


def overhead_report(args: argparse.Namespace) -> int:
    """This checkout's overhead, and with --vs another checkout's, measured alternately in this one run."""
    roots = {"this": ROOT, **({"vs": args.vs.resolve()} if args.vs else {})}
    recs: dict[str, list[dict]] = {k: [] for k in roots}
    startups: dict[str, list[float]] = {k: [] for k in roots}
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-overhead-") as t:
        tmp = Path(t)
        for i in range(args.rounds):
            for name in (list(roots) if i % 2 == 0 else list(reversed(roots))):
                root = roots[name]
                startups[name].append(hook_startup_s(tmp / f"{name}{i}", root=root))
                run_matrix(tmp / "runs", f"{name}{i}", args, 1, root=root)
                recs[name] += [json.loads(x) for x in (tmp / "runs" / f"{name}{i}" / "results.jsonl").read_text()
                               .splitlines()]
    res = {name: overhead_of(recs[name], statistics.median(startups[name])) for name in roots}
    for name, o in res.items():
        print_overhead(args, o, f"[{name}: {roots[name]}] ")
    if "vs" in res:
        a, b = res["this"], res["vs"]
        print(f"overhead share of a sim cell: this {100 * a['overhead'] / a['cell']:.1f}% vs "
              f"{100 * b['overhead'] / b['cell']:.1f}% ({args.rounds} rounds alternated; overhead ratio "
              f"{a['overhead'] / b['overhead']:.2f}, parts: " +
              ", ".join(f"{k} {a[k]:.3f}/{b[k]:.3f}" for k in PARTS) + ")")
    return 0


def ray_overhead(runs: Path, args: argparse.Namespace, wall_local3: float) -> list[str]:
    """The Ray executor against the local one on the same cells, both --jobs 3, measured in this run."""
    from gatebench.matrix.ray_executor import LOOPBACK_ENV

    os.environ.setdefault(LOOPBACK_ENV, "0")  # before Ray's import: every address on loopback
    import ray

    t0 = time.monotonic()
    ray.init(include_dashboard=False, num_cpus=3, _node_ip_address="127.0.0.1", logging_level="ERROR")
    ray.shutdown()
    start = time.monotonic() - t0
    wall_ray = run_matrix(runs, "ray3", args, 3, "--executor", "ray")
    recs = [json.loads(x) for x in (runs / "ray3" / "results.jsonl").read_text().splitlines()]
    local = {json.loads(x)["cell_id"]: json.loads(x) for x in (runs / "jobs3" / "results.jsonl").read_text().splitlines()}
    per_cell = [r["timing"]["cell_wall_s"] - local[r["cell_id"]]["timing"]["cell_wall_s"] for r in recs
                if r["cell_id"] in local]
    n = len(recs)
    return [f"ray executor (jobs 3, local 1-node cluster): wall {wall_ray:.1f} s vs local {wall_local3:.1f} s "
            f"(ratio {wall_ray / wall_local3:.2f}); cluster start-up alone {start:.1f} s",
            f"  per cell: {statistics.mean(per_cell):+.2f} s wall over the local executor (median "
            f"{statistics.median(per_cell):+.2f} s; {n} cells: pack, ship, unpack, a fresh `gatebench run` process)"]


if __name__ == "__main__":
    sys.exit(main())
