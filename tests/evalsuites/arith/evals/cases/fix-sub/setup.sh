#!/bin/sh
# Lays out a small project with a bug in sub() and a test that shows it.
set -e
mkdir -p calc tests
printf 'def sub(a, b):\n    return b - a\n' > calc/__init__.py
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
printf 'from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n' > tests/test_calc.py
git init -q && git add -A && git -c user.name=eval -c user.email=eval@example.com commit -qm base
