#!/usr/bin/env python3
"""A plain Claude Code Stop hook: block the stop while the project's tests fail.

Nothing in it knows about gatebench: install it in `.claude/settings.json` as
    {"hooks": {"Stop": [{"hooks": [{"type": "command",
        "command": "python3 \\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/pytest_stop.py"}]}]}}
or bench it with gatebench's `command` gate (configs/stop-hook.yaml). It reads the Stop input on
stdin, runs pytest in the project, and answers the way Claude Code reads a Stop hook: nothing on
success, `{"decision": "block", "reason": ...}` with the failing tests otherwise.
"""

import json
import os
import subprocess
import sys

TIMEOUT_S = 120


def main() -> int:
    data = json.loads(sys.stdin.read() or "{}")
    project = os.environ.get("CLAUDE_PROJECT_DIR") or data.get("cwd") or os.getcwd()
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project,
                           capture_output=True, text=True, timeout=TIMEOUT_S,
                           env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    except subprocess.TimeoutExpired:
        print(json.dumps({"decision": "block", "reason": f"The tests did not finish within {TIMEOUT_S} s."}))
        return 0
    if r.returncode in (0, 5):  # 5: no tests collected, nothing to hold the stop on
        return 0
    lines = (r.stdout + r.stderr).strip().splitlines()
    failing = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
    body = "\n".join(failing[:20] or lines[-20:])
    print(json.dumps({"decision": "block", "reason": f"The tests fail (pytest exit {r.returncode}):\n{body}"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
