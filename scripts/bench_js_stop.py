"""What the installed gate costs on a JavaScript project, measured side by side in one run.

    .venv/bin/python scripts/bench_js_stop.py [--reps N] [--runner jest|vitest|mocha ...] [--mb 200]

1. A stop where nothing was weakened (the fix plus a regression test added) against the project's test
   command alone, for each runner (Jest behind `npm test`, Vitest behind `npm run`, mocha): cold hook
   processes exactly as Claude Code runs them, alternated with plain runs of the command; medians and
   the ratio stop/command. The runners are the ones tests/test_installed_js_runners.py installs into
   .cache/npm/ (run that test once first, or have npm reach the registry).
2. `gatebench install` on a repo with a `node_modules` of MB megabytes (20,000 files), against the same
   repo without one: the ratio shows what the snapshot pays for it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def project(work: Path, runner: str) -> tuple[Path, dict]:
    import test_installed_js_runners as js  # the same project and runners as the real-CLI test

    repo, body = js.project(work, runner)
    rel = js.FILES[runner][0]
    (repo / "index.js").write_text(js.LIB.replace(js.BUGGY, js.FIXED))
    (repo / rel).write_text(body.removesuffix("});\n") + (
        "  it('formats zero', () => {\n    assert.strictEqual(format(0), '0B');\n  });\n});\n"))
    settings = json.loads((repo / ".claude/settings.local.json").read_text())
    return repo, {"hook": settings["hooks"]["Stop"][0]["hooks"][0]["command"], "command": js.COMMANDS[runner]}


def timed(argv: list[str], repo: Path, stdin: str = "") -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, input=stdin, text=True, capture_output=True, cwd=repo)
    return time.perf_counter() - t0


def stop_vs_command(work: Path, runner: str, reps: int) -> None:
    repo, spec = project(work / runner, runner)
    stops, plain = [], []
    for i in range(reps):
        stdin = json.dumps({"session_id": f"s{i}", "prompt_id": f"p{i}", "cwd": str(repo), "hook_event_name": "Stop",
                            "stop_hook_active": False, "last_assistant_message": "Done."})
        stops.append(timed(["sh", "-c", spec["hook"]], repo, stdin))
        plain.append(timed(["sh", "-c", spec["command"]], repo))
    s, p = statistics.median(stops), statistics.median(plain)
    print(f"{runner:7} `{spec['command']}` {p * 1000:7.0f} ms   stop {s * 1000:7.0f} ms   stop/command {s / p:.2f}x")


def install_with_modules(work: Path, mb: int) -> None:
    from conftest import BUGGY, TEST, write_tree

    times = {}
    for name, modules in (("without node_modules", 0), (f"with {mb} MB node_modules", mb)):
        repo = work / name.replace(" ", "-")
        write_tree(repo, {"calc.py": BUGGY, "tests/test_calc.py": TEST})
        chunk = os.urandom(mb * 1024 * 1024 // 20000) if modules else b""
        for k in range(20000 if modules else 0):
            p = repo / "node_modules" / f"pkg{k // 100}" / "lib" / f"f{k}.js"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(chunk)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = dict(os.environ, XDG_STATE_HOME=str(work / "state"))
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "gatebench", "install", str(repo), "--config", "tests",
                            "--no-test-run"], capture_output=True, text=True, env=env, cwd=ROOT)
        times[name] = time.perf_counter() - t0
        files = next((ln.strip() for ln in r.stdout.splitlines() if "baseline of" in ln), r.stderr[-200:])
        print(f"install {name:28} {times[name]:6.2f} s   {files}")
    a, b = times.values()
    print(f"install with/without node_modules {b / a:.2f}x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--runner", action="append", choices=("jest", "vitest", "mocha"))
    ap.add_argument("--mb", type=int, default=200)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gatebench-bench-js-"))
    os.environ["XDG_STATE_HOME"] = str(work / "state")
    try:
        print(f"load average {os.getloadavg()[0]:.1f}; {args.reps} cold stops per runner, alternated with the command")
        for runner in args.runner or ["jest", "vitest", "mocha"]:
            stop_vs_command(work, runner, args.reps)
        install_with_modules(work, args.mb)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
