"""`gatebench uninstall`: remove gatebench's hook entries, and only those."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "remove gatebench's hooks from a repo's settings (other hooks stay)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", nargs="?", default=".")
    p.add_argument("--local", action="store_true", help="(ignored: both settings files are always cleaned)")


def run(args: argparse.Namespace) -> int:
    from gatebench.installer.install import uninstall

    r = uninstall(Path(args.repo))
    for f in r["files"]:
        print(f"removed {f['removed']} gatebench hook entries from {f['settings']}")
    print(f"the state dir {r['state_dir']} (events, snapshots) is kept; delete it by hand if unwanted")
    return 0
