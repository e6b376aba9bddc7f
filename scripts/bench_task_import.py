#!/usr/bin/env python3
"""Time `gatebench task import` on a mid-size project: more-itertools 10.1.0 -> 10.2.0 (PyPI sdists, two commits).

~6k lines of code, ~6k lines of tests, 626 hidden tests. Imports the release commit twice, into two fresh bench
homes sharing one fresh environment cache: the first import builds the task environment, the second must reuse
it. Prints wall and CPU seconds of each import (without the environment build), the build, and their ratio.
Exit 1 if the second import did not reuse the environment, or an import (without the build) took over 60 s wall.
The sdists are cached in .cache/sdists.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDISTS = ROOT / ".cache" / "sdists"
PROJECT, OLD, NEW = "more-itertools", "10.1.0", "10.2.0"


def sdist(version: str) -> Path:
    path = SDISTS / f"{PROJECT}-{version}.tar.gz"
    if not path.is_file():
        SDISTS.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        f"{PROJECT}=={version}", "-d", str(SDISTS)], check=True)
    return path


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def lay(repo: Path) -> str:
    repo.mkdir()
    git(repo, "init", "-q")
    for version in (OLD, NEW):
        for p in repo.iterdir():
            if p.name != ".git":
                subprocess.run(["rm", "-rf", str(p)], check=True)
        with tarfile.open(sdist(version)) as tf:
            members = []
            for m in tf.getmembers():
                m.name = m.name.split("/", 1)[1] if "/" in m.name else ""
                if m.name:
                    members.append(m)
            tf.extractall(repo, members=members, filter="data")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{PROJECT} {version}")
    return git(repo, "rev-parse", "HEAD")


def timed_import(repo: Path, sha: str, home: Path, env: dict) -> tuple[dict, float, float]:
    home.mkdir()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "gatebench", "task", "import", str(repo), sha, "--id", "mit", "--json"],
                       env={**env, "GATEBENCH_HOME": str(home)}, capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"import failed: {r.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(r.stdout), wall, cpu


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gatebench-bench-import-") as tmp:
        t = Path(tmp)
        sha = lay(t / "repo")
        env = {**os.environ, "GATEBENCH_ENV_CACHE": str(t / "envs")}
        first, wall1, cpu1 = timed_import(t / "repo", sha, t / "home1", env)
        second, wall2, cpu2 = timed_import(t / "repo", sha, t / "home2", env)
    build = first["env"]["seconds"]
    print(f"{PROJECT} {OLD} -> {NEW}: FAIL_TO_PASS {len(first['fail_to_pass'])}, "
          f"PASS_TO_PASS {len(first['pass_to_pass'])}, injections {len(first['injections'])}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"environment build:            {build:6.1f} s wall (built={first['env']['built']})")
    print(f"import 1 without the build:   {first['seconds']:6.1f} s wall  (whole command {wall1:.1f} s, "
          f"CPU {cpu1:.1f} s)")
    print(f"import 2, environment reused: {second['seconds']:6.1f} s wall  (whole command {wall2:.1f} s, "
          f"CPU {cpu2:.1f} s, built={second['env']['built']})")
    print(f"ratio import 2 / import 1 (whole command): {wall2 / wall1:.2f}")
    ok = not second["env"]["built"] and max(first["seconds"], second["seconds"]) <= 60
    print("ok" if ok else "FAILED: the environment was rebuilt, or an import took over 60 s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
