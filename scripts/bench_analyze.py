#!/usr/bin/env python3
"""Benchmark `gatebench analyze` on a generated ledger (default 100,000 records).

Prints the time to merely parse the file (json.loads per line), the time of the whole
`gatebench analyze` command (a fresh process: imports, reading, checks, statistics, three reports),
and their ratio, as wall and CPU time. Exits 1 if analyze's wall time exceeds --limit seconds
(default 10).

    .venv/bin/python scripts/bench_analyze.py [--records 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gatebench.analyze import synth

CONFIGS = [
    synth.BASELINE,
    synth.GATED,
    synth.SynthConfig("tests", gates=(synth.GATED.gates[0],), fix_logit=0.0, budget=3),
    synth.SynthConfig("adv", gates=(synth.GATED.gates[1],), fix_logit=-0.5, harm=0.05, budget=2),
    synth.SynthConfig("self_check", gates=(synth.SynthGate("self_check", "self_check", 1.0, 1.0),),
                      fix_logit=-1.5, harm=0.02, budget=1),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds analyze may take (default 10)")
    ap.add_argument("--keep", type=Path, help="write the ledger and reports here and keep them")
    args = ap.parse_args(argv)
    reps = math.ceil(args.records / (len(CONFIGS) * args.tasks))
    root = args.keep or Path(tempfile.mkdtemp(prefix="gatebench-bench-"))
    try:
        run_dir = root / "run"
        t = time.perf_counter()
        m = synth.generate(CONFIGS, tasks=args.tasks, reps=reps, seed=11, infra_error=0.01)
        records = m.records[: args.records]
        synth.write_ledger(run_dir / "results.jsonl", records)
        size = (run_dir / "results.jsonl").stat().st_size
        print(f"ledger: {len(records):,} records, {size / 1e6:.1f} MB, {len(CONFIGS)} configs x {args.tasks} tasks "
              f"x {reps} reps (generated in {time.perf_counter() - t:.1f} s)")

        t, c = time.perf_counter(), time.process_time()
        with open(run_dir / "results.jsonl", encoding="utf-8") as f:
            parsed = [json.loads(line) for line in f]
        parse_s, parse_cpu = time.perf_counter() - t, time.process_time() - c
        del parsed
        print(f"parse only (json.loads per line):   {parse_s:6.2f} s wall, {parse_cpu:6.2f} s CPU")

        cmd = [sys.executable, "-m", "gatebench", "analyze", str(run_dir), "--out", str(root / "analysis")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        total_s = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            print(proc.stdout + proc.stderr, file=sys.stderr)
            print(f"bench: gatebench analyze exited {proc.returncode}", file=sys.stderr)
            return 1
        # Wall time is what the user waits for; CPU time shows what it would be on an idle machine
        # (this one is shared, and other jobs stretch the wall clock of both measurements alike).
        print(f"gatebench analyze (whole command):  {total_s:6.2f} s wall, {cpu:6.2f} s CPU  "
              f"= {total_s / parse_s:.1f} x parsing (wall), {cpu / parse_cpu:.1f} x (CPU)")
        print(proc.stdout.rstrip())
        ok = total_s <= args.limit
        print(f"bench: {'ok' if ok else 'TOO SLOW'} ({total_s:.2f} s, limit {args.limit:.0f} s)")
        return 0 if ok else 1
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
