"""`gatebench status`: what is installed in a repo, whether its hook command starts, the last decisions."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "show the installed gate, check its hook and test commands start, and the last stop decisions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", nargs="?", default=".")
    p.add_argument("--state", help="state dir (default: the repo's per-user state dir)")
    p.add_argument("-n", type=int, default=10, help="how many recent stop events to show")
    p.add_argument("--no-test-run", action="store_true", help="do not run the tests gate's command to prove it")


def run(args: argparse.Namespace) -> int:
    from gatebench.hook.state import Paths, default_state_dir, read_events
    from gatebench.installer import settings as st
    from gatebench.installer.install import check_command, read_settings, settings_file

    repo = Path(args.repo).resolve()
    broken, named = [], []
    for local in (False, True):
        f = settings_file(repo, local)
        entries = st.ours(read_settings(f))
        print(f"{f}: {len(entries)} gatebench entries" + ("" if f.exists() else " (no file)"))
        for event, h in entries:
            cmd = str(h.get("command"))
            why = check_command(cmd, repo)
            print(f"  {event}: {cmd}  (timeout {h.get('timeout')})  {'starts' if why is None else 'BROKEN'}")
            if why is not None:
                broken.append((f, event, cmd, why))
            named += state_arg(cmd)
    holders = files_with(repo)
    print("hook: " + ("; ".join(holders) if holders else "not installed in either settings file")
          + ("" if not holders else " (" + ("BROKEN here" if broken else "starts here") + ")"))
    # The state dir the installed hook is told to use (an older install kept it in the repo).
    paths = Paths(args.state or (named[0] if named else default_state_dir(str(repo))))
    print(f"state dir: {paths.state}")
    try:
        resolved = json.loads(Path(paths.config).read_text())
        cfg = resolved["config"]
        gates = ", ".join(g.get("name", g["kind"]) for g in cfg.get("gates", [])) or "(none: records only)"
        print(f"config: {cfg['name']}  gates: {gates}  budget: {cfg['budget']['blocks']} blocks")
        broken += tests_gate_problems(cfg, resolved.get("python") or sys.executable, repo, args.no_test_run)
    except (OSError, ValueError, KeyError) as e:
        print(f"config: not readable at {paths.config} ({e})")
    stops = [ev for ev in read_events(paths.events) if ev.get("hook") == "stop"][-args.n :]
    print(f"last {len(stops)} stop attempts ({paths.events}):")
    for ev in stops:
        verdicts = " ".join(f"{g['name']}={g['verdict']}" for g in ev.get("gates", []))
        err = f"  errors: {len(ev['errors'])}" if ev.get("errors") else ""
        print(f"  {ev.get('ts', '?')}  #{ev.get('attempt', '?')}  {ev.get('decision', '?'):8}  {verdicts}{err}")
    for f, event, cmd, why in broken:
        if event == "tests":
            print(f"BROKEN: the tests gate's command {cmd} {why}: every stop would pass with nothing "
                  "checked. Run `gatebench install` again with a working --test-command.", file=sys.stderr)
            continue
        print(f"BROKEN: the {event} hook command in {f} does not start ({why}): {cmd}\n"
              "  Claude Code lets every stop through without a word while it is broken: the gate is OFF. "
              "Run `gatebench install` again from where gatebench now lives.", file=sys.stderr)
    return 1 if broken else 0


def tests_gate_problems(cfg: dict, python: str, repo: Path, skip: bool) -> list:
    """Run the tests gate's command once, as install does; [(None, "tests", command, why)] if broken."""
    from gatebench.installer.testcheck import check, tests_command

    found = tests_command(cfg.get("gates", []), python)
    if found is None or skip:
        return []
    r = check(found[0], str(repo), found[1])
    cov = r["coverage"]
    print(f"tests: `{found[0]}`: {'BROKEN: ' + r['problem'] if r['problem'] else r['summary']}")
    print(f"weakening: source checks: {cov['source']}; results: {cov['results']}")
    return [(None, "tests", f"`{found[0]}`", r["problem"])] if r["problem"] else []


def files_with(repo: Path) -> list[str]:
    """The settings files holding gatebench's hook; for the shared one, which command this machine runs."""
    from gatebench.installer import settings as st
    from gatebench.installer import shared
    from gatebench.installer.install import read_settings, settings_file

    out = []
    for local in (False, True):
        f = settings_file(repo, local)
        entries = st.ours(read_settings(f))
        if any(shared.LAUNCHER in str(h.get("command")) for _e, h in entries):
            rec = shared.record_path()
            runs = rec.read_text().strip() if rec.is_file() else "nothing recorded for this user"
            out.append(f"{f} (shared, through {shared.LAUNCHER}; this machine runs: {runs})")
        elif entries:
            out.append(f"{f} (this machine only)")
    return out


def state_arg(command: str) -> list[str]:
    import shlex

    try:
        argv = shlex.split(command)
    except ValueError:
        return []
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--state"]
