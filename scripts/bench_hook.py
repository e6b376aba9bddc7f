#!/usr/bin/env python3
"""The Stop hook's own cost at repository scale, side by side with `git status --porcelain`.

For each size (default 10,000 and 100,000 files) it generates the same tree twice, once as a git
work tree with one commit (the hook snapshots through git: gatebench/tree/gitsnap.py) and once as a
plain folder (the walker: gatebench/tree/snapshot.py), installs the no-gate config `none` in both,
changes one file, then times:
  - install (the baseline),
  - the cold stop: the first stop after install (the walker's stat cache is empty),
  - warm stops: cold *processes*, exactly the command Claude Code runs, alternated with
    `git status --porcelain` in the git twin and a bare `python -S -c pass` (the same interpreter),
    median of --rounds.
Wall time and CPU time (user + sys of the process and its children) are both reported: the machine
is shared, and CPU time is what other jobs disturb least. Only ratios measured in one run mean much.

The floor is what no Python hook can beat: a bare `python -S` start plus `git status --porcelain`
(medians, measured in the same rounds). Goal (issue 35): the no-gate stop in a git repo within 1.2x
of the floor at 10,000 files and at or under 1.5x at 100,000 (wall, median).
Also times `import` of the hook's modules against a bare interpreter start.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# gc.auto=0: a commit of 100k loose objects would start a background `git gc` in the twin repo, which
# loads the machine while the timings run (and races the clean-up).
GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false", "-c", "gc.auto=0",
       "-c", "maintenance.auto=false"]


def make_tree(root: Path, n_files: int) -> None:
    per_dir = 100
    root.mkdir(parents=True)
    for i in range(n_files):
        d = root / f"pkg{i // per_dir:04d}"
        if i % per_dir == 0:
            d.mkdir()
        (d / f"mod{i % per_dir:03d}.py").write_text(f"# file {i}\nVALUE = {i}\n" + "x = 1\n" * (i % 40))
    old = time.time() - 3600  # files as old as in a real checkout, not racily fresh
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            os.utime(os.path.join(dirpath, f), (old, old))


def timed(argv: list[str], cwd: Path, stdin: str | None = None) -> tuple[float, float]:
    """(wall, cpu) seconds of one process run to completion, its children included."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def install(repo: Path) -> tuple[list[str], str, Path, float]:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gatebench", "install", str(repo), "--config", "none"], check=True,
                   capture_output=True, cwd=ROOT)
    took = time.perf_counter() - t0
    changed = repo / "pkg0000" / "mod000.py"
    changed.write_text("changed = True\n")  # one real change to report
    os.utime(changed, (time.time() - 60, time.time() - 60))
    stdin = json.dumps({"session_id": "bench", "cwd": str(repo), "prompt_id": "p", "stop_hook_active": False})
    settings = json.loads((repo / ".claude" / "settings.local.json").read_text())
    hook = ["sh", "-c", settings["hooks"]["Stop"][0]["hooks"][0]["command"]]  # exactly what Claude Code runs
    from gatebench.hook.state import default_state_dir

    return hook, stdin, Path(default_state_dir(str(repo))), took


def last_event(state: Path) -> dict:
    return json.loads((state / "events.jsonl").read_text().splitlines()[-1])


def med(xs: list[float]) -> float:
    return statistics.median(xs) * 1000


def bench_size(tmp: Path, n: int, rounds: int) -> dict:
    gitrepo, plain = tmp / f"git{n}", tmp / f"plain{n}"
    make_tree(gitrepo, n)
    shutil.copytree(gitrepo, plain, symlinks=True)
    subprocess.run([*GIT, "init", "-q"], cwd=gitrepo, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=gitrepo, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=gitrepo, check=True)
    out: dict = {"files": n}
    runs = {}
    for name, repo in (("git", gitrepo), ("walk", plain)):
        hook, stdin, state, took = install(repo)
        cold = timed(hook, repo, stdin)
        ev = last_event(state)
        assert ev["snapshot"]["via"] == name and ev["diff"]["changed"] == ["pkg0000/mod000.py"], ev
        runs[name] = (hook, stdin, state)
        out[name] = {"install_s": took, "cold": cold, "warm": ([], [])}
    status = ["git", "status", "--porcelain"]
    bare = [sys.executable, "-S", "-c", "pass"]
    timed(status, gitrepo)
    base: dict = {"status": ([], []), "python": ([], [])}
    for _ in range(rounds):
        for name, (hook, stdin, _state) in runs.items():
            w, c = timed(hook, gitrepo if name == "git" else plain, stdin)
            out[name]["warm"][0].append(w)
            out[name]["warm"][1].append(c)
        for key, argv in (("status", status), ("python", bare)):
            w, c = timed(argv, gitrepo)
            base[key][0].append(w)
            base[key][1].append(c)
    for _hook, _stdin, state in runs.values():
        ev = last_event(state)
        assert ev["diff"]["changed"] == ["pkg0000/mod000.py"] and ev["snapshot"]["hashed"] == 0, ev
    out.update(base)
    return out


GOAL = {10_000: 1.2, 100_000: 1.5}  # x the floor, wall (issue 35); other sizes are held to 1.5x


def report(r: dict) -> bool:
    """Print one size's table; True if the git stop met the goal (wall, median, against the floor)."""
    sw, sc = med(r["status"][0]), med(r["status"][1])
    pw, pc = med(r["python"][0]), med(r["python"][1])
    fw, fc = sw + pw, sc + pc
    print(f"--- {r['files']:,} files   (load average now {os.getloadavg()[0]:.2f})")
    print(f"{'':34} {'wall ms':>9} {'cpu ms':>9} {'x status':>9} {'x floor':>8} {'x floor cpu':>12}")
    print(f"{'git status --porcelain (median)':34} {sw:9.1f} {sc:9.1f}")
    print(f"{'python -S -c pass (median)':34} {pw:9.1f} {pc:9.1f}")
    print(f"{'floor: python -S + git status':34} {fw:9.1f} {fc:9.1f} {fw / sw:8.2f}x")
    ok = True
    for name in ("git", "walk"):
        x = r[name]
        hw, hc = med(x["warm"][0]), med(x["warm"][1])
        cw, cc = x["cold"][0] * 1000, x["cold"][1] * 1000
        print(f"{'hook ' + name + ', install (baseline)':34} {x['install_s'] * 1000:9.0f}")
        for label, w, c in (("cold (first stop)", cw, cc), ("warm (median)", hw, hc)):
            print(f"{'hook ' + name + ', ' + label:34} {w:9.1f} {c:9.1f} {w / sw:8.2f}x {w / fw:7.2f}x "
                  f"{c / fc:11.2f}x")
        if name == "git":
            goal = GOAL.get(r["files"], 1.5)
            ok = hw / fw <= goal
            print(f"goal at {r['files']:,} files: warm git stop <= {goal}x the floor (wall):",
                  "met" if ok else "NOT met")
    sys.stdout.flush()
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    py = sys.executable
    ok = True
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores here; other work skews both sides)")
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-hook-") as tmp:
        for n in args.sizes:
            ok = report(bench_size(Path(tmp), n, args.rounds)) and ok
            for d in Path(tmp).iterdir():  # printed first: deleting 100k files can take minutes
                shutil.rmtree(d, ignore_errors=True)
    bare, imp = ([], []), ([], [])
    for _ in range(args.rounds):
        for acc, code in ((bare, "pass"), (imp, "import gatebench.hook.__main__, gatebench.hook.run, "
                                               "gatebench.tree.gitsnap")):
            w, c = timed([py, "-S", "-c", code], ROOT)
            acc[0].append(w)
            acc[1].append(c)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    print(f"import of the hook's modules: {med(imp[0]) - med(bare[0]):.1f} ms wall, "
          f"{med(imp[1]) - med(bare[1]):.1f} ms cpu (interpreter start subtracted: "
          f"{med(bare[0]):.1f} ms wall, {med(bare[1]):.1f} ms cpu)")
    print("goal (warm git stop <= 1.2x the floor at 10k, <= 1.5x at 100k, wall):", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
