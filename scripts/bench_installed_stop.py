"""What an installed-mode stop costs on python-semver 3.0.2 (PyPI sdist), two gatebench trees side by side.

    .venv/bin/python scripts/bench_installed_stop.py [--old GATEBENCH_TREE] [--reps N]

Each tree gets its own copy of the project, installed with `--config tests` and the same test
command; the stop has the fix and a regression test added to an existing test file (the everyday
good case), plus, separately, a weakening (the failing test deleted). Cold hook processes exactly as
Claude Code runs them, alternated between the trees; medians and the ratio new/old are printed.
`--old` is a checkout or export of another gatebench (`git archive <commit> gatebench configs | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDIST = ROOT / ".cache" / "test-sdists" / "semver-3.0.2.tar.gz"
TESTS = "tests/test_subclass.py tests/test_compare.py"
BUGGY = "        elif not isinstance(other, cls):\n"
FIXED = "        elif not isinstance(other, Version):\n"
USER_TEST = ("\n\ndef test_compare_subclass_with_version():\n    class V(Version):\n        pass\n\n"
             "    assert V(1, 2, 3) == Version(1, 2, 3)\n")


def setup(tree: Path, work: Path, weakened: bool) -> tuple[Path, Path, dict]:
    with tarfile.open(SDIST) as tar:
        tar.extractall(work, filter="data")
    repo = work / "semver-3.0.2"
    if weakened:
        with open(repo / "tests/test_subclass.py", "a") as f:
            f.write(USER_TEST)
    env = dict(os.environ, PYTHONPATH=str(tree), XDG_STATE_HOME=str(work / "state"))
    cmd = f"{{python}} -m pytest -q -p no:cacheprovider -o addopts= {TESTS}"
    subprocess.run([sys.executable, "-m", "gatebench", "install", str(repo), "--config", "tests", "--test-command", cmd],
                   env=env, check=True, capture_output=True, cwd=tree)
    source = repo / "src/semver/version.py"
    if weakened:
        t = repo / "tests/test_subclass.py"
        t.write_text(t.read_text().replace(USER_TEST, "\n"))
    else:
        source.write_text(source.read_text().replace(BUGGY, FIXED))
        with open(repo / "tests/test_subclass.py", "a") as f:
            f.write(USER_TEST)
    settings = json.loads((repo / ".claude/settings.local.json").read_text())
    hook = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    return repo, Path(hook.split("--state ", 1)[1].strip("'")), {"hook": hook, "env": env}


def stop(repo: Path, spec: dict, n: int) -> float:
    stdin = json.dumps({"session_id": f"s{n}", "prompt_id": f"p{n}", "cwd": str(repo), "hook_event_name": "Stop",
                        "stop_hook_active": False, "last_assistant_message": "Done."})
    t0 = time.perf_counter()
    subprocess.run(["sh", "-c", spec["hook"]], input=stdin, text=True, capture_output=True, cwd=repo,
                   env=spec["env"], check=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the other gatebench tree (a folder holding gatebench/)")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    if not SDIST.exists():
        print(f"needs {SDIST} (tests/test_installed_semver.py downloads it)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="gatebench-bench-stop-"))
    try:
        print(f"load average {os.getloadavg()[0]:.1f}; {args.reps} cold stops per cell, alternated")
        for case, weakened in (("fix + regression test", False), ("failing test deleted", True)):
            cells = {}
            for name, tree in (("old", Path(args.old).resolve()), ("new", ROOT)):
                repo, _state, spec = setup(tree, tmp / f"{name}-{int(weakened)}", weakened)
                cells[name] = (repo, spec, [])
            for i in range(args.reps):
                for _name, (repo, spec, times) in cells.items():
                    times.append(stop(repo, spec, i))
            med = {k: statistics.median(v[2]) * 1000 for k, v in cells.items()}
            print(f"{case:24} old {med['old']:7.0f} ms   new {med['new']:7.0f} ms   new/old {med['new'] / med['old']:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
