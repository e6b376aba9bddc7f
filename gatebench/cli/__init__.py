"""`gatebench` command line: one module per verb, found through one registry.

Each verb module defines `HELP` (one line), `add_arguments(parser)` and `run(args) -> int`.
Modules are imported only when their verb runs, so `gatebench --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

from gatebench.errors import UsageError

VERBS: dict[str, str] = {
    "install": "gatebench.cli.install",
    "uninstall": "gatebench.cli.uninstall",
    "status": "gatebench.cli.status",
    "schema": "gatebench.cli.schema",
    "prep": "gatebench.cli.prep",
    "run": "gatebench.cli.run",
    "finalize": "gatebench.cli.finalize",
    "matrix": "gatebench.cli.matrix",
    "analyze": "gatebench.cli.analyze",
    "review": "gatebench.cli.review",
    "selftest": "gatebench.cli.selftest",
    "task": "gatebench.cli.task",
    "export": "gatebench.cli.export",
    "audit": "gatebench.cli.audit",
}

# Exit codes scripts can trust (SPEC.md, "Exit codes").
EXIT_OK = 0
EXIT_FAIL = 1  # the verb ran and its check failed (selftest found a fault, a matrix cell failed)
EXIT_USAGE = 2  # bad input: a file or field is wrong; nothing was changed
EXIT_INTERRUPTED = 130


def _available() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for verb, modname in VERBS.items():
        try:
            found[verb] = importlib.import_module(modname)
        except ModuleNotFoundError as e:
            if e.name != modname:
                raise
    return found


def build_parser(modules: dict[str, ModuleType]) -> argparse.ArgumentParser:
    from gatebench import __version__

    parser = argparse.ArgumentParser(
        prog="gatebench",
        description="Stop-time gates for Claude Code, and a bench that measures what they buy and cost. "
        "See SPEC.md for every file format, verb and metric.",
        epilog="Exit codes: 0 ok; 1 the verb ran and its check failed; 2 bad input (nothing changed); "
        "130 interrupted. `gatebench VERB --help` for each verb.",
    )
    parser.add_argument("--version", action="version", version=f"gatebench {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb, mod in modules.items():
        p = sub.add_parser(verb, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(_available())
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args._run(args) or 0)
    except UsageError as e:
        print(f"gatebench: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("gatebench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
