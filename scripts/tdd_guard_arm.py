"""TDD Guard (or any PreToolUse plugin that calls a model) as a plugin arm of one sim cell, offline, per plugin-call
policy: what its decisions were (denials, plugin_error), what its own model calls got, whether its state files
reached the agent's final diff. SPEC.md section 16, "Plugin errors".

    .venv/bin/python scripts/tdd_guard_arm.py PLUGIN_DIR [--task T1] [--policies approve,unscorable] [--keep DIR]

PLUGIN_DIR: a plugin folder, e.g. one around `npm install tdd-guard@1.7.0` (its node_modules inside):
.claude-plugin/plugin.json {"name": "tdd-guard"} and hooks/hooks.json running
`node ${CLAUDE_PLUGIN_ROOT}/node_modules/tdd-guard/dist/cli/tdd-guard.js` on PreToolUse Write|Edit|MultiEdit|TodoWrite.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from gatebench.cell import arms
from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize
from gatebench.cell.prep import prep
from gatebench.cell.workers import WorkerOptions, run_worker


def one(plugin: Path, task: str, policy: str, root: Path) -> dict:
    pol = root / f"{policy}.yaml"
    pol.write_text(f"name: tdd-{policy}\nfirst: {{reference: 1, inject: {{}}}}\nrun_tests: 0\nplugin_calls: {policy}\n")
    cell = CellPaths(root / f"cell-{policy}")
    meta = prep(task, "none", cell.root, arm=arms.Arm("tdd-guard", plugin.resolve()))
    run_worker("sim", cell, WorkerOptions(policy=str(pol), timeout_s=600, max_turns=30, sealed=True))
    rec = finalize(cell)
    worker = json.loads(cell.worker.read_text())
    diff = (cell.root / "final.diff").read_text() if (cell.root / "final.diff").is_file() else ""
    state = sorted(str(p.relative_to(cell.repo)) for p in (cell.repo / ".claude" / "tdd-guard").rglob("*")
                   if p.is_file()) if (cell.repo / ".claude" / "tdd-guard").is_dir() else []
    copy = Path(meta.arm.plugin_dir) if meta.arm else None
    return {"policy": policy, "status": rec.status, "solved": rec.solved, "denials": rec.pretool_denials,
            "plugin_errors": rec.pretool_plugin_errors, "reasons": sorted({d.reason[:100] for d in rec.pretool}),
            "plugin_calls": (worker.get("sim") or {}).get("plugin_calls"), "state_files": state,
            "state_in_final_diff": ".claude/tdd-guard" in diff,
            "node_modules_linked": bool(copy and (copy / "node_modules").is_symlink()),
            "findings": [f.why for f in rec.findings]}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("plugin", type=Path)
    p.add_argument("--task", default="T1")
    p.add_argument("--policies", default="approve,unscorable")
    p.add_argument("--keep", type=Path)
    a = p.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tdd-arm-", dir=a.keep))
    try:
        for policy in a.policies.split(","):
            print(json.dumps(one(a.plugin, a.task, policy, root)), flush=True)
    finally:
        if a.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
