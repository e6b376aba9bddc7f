#!/bin/sh
# Lays out a small project with a bug in negate() and a test that shows it.
set -e
mkdir -p calc tests
printf 'def negate(a):\n    return a\n' > calc/__init__.py
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
printf 'from calc import negate\n\n\ndef test_negate():\n    assert negate(4) == -4\n' > tests/test_calc.py
git init -q && git add -A && git -c user.name=eval -c user.email=eval@example.com commit -qm base
