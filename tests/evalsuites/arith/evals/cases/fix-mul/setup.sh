#!/bin/sh
# Lays out a small project with a bug in mul() and a test that shows it.
set -e
mkdir -p calc tests
printf 'def mul(a, b):\n    return a + b\n' > calc/__init__.py
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
printf 'from calc import mul\n\n\ndef test_mul():\n    assert mul(3, 4) == 12\n' > tests/test_calc.py
git init -q && git add -A && git -c user.name=eval -c user.email=eval@example.com commit -qm base
