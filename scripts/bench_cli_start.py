#!/usr/bin/env python3
"""Start-up cost of the CLI: `gatebench --help` and `gatebench analyze --help` against a bare interpreter.

Each run is a fresh process (cold interpreter, warm page cache); prints medians and their ratio to the
bare interpreter, measured side by side in one run, and which heavy modules `--help` imported.
Usage: scripts/bench_cli_start.py [N]   (default N=21)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

HEAVY = ("pydantic", "yaml", "gatebench.sim", "gatebench.cell", "gatebench.matrix",
         "gatebench.suite", "gatebench.audit", "gatebench.plugineval", "gatebench.analyze", "gatebench.installer")


def wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    py = sys.executable
    cases = {
        "python -c pass": [py, "-c", "pass"],
        "gatebench --help": [py, "-m", "gatebench", "--help"],
        "gatebench analyze --help": [py, "-m", "gatebench", "analyze", "--help"],
    }
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(n):  # interleaved, so machine load hits every case alike
        for k, argv in cases.items():
            times[k].append(wall(argv))
    base = statistics.median(times["python -c pass"])
    for k, ts in times.items():
        m = statistics.median(ts)
        print(f"{k:28s} median {m * 1000:7.1f} ms  ({m / base:4.1f}x bare)  n={n}")
    # sys.modules after --help (importtime omits modules loaded through importlib.import_module)
    probe = ("import sys, gatebench.cli as c\ntry:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print('\\n'.join(sys.modules), file=sys.stderr)")
    r = subprocess.run([py, "-c", probe], capture_output=True, text=True, check=True)
    mods = r.stderr.split()
    heavy = sorted(m for m in mods if m.startswith(HEAVY))
    print(f"modules loaded by --help: {len(mods)}; gatebench: {sum(m.startswith('gatebench') for m in mods)}; "
          f"heavy: {', '.join(heavy) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
