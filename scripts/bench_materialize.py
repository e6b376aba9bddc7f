"""Materialize time, old path vs new, side by side in one run: the same recipes, each path in a fresh bench home
(a fresh environment cache) with the package caches warm (the sdists cached; pip's and uv's caches as earlier
runs left them: `--warm` first lays the recipes once with each path into a throwaway home).

  old: pip builds every environment (`$GATEBENCH_ENV_BUILDER=pip`: venv + `pip install`, the project built from
       the base's copy), one task at a time (`--jobs 1`)
  new: uv (pip's fallback when uv is missing), the project's release wheel where PyPI has one, `--jobs 2`

  .venv/bin/python scripts/bench_materialize.py [--warm] [--jobs N] [ID ...]   (default R1 R2 R20 R21 R32)

Prints each path's wall seconds and the ratio; exits 1 when the new path is not faster.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["R1", "R2", "R20", "R21", "R32"]


def lay(ids: list[str], builder: str, jobs: int, tmp: Path, name: str) -> float:
    home = tmp / name
    shutil.copytree(ROOT / "configs", home / "configs")
    env = {k: v for k, v in os.environ.items() if k not in ("GATEBENCH_ENV_CACHE", "GATEBENCH_HOME")}
    env["GATEBENCH_ENV_BUILDER"] = builder
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "gatebench", "task", "materialize", *ids, "--home", str(home),
                        "--jobs", str(jobs)], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"{name} ({builder}, --jobs {jobs}) failed (exit {r.returncode}):\n{r.stderr[-2000:]}")
    shutil.rmtree(home, ignore_errors=True)
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ids", nargs="*", default=DEFAULT, metavar="ID")
    ap.add_argument("--jobs", type=int, default=2, help="the new path's --jobs (default 2)")
    ap.add_argument("--warm", action="store_true", help="lay the recipes once with each path first (caches)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-materialize-", dir=ROOT / ".cache"
                                     if (ROOT / ".cache").is_dir() else None) as t:
        tmp = Path(t)
        if a.warm:
            lay(a.ids, "pip", 1, tmp, "warm-pip")
            lay(a.ids, "uv", a.jobs, tmp, "warm-uv")
        old = lay(a.ids, "pip", 1, tmp, "old")
        new = lay(a.ids, "uv", a.jobs, tmp, "new")
    load = os.getloadavg()[0]
    print(f"materialize {len(a.ids)} recipes ({' '.join(a.ids)}) from a fresh bench home, warm package caches, "
          f"load average {load:.1f}:")
    print(f"  old (pip, source builds, --jobs 1): {old:7.1f} s")
    print(f"  new (uv, release wheels, --jobs {a.jobs}): {new:7.1f} s")
    print(f"  ratio old/new: {old / new:.2f}x")
    return 0 if new < old else 1


if __name__ == "__main__":
    sys.exit(main())
