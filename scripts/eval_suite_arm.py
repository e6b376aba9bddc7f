"""A `claude plugin eval` suite imported and run with a real plugin as an arm against its ablation, offline: the
per-grader table analyze gives (SPEC.md section 18, "Importing a suite").

    .venv/bin/python scripts/eval_suite_arm.py (--plugin DIR | --tdd-guard) [--suite tests/evalsuites/kata/evals]
        [--references DIR] [--plugin-calls approve,unscorable] [--reps 1] [--jobs 2] [--keep DIR]

`--tdd-guard` installs TDD Guard 1.7.0 from npm into the temp folder (never into the checkout) and wraps it as a
plugin (its PreToolUse hook on Write|Edit|MultiEdit|TodoWrite, node_modules inside). `--suite
tests/evalsuites/arith/evals --references tests/evalsuites/arith_reference`: five cases, enough for intervals. Per plugin-call policy (how
the sim answers the plugin's own model calls, SPEC section 14): a temp bench home, `task import-eval`, one sim
matrix (`--configs none --arm NAME=PLUGIN`), `analyze`; it prints each cell's graders and the scores table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TDD_GUARD = "tdd-guard@1.7.0"
HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Write|Edit|MultiEdit|TodoWrite", "hooks": [
    {"type": "command", "command": "node ${CLAUDE_PLUGIN_ROOT}/node_modules/tdd-guard/dist/cli/tdd-guard.js"}]}]}}
POLICY = """name: eval-{calls}
description: writes the reference with Edit after reading it and runs the visible tests; plugin calls {calls}
first: {{reference: 1.0, inject: {{}}}}
after_block: {{fix: 1.0, repeat: 0.0, other: 0.0}}
run_tests: 1.0
edit: 1.0
plugin_calls: {calls}
"""


def tdd_guard(root: Path) -> Path:
    plugin = root / "tdd-guard"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "tdd-guard", "version": "1.7.0"}')
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(HOOKS))
    subprocess.run(["npm", "install", "--prefix", str(plugin), "--no-audit", "--no-fund", TDD_GUARD], check=True,
                   capture_output=True, text=True, timeout=600)
    return plugin


def gb(*args: str, home: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "gatebench", *args], capture_output=True, text=True,
                       env={**os.environ, "GATEBENCH_HOME": str(home)}, timeout=3600)
    if r.returncode not in (0, 1):
        raise SystemExit(f"gatebench {args[0]} failed ({r.returncode}): {r.stderr[-2000:]}")
    return r


def one(a: argparse.Namespace, plugin: Path, calls: str, root: Path) -> None:
    home = root / f"home-{calls}"
    shutil.copytree(ROOT / "configs", home / "configs")
    (home / "configs" / "sim" / f"eval-{calls}.yaml").write_text(POLICY.format(calls=calls))
    refs = [x for d in sorted(a.references.iterdir()) if d.is_dir() for x in ("--reference", f"{d.name}={d}")]
    out = json.loads(gb("task", "import-eval", str(a.suite), "--scaffold", "--json", *refs, home=home).stdout)
    ids = [t["id"] for t in out["tasks"]]
    runs = root / f"runs-{calls}"
    gb("matrix", "--worker", "sim", "--policy", f"eval-{calls}", "--configs", "none", "--arm", f"{a.name}={plugin}",
       "--tasks", ",".join(ids), "--reps", str(a.reps), "--jobs", str(a.jobs), "--runs-dir", str(runs), "--run-id",
       "e", home=home)
    print(f"== plugin calls: {calls}")
    for line in (runs / "e" / "results.jsonl").read_text().splitlines():
        d = json.loads(line)
        e = d.get("eval") or {}
        gs = " ".join(f"{g['name']}={'-' if g['passed'] is None else int(g['passed'])}" for g in e.get("graders", []))
        print(f"{d['cell_id']}: {d['status']} solved={d['solved']} score={e.get('score')} denials="
              f"{d['pretool_denials']} plugin_errors={d['pretool_plugin_errors']} | {gs}")
    gb("analyze", str(runs / "e"), "--baseline", "none", "--out", str(root / f"analysis-{calls}"), home=home)
    md = (root / f"analysis-{calls}" / "summary.md").read_text()
    start = md.find("## plugin-eval scores")
    print(md[start:md.find("\n## ", start + 1)].strip() if start >= 0 else "(no scores table)", flush=True)


def main() -> int:
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--plugin", type=Path)
    g.add_argument("--tdd-guard", action="store_true", help=f"install {TDD_GUARD} from npm into the temp folder")
    p.add_argument("--name", default="plugin")
    p.add_argument("--suite", type=Path, default=ROOT / "tests" / "evalsuites" / "kata" / "evals")
    p.add_argument("--references", type=Path, default=ROOT / "tests" / "evalsuites" / "kata_reference",
                   help="a folder of CASE/ folders: each case's known-good end state, for the sim worker")
    p.add_argument("--plugin-calls", default="approve,unscorable")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", type=Path)
    a = p.parse_args()
    root = Path(tempfile.mkdtemp(prefix="eval-arm-", dir=a.keep))
    try:
        plugin = tdd_guard(root) if a.tdd_guard else a.plugin.resolve()
        a.name = "tdd-guard" if a.tdd_guard and a.name == "plugin" else a.name
        for calls in a.plugin_calls.split(","):
            one(a, plugin, calls, root)
    finally:
        if a.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
