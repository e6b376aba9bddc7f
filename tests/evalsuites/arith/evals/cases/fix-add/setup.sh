#!/bin/sh
# Lays out a small project with a bug in add() and a test that shows it.
set -e
mkdir -p calc tests
printf 'def add(a, b):\n    return a - b\n' > calc/__init__.py
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
printf 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n' > tests/test_calc.py
git init -q && git add -A && git -c user.name=eval -c user.email=eval@example.com commit -qm base
