"""`gatebench status`: what is installed in a repo, and the last decisions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HELP = "show the installed gate, its config and the last stop decisions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", nargs="?", default=".")
    p.add_argument("--state", help="state dir (default: REPO/.claude/gatebench)")
    p.add_argument("-n", type=int, default=10, help="how many recent stop events to show")


def run(args: argparse.Namespace) -> int:
    from gatebench.hook.state import Paths, default_state_dir, read_events
    from gatebench.installer import settings as st
    from gatebench.installer.install import read_settings, settings_file

    repo = Path(args.repo).resolve()
    for local in (False, True):
        f = settings_file(repo, local)
        entries = st.ours(read_settings(f))
        print(f"{f}: {len(entries)} gatebench entries" + ("" if f.exists() else " (no file)"))
        for event, h in entries:
            print(f"  {event}: {h.get('command')}  (timeout {h.get('timeout')})")
    paths = Paths(args.state or default_state_dir(str(repo)))
    try:
        cfg = json.loads(Path(paths.config).read_text())["config"]
        gates = ", ".join(g.get("name", g["kind"]) for g in cfg.get("gates", [])) or "(none: records only)"
        print(f"config: {cfg['name']}  gates: {gates}  budget: {cfg['budget']['blocks']} blocks")
    except (OSError, ValueError, KeyError) as e:
        print(f"config: not readable at {paths.config} ({e})")
    stops = [ev for ev in read_events(paths.events) if ev.get("hook") == "stop"][-args.n :]
    print(f"last {len(stops)} stop attempts ({paths.events}):")
    for ev in stops:
        verdicts = " ".join(f"{g['name']}={g['verdict']}" for g in ev.get("gates", []))
        err = f"  errors: {len(ev['errors'])}" if ev.get("errors") else ""
        print(f"  {ev.get('ts', '?')}  #{ev.get('attempt', '?')}  {ev.get('decision', '?'):8}  {verdicts}{err}")
    return 0
