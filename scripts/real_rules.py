#!/usr/bin/env python3
"""How many real-suite recipes meet every curation rule of issue 32, from their data (suite/recipe_rules.py) and,
with --prompts, their prompt checks on the two sdists (recipes.prompt_flags; sdists from the cache, fetched if
missing). Prints one line per recipe that breaks a rule and the figure; exits 1 if any does.

    .venv/bin/python scripts/real_rules.py [--prompts] [ID ...]
"""

from __future__ import annotations

import argparse
import sys

from gatebench.suite.recipe_rules import problems
from gatebench.suite.recipes import load_recipe, prompt_flags, recipe_paths


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--prompts", action="store_true", help="also run the prompt checks (needs both sdists)")
    a = ap.parse_args()
    ids = a.ids or sorted(recipe_paths(), key=lambda r: int(r[1:]))
    bad = 0
    for rid in ids:
        found = problems(load_recipe(rid)) + ([f"prompt: {f}" for f in prompt_flags(rid)] if a.prompts else [])
        if found:
            bad += 1
            print(f"{rid}: " + "; ".join(found))
    what = "every rule" if a.prompts else "every rule but the prompt checks (--prompts)"
    print(f"{len(ids) - bad} of {len(ids)} recipes meet {what}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
