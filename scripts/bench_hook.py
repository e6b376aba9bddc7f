#!/usr/bin/env python3
"""The Stop hook's own cost on a large repo, side by side with `git status --porcelain`.

Generates a 10,000-file repo, installs gatebench with the no-gate config `none`, warms the stat
cache once, then times cold hook processes and `git status --porcelain` interleaved on the same
tree (this machine is shared and noisy: only ratios measured in one run mean anything).
Also times `import gatebench.hook` against a bare interpreter start.

Goal (issue 2): hook <= 1.5x git status with a warm stat cache; import <= 30 ms.
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


def make_repo(root: Path, n_files: int) -> None:
    per_dir = 100
    for i in range(n_files):
        d = root / f"pkg{i // per_dir:03d}"
        d.mkdir(exist_ok=True)
        (d / f"mod{i % per_dir:03d}.py").write_text(f"# file {i}\nVALUE = {i}\n" + "x = 1\n" * (i % 40))
    old = time.time() - 3600  # files as old as in a real checkout, not racily fresh
    for p in root.rglob("*.py"):
        os.utime(p, (old, old))
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)


def timed(argv: list[str], cwd: Path, stdin: str | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-hook-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        t0 = time.perf_counter()
        make_repo(repo, args.files)
        print(f"generated {args.files} files in {time.perf_counter() - t0:.1f} s")
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")  # the per-user state dir, kept in tmp
        subprocess.run([py, "-m", "gatebench", "install", str(repo), "--config", "none"], check=True,
                       capture_output=True)
        changed = repo / "pkg000" / "mod000.py"
        changed.write_text("changed = True\n")  # one real change to report
        os.utime(changed, (time.time() - 60, time.time() - 60))  # not racily fresh: the cache may trust it
        from gatebench.hook.state import default_state_dir

        state = Path(default_state_dir(str(repo)))
        stdin = json.dumps({"session_id": "bench", "cwd": str(repo), "prompt_id": "p", "stop_hook_active": False})
        settings = json.loads((repo / ".claude" / "settings.local.json").read_text())
        hook = ["sh", "-c", settings["hooks"]["Stop"][0]["hooks"][0]["command"]]  # exactly what Claude Code runs
        cold_cache = timed(hook, repo, stdin)  # fills the stat cache: every file hashed once
        git = ["git", "status", "--porcelain"]
        timed(git, repo)
        hook_t, git_t = [], []
        for _ in range(args.rounds):
            hook_t.append(timed(hook, repo, stdin))
            git_t.append(timed(git, repo))
        last = json.loads((state / "events.jsonl").read_text().splitlines()[-1])
        assert last["diff"]["changed"] == ["pkg000/mod000.py"], last["diff"]
        assert last["snapshot"]["hashed"] == 0, last["snapshot"]
        bare_t, imp_t = [], []
        for _ in range(args.rounds):
            bare_t.append(timed([py, "-S", "-c", "pass"], repo))
            imp_t.append(timed([py, "-S", "-c", "import gatebench.hook.__main__, gatebench.hook.run"], ROOT))
    load = os.getloadavg()[0]
    h, g = statistics.median(hook_t), statistics.median(git_t)
    imp = statistics.median(imp_t) - statistics.median(bare_t)
    print(f"hook, cold stat cache (first run): {cold_cache * 1000:7.1f} ms")
    print(f"hook, warm stat cache (median):    {h * 1000:7.1f} ms   (a cold process, {args.rounds} rounds)")
    print(f"git status --porcelain (median):   {g * 1000:7.1f} ms")
    print(f"ratio hook / git status:           {h / g:7.2f}x   (goal <= 1.5x)")
    print(f"load average during the run:      {load:7.2f}   (2 cores; other work on the machine skews both sides)")
    print(f"import gatebench.hook:             {imp * 1000:7.1f} ms   (goal <= 30 ms; interpreter start subtracted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
