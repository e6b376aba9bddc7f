#!/bin/sh
# Lays out a small project with a bug in biggest() and a test that shows it.
set -e
mkdir -p calc tests
printf 'def biggest(a, b):\n    return a if a < b else b\n' > calc/__init__.py
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
printf 'from calc import biggest\n\n\ndef test_biggest():\n    assert biggest(2, 7) == 7\n' > tests/test_calc.py
git init -q && git add -A && git -c user.name=eval -c user.email=eval@example.com commit -qm base
