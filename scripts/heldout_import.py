#!/usr/bin/env python3
"""Held-out check of `gatebench task import` on real repositories: import each commit of scripts/heldout.yaml
with default options, then `gatebench selftest` it; print one line per commit (imported, selftest, or the one
readable reason it did not) and the figures: imported, passing selftest, the rate (the issue's bar: 80%).

The repositories are read from local bare mirrors (`--mirror DIR`, default /work/.mirror/<owner>+<name>/repo,
as the search tool's fetch leaves them); each is cloned into a temp folder, nothing of it is committed. Task
environments are cached in the checkout's .cache/envs. Exit 0 when the rate is at least 80%, else 1.
    scripts/heldout_import.py [--mirror DIR] [--only OWNER/NAME ...] [--commits SHA ...] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def reason(text: str) -> str:
    """The first line of gatebench's own error, or the last line of output."""
    for line in text.splitlines():
        if line.startswith("gatebench: error:"):
            return line[len("gatebench: error:"):].strip()[:300]
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return (lines[-1] if lines else "no output")[:300]


def one(item: dict, mirror: Path, tmp: Path, n: int) -> dict:
    repo, commit = item["repo"], item["commit"]
    src = mirror / repo.replace("/", "+") / "repo"
    out = {"repo": repo, "commit": commit, "imported": False, "selftest": False, "why": "", "seconds": 0.0}
    if not src.is_dir():
        out["why"] = f"no mirror at {src} (fetch github:{repo} first)"
        return out
    t0 = time.monotonic()
    work, home = tmp / f"r{n}", tmp / f"h{n}"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(src), str(work)], check=True, capture_output=True)
    home.mkdir()
    shutil.copytree(ROOT / "configs", home / "configs")
    env = {**os.environ, "GATEBENCH_HOME": str(home), "GATEBENCH_ENV_CACHE": str(ROOT / ".cache" / "envs")}
    r = subprocess.run([PY, "-m", "gatebench", "task", "import", str(work), commit, "--id", "H", "--json"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=3600)
    if r.returncode != 0:
        out["why"] = f"import: {reason(r.stderr)}"
    else:
        res = json.loads(r.stdout)
        out.update(imported=True, fail_to_pass=len(res["fail_to_pass"]), pass_to_pass=len(res["pass_to_pass"]),
                   python=res["env"]["key"].split("-")[1], warnings=len(res["warnings"]), marked=bool(res["prompt_gaps"]))
        s = subprocess.run([PY, "-m", "gatebench", "selftest", "--tasks", "H"], capture_output=True, text=True, env=env,
                           cwd=ROOT, timeout=3600)
        if s.returncode == 0:
            out["selftest"] = True
        else:
            fails = [x.strip() for x in s.stdout.splitlines() if re.match(r"\s+H: ", x)]
            out["why"] = f"selftest: {fails[0][:300] if fails else reason(s.stderr or s.stdout)}" + \
                (f" (+{len(fails) - 1} more)" if len(fails) > 1 else "")
    out["seconds"] = round(time.monotonic() - t0, 1)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--only", nargs="+", metavar="OWNER/NAME")
    ap.add_argument("--commits", nargs="+", metavar="SHA", help="only these commits (a rerun of some)")
    ap.add_argument("--jobs", type=int, default=1, help="commits at a time (each import uses 2 cores)")
    args = ap.parse_args()
    items = yaml.safe_load((ROOT / "scripts" / "heldout.yaml").read_text())
    if args.only:
        items = [i for i in items if i["repo"] in args.only]
    if args.commits:
        items = [i for i in items if any(i["commit"].startswith(c) or c.startswith(i["commit"]) for c in args.commits)]
    with tempfile.TemporaryDirectory(prefix="gatebench-heldout-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(one, it, args.mirror, Path(tmp), n) for n, it in enumerate(items)]
        results = []
        for n, f in enumerate(futures, 1):
            res = f.result()
            results.append(res)
            state = "ok" if res["selftest"] else ("imported" if res["imported"] else "refused")
            extra = (f" F2P {res['fail_to_pass']} P2P {res['pass_to_pass']} {res['python']}"
                     if res["imported"] else "")
            print(f"[{n}/{len(items)}] {res['repo']}@{res['commit']}: {state}{extra} ({res['seconds']:.0f} s)"
                  + (f"\n      why: {res['why']}" if res["why"] else ""), flush=True)
    imported = sum(r["imported"] for r in results)
    passed = sum(r["selftest"] for r in results)
    projects = len({r["repo"] for r in results})
    rate = passed / len(results) if results else 0.0
    print(f"\nheld-out: {len(results)} commits of {projects} projects; imported with default options {imported}; "
          f"import and selftest passed {passed} ({rate:.0%}); the bar is 80%")
    print(f"wall {sum(r['seconds'] for r in results):.0f} s in all")
    return 0 if rate >= 0.8 else 1


if __name__ == "__main__":
    sys.exit(main())
