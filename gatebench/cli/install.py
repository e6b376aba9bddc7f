"""`gatebench install`: put the Stop gate into a repo's Claude Code settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "install the Stop gate into a repo (.claude/settings.json)"
DESCRIPTION = """Validate a gate config, write the resolved JSON the hook reads into REPO/.claude/gatebench/,
take a baseline snapshot, and merge a Stop and a SessionStart hook into REPO/.claude/settings.json
(or settings.local.json with --local), keeping every other key and hook. Running it twice is the
same as once. With --no-settings only the config is written (for `claude --plugin-dir`)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", nargs="?", default=".", help="repository to gate (default: .)")
    p.add_argument("--config", required=True, help="config name in configs/ (e.g. tests) or a YAML path")
    p.add_argument("--local", action="store_true", help="write .claude/settings.local.json instead")
    p.add_argument("--test-command", help="command for the tests gate (default: the config's, else "
                   "'{python} -m pytest -q'; {python} is gatebench's interpreter)")
    p.add_argument("--no-settings", action="store_true", help="write the config only; leave settings alone")


def run(args: argparse.Namespace) -> int:
    from gatebench.installer.install import install

    r = install(Path(args.repo), args.config, local=args.local, settings=not args.no_settings,
                test_command=args.test_command)
    where = r["settings"] or "(settings untouched: --no-settings)"
    print(f"installed config {r['config']} into {r['repo']}")
    print(f"  hooks:     {where} (timeout {r['timeout_s']} s)")
    print(f"  state dir: {r['state_dir']} (baseline of {r['baseline_files']} files)")
    for err in r["baseline_errors"][:10]:
        print(f"  warning: baseline snapshot: {err} (that file is left out of the diff)", file=sys.stderr)
    return 0
