#!/usr/bin/env python3
"""Calibration of `gatebench analyze` by simulation: coverage of its 95% intervals and the efficiency of
the within-run counterfactual. Prints a report; exits 1 if the Δ or A/A coverage leaves 93-97%.

    .venv/bin/python scripts/calibrate_analyze.py [--matrices 1000] [--tasks 12] [--reps 4]

See SPEC.md "## analyze" (Calibration) for the generative model and what "true Δ" means here.
"""

from __future__ import annotations

import argparse
import sys
import time

from gatebench.analyze import calibrate, synth


def line(name: str, t: calibrate.Tally, note: str = "") -> str:
    return f"  {name:<40} coverage {100 * t.coverage:5.1f}%  (n={t.total}, mean width {100 * t.mean_width:5.1f} pt){note}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matrices", type=int, default=1000, help="simulated matrices per experiment (>= 200)")
    ap.add_argument("--tasks", type=int, default=12)
    ap.add_argument("--reps", type=int, default=4, help="runs per task and config (even, for the efficiency split)")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.matrices < 200:
        ap.error("--matrices must be at least 200 for a coverage claim")
    pop, base, gated = calibrate.POPULATION, calibrate.BASELINE, calibrate.GATED
    kw = {"tasks": args.tasks, "reps": args.reps, "matrices": args.matrices, "seed": args.seed,
          "resamples": args.resamples}
    t0 = time.monotonic()
    print(f"population: task logit difficulty ~ N({pop.mu}, {pop.sigma}); {args.tasks} tasks drawn afresh per "
          f"matrix, {args.reps} reps per task and config; {args.matrices} matrices; {args.resamples} resamples")
    truth = synth.true_delta(gated, base, pop)
    print(f"true Δ ({gated.name} - {base.name}, population expectation) = {100 * truth:+.2f} pt; "
          f"true solve rate {gated.name} = {100 * synth.true_solve_rate(gated, pop):.2f}%, "
          f"{base.name} = {100 * synth.true_solve_rate(base, pop):.2f}%")

    print("\n[1] Δ against the baseline, and the gated config's solve rate")
    r = calibrate.coverage_delta(gated, base, pop, **kw)
    print(line("Δ, cluster bootstrap (analyze)", r["bootstrap"]))
    print(line("Δ, same CI vs the drawn tasks' Δ", r["bootstrap_fixed_tasks"], "  (fixed-task estimand: conservative)"))
    print(line("Δ, naive paired (runs iid)", r["naive_paired"]))
    print(line("Δ, naive unpaired (two proportions)", r["naive_unpaired"]))
    print(line("solve rate, clustered Wilson (analyze)", r["rate"]))
    print(line("solve rate, naive Wilson (runs iid)", r["rate_naive"]))

    print("\n[2] A/A: the same config under two names (true Δ = 0)")
    aa = calibrate.coverage_delta(calibrate.aa_config(gated, "A2"), calibrate.aa_config(gated, "A1"), pop,
                                  **{**kw, "seed": args.seed + 7})
    print(line("A/A Δ, cluster bootstrap (analyze)", aa["bootstrap"]))
    print(line("A/A Δ, naive paired (runs iid)", aa["naive_paired"]))
    print(line("A/A Δ, naive unpaired", aa["naive_unpaired"]))

    print(f"\n[3] Efficiency at equal runs ({args.tasks * args.reps} per design): within-run counterfactual "
          f"({args.reps} gated runs per task) vs two arms ({args.reps // 2} + {args.reps // 2} per task)")
    e = calibrate.efficiency(gated, base, pop, **kw)
    n = args.tasks * args.reps
    w, u, p = e["within_run"], e["two_arm_unpaired"], e["two_arm_paired"]
    for name, t in (("within-run Δ (analyze)", w), ("two-arm Δ, paired by task (analyze)", p),
                    ("two-arm Δ, unpaired", u)):
        print(line(name, t, f"  -> {calibrate.runs_for_half_width(n, t.mean_width)} runs for ±5 pt"))
    print(f"  width ratio within-run / two-arm unpaired = {w.mean_width / u.mean_width:.2f}; "
          f"/ two-arm paired by task = {w.mean_width / p.mean_width:.2f}")
    print(line("validity check (first-stop - baseline)", e["validity"], "  (covers 0)"))
    print("  runs for ±5 pt: the suite grown in tasks at the same reps per task (half-width ~ 1/sqrt(runs))")

    plan_n = max(200, args.matrices // 5)
    print(f"\n[4] The planner ('what it would take', target ±5 pt), followed in simulation: {plan_n} pilots of "
          f"{args.tasks} tasks x {args.reps} reps, grown with fresh tasks; achieved half-width / target")
    plans_ok = True
    for comp in ("between", "within"):
        for name, fn in (("next steps, analyzing again after each", calibrate.follow_steps),
                         ("one go, 80%-sure plan", calibrate.follow_plans)):
            pc = fn(gated, base, pop, args.tasks, args.reps, plan_n, args.seed + 11, comp)
            tasks_med = sorted(pc.planned_tasks)[len(pc.planned_tasks) // 2] if pc.planned_tasks else 0
            print(f"  {comp:<8} {name:<40} within ±20%: {100 * pc.within_20:5.1f}%  at most +20%: "
                  f"{100 * pc.reached:5.1f}%  (median tasks run {tasks_med}, no plan {pc.no_plan})")
            if fn is calibrate.follow_steps:
                plans_ok = plans_ok and pc.within_20 >= 0.8
    print(f"\n{time.monotonic() - t0:.0f} s")

    ok = all(0.93 <= t.coverage <= 0.97 for t in (r["bootstrap"], aa["bootstrap"]))
    ok = ok and w.mean_width <= 0.5 * u.mean_width and plans_ok
    print("calibration: " + ("ok" if ok else "OUT OF BAND (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
