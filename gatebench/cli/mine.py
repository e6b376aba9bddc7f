"""`gatebench task mine`: candidate tasks from a project's PyPI releases (recipes) or git history (tasks), imported
in full and kept only when they pass the task checks (SPEC section 12, "Mining tasks")."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DESCRIPTION = """\
Mine tasks from a project's history. Two sources:

  gatebench task mine PROJECT --pypi [--versions V ...] [--last N] --prompts FILE [--out suites/real]
      consecutive release sdists X -> X+1 on PyPI: a pair whose diff changes a test module and at most
      --max-files source modules (not only a version line) is a candidate. Only the candidates that
      FILE names get imported: a recipe's prompt is written by a person (SPEC 12: in our own words), so
      a first run without --prompts (or with --list) prints the candidates, their files and the release
      notes' new lines to write prompts from. FILE is YAML: {"X..Y": "prompt text", ...}. Each one is
      curated (the full import: environment, FAIL_TO_PASS/PASS_TO_PASS, visible tests, wrong fixes),
      checked, and written to --out as R<n>.yaml (the first free id from --start-id) when it passes.

  gatebench task mine REPO --git [--rev REV] [--last N] [--home DIR]
      the last N non-merge commits of a local git repository: a commit that changes a test module and
      a few source modules is imported as `task import` does (its message is the prompt) and, when it
      passes, moved into the bench home as task <--prefix><commit[:10]>.

The checks, for both: no prompt gap and no prompt flag (promptcheck), at least 3 wrong fixes of which
2 plausible ones, and `gatebench selftest --tasks ID` passing in a bench home of its own (a recipe is laid
from its sdists there first). A progress line per step goes to stderr; the last line sums up. A pair or
commit that cannot be mined (no sdist, an environment that does not resolve, nothing that fails before the
fix) is reported with its project and version or commit, and the next one is tried.
Exit 0 when something was kept or only candidates were listed, 1 when nothing passed, 2 for bad input."""


def add_arguments(sub) -> None:
    m = sub.add_parser("mine", help="mine tasks from PyPI releases or git history; keep only those that pass the checks",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    m.add_argument("source", help="a PyPI project name (--pypi) or a local git repository (--git)")
    kind = m.add_mutually_exclusive_group(required=True)
    kind.add_argument("--pypi", action="store_true", help="SOURCE is a PyPI project: mine its release sdists")
    kind.add_argument("--git", action="store_true", help="SOURCE is a git repository: mine its commits")
    m.add_argument("--versions", nargs="+", metavar="V", help="--pypi: these releases, oldest first (default: the "
                   "last --last releases, from `pip index versions`)")
    m.add_argument("--last", type=int, default=10, metavar="N", help="releases (--pypi) or commits (--git) to look "
                   "at (default 10)")
    m.add_argument("--rev", default="HEAD", help="--git: the commits reachable from REV (default HEAD)")
    m.add_argument("--prompts", type=Path, metavar="FILE", help='--pypi: YAML {"X..Y": prompt}: the pairs to import')
    m.add_argument("--list", action="store_true", help="only list the candidates (nothing is imported)")
    m.add_argument("--out", type=Path, default=Path("suites/real"), help="--pypi: where kept recipes go "
                   "(default suites/real)")
    m.add_argument("--start-id", type=int, default=100, metavar="N", help="--pypi: the first recipe id R<N> to use "
                   "(default 100; taken ids are skipped)")
    m.add_argument("--prefix", default="M", help="--git: task ids are PREFIX + the commit's first 10 hex digits")
    m.add_argument("--home", type=Path, help="--git: the bench home the kept tasks go to")
    m.add_argument("--python", default=None, help="Python X.Y of the environments (--pypi default 3.11, the suite's)")
    m.add_argument("--license", dest="licence", help="--pypi: the licence to record (default: read from PKG-INFO; a "
                   "project that is not MIT/BSD/Apache/ISC/PSF licensed is not mined)")
    m.add_argument("--repo-url", help="--pypi: the project's repository (default: PKG-INFO's project URLs)")
    m.add_argument("--max-files", type=int, default=2, metavar="N", help="at most N source modules in the fix "
                   "(default 2)")
    m.add_argument("--tests", nargs="+", metavar="GLOB", help="the project's test files (default: the import's)")
    m.add_argument("--env", nargs="+", metavar="SPEC", dest="extra_env", help="pip requirement specs added to the "
                   "environment's resolution (`task import --env`; --pypi: the recipe's test_env): test dependencies "
                   "the project does not declare")
    m.add_argument("--timeout-s", type=float, default=300, help="per oracle run of an import (default 300)")
    m.add_argument("--selftest-timeout-s", type=float, default=1200, help="per selftest (default 1200)")
    m.add_argument("--json", action="store_true", help="one JSON object per pair or commit on stdout")


def run(args: argparse.Namespace) -> int:
    from gatebench.errors import UsageError
    from gatebench.suite import mine

    def report(o) -> None:  # as each pair or commit ends, not all at the end
        if args.json:
            print(json.dumps({"label": o.label, "kept": o.kept, "id": o.id, "reason": o.reason, "seconds": o.seconds}),
                  flush=True)
        else:
            print(f"{o.label}: {'KEPT ' + (o.id or '') + ' (' + o.reason + ')' if o.kept else o.reason}"
                  + (f" ({o.seconds:.0f} s)" if o.seconds else ""), flush=True)

    if args.pypi:
        prompts = _prompts(args.prompts)
        versions = args.versions or mine.pypi_versions(args.source)[-max(2, args.last):]
        outcomes = mine.mine_pypi(args.source, versions, args.out, start_id=args.start_id, prompts=prompts,
                                  python=args.python or "3.11", max_files=args.max_files, globs=args.tests,
                                  repo=args.repo_url, licence=args.licence, extra_env=args.extra_env, timeout_s=args.timeout_s,
                                  selftest_timeout_s=args.selftest_timeout_s, listing=args.list or not prompts,
                                  report=report)
    else:
        repo = Path(args.source)
        if not (repo / ".git").exists() and not (repo / "HEAD").is_file():
            raise UsageError(f"{repo}: not a git repository (--git takes a local clone; --pypi a PyPI project name)")
        from gatebench.paths import project_root

        home = args.home.resolve() if args.home else project_root()
        outcomes = mine.mine_git(repo, args.rev, args.last, home, prefix=args.prefix, max_files=args.max_files,
                                 globs=args.tests, python=args.python, extra_env=args.extra_env, timeout_s=args.timeout_s,
                                 selftest_timeout_s=args.selftest_timeout_s, listing=args.list, report=report)
    kept = [o for o in outcomes if o.kept]
    listed = [o for o in outcomes if o.reason.startswith("candidate")]
    imported = [o for o in outcomes if o.seconds]
    secs = sum(o.seconds for o in imported)
    print(f"mine {args.source}: {len(outcomes)} looked at, {len(listed)} candidates listed, {len(imported)} imported "
          f"({secs:.0f} s), {len(kept)} kept", file=sys.stderr)
    return 0 if kept or (listed and not imported) else 1


def _prompts(path: Path | None) -> dict[str, str]:
    import yaml

    from gatebench.errors import UsageError

    if path is None:
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise UsageError(f"--prompts {path}: {e}") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and "..".join(k.split("..")) == k and ".." in k
                                             and isinstance(v, str) for k, v in data.items()):
        raise UsageError(f'--prompts {path}: expected a mapping {{"X..Y": "prompt text"}} of release pairs to prompts')
    return {k.strip(): v.strip() for k, v in data.items()}
