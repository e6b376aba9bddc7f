"""`gatebench uninstall`: remove gatebench's hook entries, and only those."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "remove gatebench's hooks from a repo's settings (other hooks stay)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", nargs="?", default=".")
    p.add_argument("--local", action="store_true", help="edit .claude/settings.local.json instead")


def run(args: argparse.Namespace) -> int:
    from gatebench.installer.install import uninstall

    r = uninstall(Path(args.repo), local=args.local)
    print(f"removed {r['removed']} gatebench hook entries from {r['settings']}")
    print("the state dir .claude/gatebench/ (events, snapshots) is kept; delete it by hand if unwanted")
    return 0
