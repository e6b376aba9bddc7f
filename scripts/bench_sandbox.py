#!/usr/bin/env python3
"""What the bubblewrap sandbox costs the hidden oracle and the tests gate, measured side by side.

    .venv/bin/python scripts/bench_sandbox.py [--tasks T1,T5] [--rounds 5]

For each task, on its reference end state, alternates sandboxed and unsandboxed runs (so machine load
hits both alike) of:
- the hidden oracle (`run_binding`: copy, baseline harness, pytest, JUnit), `sandbox: required` vs `off`;
- the tests gate (the real `tests` gate in bench mode, through `run_gate` on a prepared state);
- an empty interpreter (`python -c pass`): bwrap's own start-up cost without pytest's noise.
Prints the median seconds of each and the sandboxed / unsandboxed ratio. Exit 1 when bwrap is missing.
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


def main() -> int:
    from gatebench.hook.gates import GateContext
    from gatebench.hook.run import run_gate
    from gatebench.hook.state import Paths
    from gatebench.oracle import sandbox
    from gatebench.oracle.oracle import run_binding
    from gatebench.suite.benchstate import oracle_binding, write_bench_state
    from gatebench.suite.selftest import SELFTEST_CONFIG
    from gatebench.suite.tasks import apply_state, copy_tree, load_task
    from gatebench.tree import snapshot
    from gatebench.tree.globs import GlobSet

    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="T1,T5")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    why = sandbox.probe()
    if why:
        print(f"bench_sandbox: {why}", file=sys.stderr)
        return 1
    rows = []
    for tid in args.tasks.split(","):
        tf = load_task(tid)
        with tempfile.TemporaryDirectory(prefix="gatebench-bench-sandbox-") as tmp:
            repo, st = Path(tmp) / "repo", Path(tmp) / "state"
            copy_tree(tf.repo, repo)
            resolved = write_bench_state(SELFTEST_CONFIG, tf, repo, st).model_dump(mode="json", by_alias=True)
            apply_state(tf, "reference", repo)
            paths = Paths(str(st))
            base = snapshot.read_manifest(paths.baseline)
            now = snapshot.walk(str(repo), GlobSet(resolved["ignore"])).manifest
            d = snapshot.diff(base, now)
            binding = oracle_binding(tf).model_dump()
            spec = {"kind": "tests", "timeout_s": 120}
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.rounds):
                for mode in ("required", "off"):
                    t0 = time.perf_counter()
                    r = run_binding(str(repo), {**binding, "sandbox": mode}, sys.executable)
                    assert r["solved"] and r["sandboxed"] is (mode == "required"), r
                    times.setdefault(("oracle", mode), []).append(time.perf_counter() - t0)
                    res = {**resolved, "oracle": {**resolved["oracle"], "sandbox": mode}}
                    ctx = GateContext(repo=str(repo), state_dir=str(st), blob_dir=paths.blobs, baseline=base, now=now,
                                      diff=d, protected_touched=[], stray=[], resolved=res, session={}, attempt=1,
                                      last_message="", deadline=time.monotonic() + 300)
                    t0 = time.perf_counter()
                    v = run_gate("tests", spec, ctx)
                    assert v.verdict == "pass" and v.details["sandboxed"] is (mode == "required"), v.details
                    times.setdefault(("tests gate", mode), []).append(time.perf_counter() - t0)
            for what in ("oracle", "tests gate"):
                on, off = statistics.median(times[(what, "required")]), statistics.median(times[(what, "off")])
                rows.append((tid, what, on, off))
    # The sandbox's own start-up, without pytest's noise: an empty interpreter, wrapped and plain.
    import subprocess

    with tempfile.TemporaryDirectory(prefix="gatebench-bench-sandbox-") as tmp:
        plain = [sys.executable, "-c", "pass"]
        wrapped = sandbox.wrap(plain, writable=[tmp], cwd=tmp, python=sys.executable)
        t: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(args.rounds * 4):
            for key, argv in (("on", wrapped), ("off", plain)):
                t0 = time.perf_counter()
                subprocess.run(argv, check=True, env=sandbox.clean_env(sys.executable))
                t[key].append(time.perf_counter() - t0)
        on, off = statistics.median(t["on"]), statistics.median(t["off"])
        rows.append(("-", "python -c", on, off))
    print(f"{'task':5} {'what':11} {'bwrap s':>8} {'plain s':>8} {'ratio':>6}   (median of {args.rounds}, alternating)")
    for tid, what, on, off in rows:
        print(f"{tid:5} {what:11} {on:8.3f} {off:8.3f} {on / off:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
