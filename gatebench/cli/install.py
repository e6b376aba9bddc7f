"""`gatebench install`: put the Stop gate into a repo's Claude Code settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "install the Stop gate into a repo (.claude/settings.local.json)"
DESCRIPTION = """Validate a gate config, write the resolved JSON the hook reads into the repo's per-user
state dir (outside the repo: $XDG_STATE_HOME/gatebench/<name>-<hash>, see `gatebench status`), take a
baseline snapshot, and merge a Stop and a SessionStart hook into REPO/.claude/settings.local.json,
the per-machine settings file (it holds this machine's absolute paths; do not commit it), keeping
every other key and hook, plus permission rules that deny the agent's tools the state dir; the
settings file is listed in the clone's own .git/info/exclude so `git status` stays clean. First it
runs the tests gate's command once, as the gate does, and refuses (exit 2, nothing written) a
command that does not start or collects no tests. Running it twice is the same as once. With --no-settings only the config
is written (for `claude --plugin-dir`). With --sandbox, also turn on Claude Code's Bash sandbox and
deny the agent the state dir and the settings files."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("repo", nargs="?", default=".", help="repository to gate (default: .)")
    p.add_argument("--config", required=True, help="config name in configs/ (e.g. tests) or a YAML path")
    p.add_argument("--local", action="store_true", help="(the default) write .claude/settings.local.json")
    p.add_argument("--shared", action="store_true", help="write the hook into .claude/settings.json, the file a "
                   "team commits, through the launcher .claude/hooks/gatebench.sh (commit both); each teammate "
                   "runs `gatebench install --shared` once, for their own state dir and baseline")
    p.add_argument("--test-command", help="command for the tests gate (default: the config's, else "
                   "'{python} -m pytest -q'; {python} is gatebench's interpreter)")
    p.add_argument("--no-settings", action="store_true", help="write the config only; leave settings alone")
    p.add_argument("--no-test-run", action="store_true", help="do not run the test command once to prove it "
                   "(by default install refuses, exit 2, a command that does not start or collects no tests)")
    p.add_argument("--sandbox", action="store_true", help="also write Claude Code sandbox settings (Bash in "
                   "bubblewrap; state dir and settings files denied to the agent; needs bwrap and socat)")


def run(args: argparse.Namespace) -> int:
    from gatebench.installer.install import install

    r = install(Path(args.repo), args.config, settings=not args.no_settings,
                test_command=args.test_command, sandbox=args.sandbox, check_tests=not args.no_test_run,
                shared=args.shared)
    where = r["settings"] or "(settings untouched: --no-settings)"
    print(f"installed config {r['config']} into {r['repo']}")
    if r["shared"]:
        print(f"  hooks:     {where} (timeout {r['timeout_s']} s) through .claude/hooks/gatebench.sh: commit "
              "both; each teammate runs `gatebench install --shared` once")
    else:
        print(f"  hooks:     {where} (timeout {r['timeout_s']} s; per machine: do not commit it)")
    print(f"  state dir: {r['state_dir']} (baseline of {r['baseline_files']} files)")
    if r["tests"]:
        t = r["tests"]
        print(f"  tests:     `{t['command']}` ran: {t['summary']} ({t['seconds']} s)")
        cov = t["coverage"]
        print(f"  weakening: source checks: {cov['source']}; results: {cov['results']}")
    if r["sandbox"]:
        print("  sandbox:   on (Bash runs in bubblewrap; the state dir and settings files are denied)")
    for err in r["baseline_errors"][:10]:
        print(f"  warning: baseline snapshot: {err} (that file is left out of the diff)", file=sys.stderr)
    for f in r["stale"]:
        print(f"  warning: {f} still holds gatebench entries from an older install; run `gatebench "
              "uninstall` then install again, or the gate runs twice", file=sys.stderr)
    return 0
