"""Shared by the JavaScript runners: which files hold tests (as the source checks read them)."""

from __future__ import annotations

import os


def is_test_file(rel: str) -> bool:
    from gatebench.testguard.jschecks import is_test_file as js

    return js(rel)


def named(words: list[str], name: str) -> bool:
    """`name`, `npx name`, `node_modules/.bin/name`, `pnpm exec name` among the first words."""
    return any(os.path.basename(w) == name for w in words[:3])
