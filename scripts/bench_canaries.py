#!/usr/bin/env python3
"""What canaries and the closed harness cost the hidden oracle, measured side by side.

    .venv/bin/python scripts/bench_canaries.py [--tasks T1,T5,T8,T12] [--rounds 15] [--sandbox off|required]
                                               [--state reference] [--arms old,closed,...] [--imported]
                                               [--caps 0,16,32,64,128]

For each bundled task, on its reference end state, alternates (so machine load hits all alike):
- `old`: the oracle as before issue 20 (the task's command through a shell, outcomes from JUnit, no canaries);
- `closed`: the closed harness and gatebench's report stream, no canaries;
- `legacy`: the canaries as before issue 31 (one twin per test, laid into the source's own bytes:
  tests/legacy_twin_layout.py);
- `before`: the canaries as before their cost was cut (pytest rewrote the printed module's asserts, and every
  printed module was parsed again);
- `k`: the canaries as before the tests a wrong fix fails got their sites' capacity (budget 0: k twins each,
  more only where the blind bound needs them);
- `canaries`: what every bench run does now (closed, every expected test twinned up to the cap, k twins each,
  the tests a wrong fix fails up to their sites' capacity within `canaries.TARGET_BUDGET` extra twins, the module
  printed anew by oracle/render.py, marked PYTEST_DONT_REWRITE).
Prints the median wall and CPU seconds (this process and its children) of each, before / old, canaries / old,
canaries / closed, canaries / k and canaries / legacy (what issue 31's printer and k twins cost over the one-twin
layout). `--state` measures on another end state than the reference (`base`, or an injection's name): where the
code is wrong a test may wait out its timeouts (T11's pool), and each twin of it waits too. `--arms` runs only those
arms (`old` and `canaries` always); `--budgets 16,32` adds an arm `bN` per budget; `--home` finds the tasks in a bench home (a real-suite task, R1). By
default every arm runs unsandboxed (`--sandbox off`), so that pytest's CPU seconds are accounted to this process
(bwrap's are not) and the CPU ratio, steadier than wall time on a shared machine, is the one judged; the sandbox
costs every arm alike (scripts/bench_sandbox.py). `--sandbox required` measures wall time as the bench runs. `--imported` also imports more-itertools 10.1.0 -> 10.2.0
(626 expected tests; sdists cached in .cache/sdists, as scripts/bench_task_import.py) into a throw-away home and
times the oracle on its reference with twins of every FAIL_TO_PASS test and at most CAP of the rest, for each
`--caps` value: what chose `CANARY_CAP`. Exit 1 when a bundled task's canaries / old or canaries / legacy ratio
exceeds 1.3 (CPU, or wall with `--sandbox required`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))  # legacy_twin_layout: the one-twin layout, measured against

LIMIT = 1.3


SANDBOX = "off"  # --sandbox: `off` for CPU figures (a sandboxed run's children are not accounted to us)


def arms(tf, repo: Path, python: str, budgets: tuple[int, ...] = ()) -> dict:
    from gatebench.oracle.oracle import run_binding, run_oracle
    from gatebench.suite.benchstate import oracle_binding

    b = {**oracle_binding(tf).model_dump(), "sandbox": SANDBOX}
    o = tf.task.oracle

    def old() -> dict:
        return run_oracle(str(repo), b["hidden_dir"], o.command, o.dest, o.timeout_s, python,
                          expected=b["expected"], baseline_dir=b["baseline_dir"], layout=b["layout"],
                          fail_to_pass=b["fail_to_pass"], pass_to_pass=b["pass_to_pass"], closed_harness=False,
                          sandbox_mode=SANDBOX)

    def closed() -> dict:
        return run_oracle(str(repo), b["hidden_dir"], o.command, o.dest, o.timeout_s, python,
                          expected=b["expected"], baseline_dir=b["baseline_dir"], layout=b["layout"],
                          fail_to_pass=b["fail_to_pass"], pass_to_pass=b["pass_to_pass"], sandbox_mode=SANDBOX)

    def legacy() -> dict:
        from legacy_twin_layout import disguise

        from gatebench.oracle import canaries

        real = canaries.render.render
        canaries.render.render = lambda src, twin_of, rng, *, k=None, place="random", k_of=None, **_kw: disguise(
            src, twin_of, rng, place)
        try:
            return run_binding(str(repo), b, python)
        finally:
            canaries.render.render = real

    def before(**kw) -> dict:
        # The printer as before the cost fix: the module's asserts left to pytest to rewrite, and every printed
        # module parsed again (now only one with an f-string).
        import ast

        from gatebench.oracle import render

        real, unrewritten = render.render, render._unrewritten

        def printed(*a, **k):
            d = real(*a, **k)
            ast.parse(d.source)
            return d

        render.render, render._unrewritten = printed, lambda body: body
        try:
            return run_binding(str(repo), b, python, canaries=kw)
        finally:
            render.render, render._unrewritten = real, unrewritten

    return {"old": old, "closed": closed, "legacy": legacy, "before": before,
            "k": lambda **kw: run_binding(str(repo), b, python, canaries={"budget": 0, **kw}),
            **{f"b{n}": (lambda n=n, **kw: run_binding(str(repo), b, python, canaries={"budget": n, **kw}))
               for n in budgets},
            "canaries": lambda **kw: run_binding(str(repo), b, python, canaries=kw)}


def timed(fn, **kw) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of this process and its children, result)."""
    import resource

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    t0, c0 = time.monotonic(), cpu()
    r = fn(**kw)
    return time.monotonic() - t0, cpu() - c0, r


def bundled(tids: list[str], rounds: int, state: str = "reference", only: list[str] | None = None,
            home: Path | None = None, budgets: tuple[int, ...] = ()) -> list[tuple]:
    from gatebench.suite.taskenv import task_env
    from gatebench.suite.tasks import apply_state, copy_tree, load_task

    rows = []
    for tid in tids:
        tf = load_task(tid, home) if home else load_task(tid)
        env = task_env(tf)  # a real-suite task runs in its own environment
        with tempfile.TemporaryDirectory(prefix="gatebench-bench-canaries-") as tmp:
            repo = Path(tmp) / "repo"
            copy_tree(tf.repo, repo)
            if state != "base":
                apply_state(tf, state, repo)
            fns = {k: f for k, f in arms(tf, repo, env.python if env else sys.executable, budgets).items()
                   if only is None or k in only or k in ("old", "canaries") or k[1:].isdigit()}
            times: dict[str, list[float]] = {k: [] for k in fns}
            cpus: dict[str, list[float]] = {k: [] for k in fns}
            twins = 0
            for i in range(rounds):
                order = list(fns) if i % 2 == 0 else list(reversed(fns))
                for k in order:
                    s, c, r = timed(fns[k])
                    assert r["solved"] or state != "reference", (tid, k, r["failing"], r["error"])
                    assert not r.get("error"), (tid, k, r["error"])
                    times[k].append(s)
                    cpus[k].append(c)
                    if k == "canaries":
                        twins = (r.get("canaries") or {}).get("run", twins)  # tests twinned
            med = {k: statistics.median(v) for k, v in times.items()}
            cpu = {k: statistics.median(v) for k, v in cpus.items()}
            rows.append((tid, twins, med, cpu))
            print(f"{tid} ({state}): old {med['old']:.2f} s, canaries ({twins} twinned) {med['canaries']:.2f} s: "
                  f"{med['canaries'] / med['old']:.2f}x wall, {cpu['canaries'] / cpu['old']:.2f}x CPU"
                  + (f" (k: {cpu['k'] / cpu['old']:.2f}x)" if "k" in cpu else ""), file=sys.stderr)
    return rows


def imported(rounds: int, caps: list[int | None]) -> None:
    import os

    from bench_task_import import lay  # more-itertools 10.1.0 -> 10.2.0 as a two-commit repo

    from gatebench.suite.taskenv import task_env
    from gatebench.suite.taskimport import import_task
    from gatebench.suite.tasks import apply_state, copy_tree, load_task

    with tempfile.TemporaryDirectory(prefix="gatebench-bench-canaries-imp-") as tmp:
        src, home = Path(tmp) / "src", Path(tmp) / "home"
        home.mkdir()
        commit = lay(src)
        os.environ.setdefault("GATEBENCH_ENV_CACHE", str(ROOT / ".cache" / "envs"))
        t0 = time.monotonic()
        res = import_task(src, commit, home, task_id="MI", timeout_s=600)
        print(f"imported MI in {time.monotonic() - t0:.0f} s: FAIL_TO_PASS {len(res.fail_to_pass)}, PASS_TO_PASS "
              f"{len(res.pass_to_pass)}, canaries excluded {len(load_task('MI', home).task.canaries.exclude)}",
              file=sys.stderr)
        tf = load_task("MI", home)
        env = task_env(tf)
        repo = Path(tmp) / "repo"
        copy_tree(tf.repo, repo)
        apply_state(tf, "reference", repo)
        fns = arms(tf, repo, env.python if env else sys.executable)
        times: dict[str, list[float]] = {}
        cpus: dict[str, list[float]] = {}
        twins: dict[str, int] = {}
        for i in range(rounds):
            plan = [("old", {}), *((f"cap {c if c is not None else 'all'}", {"cap": c}) for c in caps)]
            for name, kw in plan if i % 2 == 0 else reversed(plan):
                s, c, r = timed(fns["old"] if name == "old" else fns["canaries"], **kw)
                assert r["solved"], (name, r["failing"][:5], r["error"])
                times.setdefault(name, []).append(s)
                cpus.setdefault(name, []).append(c)
                twins[name] = (r.get("canaries") or {}).get("run", 0)
        base, base_cpu = statistics.median(times["old"]), statistics.median(cpus["old"])
        print(f"\nimported task MI ({len(tf.task.expected_tests())} expected tests), medians of {rounds}:")
        print(f"{'arm':10} {'twins':>6} {'wall s':>7} {'x old':>6} {'CPU s':>6} {'x old':>6}")
        for name, v in times.items():
            m, c = statistics.median(v), statistics.median(cpus[name])
            print(f"{name:10} {twins.get(name, 0):>6} {m:>7.2f} {m / base:>6.2f} {c:>6.2f} {c / base_cpu:>6.2f}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="T1,T5,T8,T12")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--state", default="reference", help="the end state measured: reference, base, or an injection")
    ap.add_argument("--arms", default="", help="comma-separated arms to run (old and canaries always); default all")
    ap.add_argument("--home", default="", help="the bench home of the tasks (a real-suite task laid by `gatebench "
                    "task materialize --home`)")
    ap.add_argument("--budgets", default="", help="comma-separated `budget` values, each an arm `bN` (what chose "
                    "canaries.TARGET_BUDGET)")
    ap.add_argument("--imported", action="store_true")
    ap.add_argument("--caps", default="0,16,32,64,128")
    ap.add_argument("--sandbox", choices=("required", "off"), default="off",
                    help="off: unsandboxed arms, whose CPU seconds are accounted (the sandbox costs both arms alike)")
    args = ap.parse_args()
    global SANDBOX
    SANDBOX = args.sandbox
    rows = bundled([t for t in args.tasks.split(",") if t], args.rounds, args.state,
                   args.arms.split(",") if args.arms else None, Path(args.home) if args.home else None,
                   tuple(int(n) for n in args.budgets.split(",") if n)) \
        if args.tasks else []
    if rows:
        print(f"medians of {args.rounds} alternating rounds, state {args.state}, sandbox {SANDBOX}; wall seconds, then "
              "CPU seconds (this process and its children: steadier on a shared machine; sandboxed, the children's "
              "are not counted); ratios to `old` unless named")
        names = [k for k in ("old", "closed", "legacy", "before", "k", *(k for k in rows[0][2] if k[1:].isdigit()),
                             "canaries") if k in rows[0][2]]
        ratios = [(f"{n} x", n, "old") for n in names if n != "old"]
        ratios += [(f"x {n}", "canaries", n) for n in ("closed", "k", "legacy") if n in names]
        head = " ".join(f"{n:>8}" for n in names) + " " + " ".join(f"{r[0]:>10}" for r in ratios)
        print(f"{'task':5} {'tests':>5} {head} | {head}")
        for tid, twins, w, c in rows:
            cells = [" ".join(f"{d[n]:>8.2f}" for n in names) + " "
                     + " ".join(f"{d[a] / d[b]:>10.2f}" for _h, a, b in ratios) for d in (w, c)]
            print(f"{tid:5} {twins:>5} {cells[0]} | {cells[1]}")
    if args.imported:
        imported(args.rounds, [None if c == "all" else int(c) for c in args.caps.split(",")])
    # The sandbox hides its children's CPU from us: judge the CPU ratio unsandboxed, the wall ratio otherwise.
    worst = max(((c if SANDBOX == "off" else w)["canaries"] / (c if SANDBOX == "off" else w)[base]
                 for _t, _n, w, c in rows for base in ("old", "legacy") if base in w), default=0.0)
    if worst > LIMIT:
        print(f"bench_canaries: canaries cost {worst:.2f}x the old oracle or the one-twin layout, over {LIMIT}x",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
