#!/bin/sh
# The graders cannot run code: this Stop hook runs the tests and writes what they need into the work dir.
cd "${CLAUDE_PROJECT_DIR:-.}" || exit 0
if python3 -m pytest -q >/dev/null 2>&1; then r=pass; else r=fail; fi
st=$(git status --porcelain 2>/dev/null | sed 's/^/changed: /')
printf 'tests: %s\n%s\n' "$r" "$st" > .eval-report.txt
exit 0
