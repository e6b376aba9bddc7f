"""`python -m versionkit sort|latest|check ...` for scripts and release checklists."""

from __future__ import annotations

import argparse
import sys

from versionkit.constraint import Constraint, InvalidConstraint
from versionkit.resolve import latest, sort_versions
from versionkit.version import InvalidVersion


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="versionkit", description="Sort, pick and check semantic versions.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sort", help="print the versions sorted, one a line")
    s.add_argument("--reverse", action="store_true", help="highest first")
    s.add_argument("versions", nargs="+")
    lt = sub.add_parser("latest", help="print the highest version")
    lt.add_argument("--pre", action="store_true", help="let pre-releases count")
    lt.add_argument("versions", nargs="+")
    c = sub.add_parser("check", help="print each version with yes/no for the constraint")
    c.add_argument("--pre", action="store_true", help="let pre-releases satisfy the constraint")
    c.add_argument("constraint")
    c.add_argument("versions", nargs="+")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "sort":
            for v in sort_versions(args.versions, reverse=args.reverse):
                print(v)
        elif args.command == "latest":
            best = latest(args.versions, include_prerelease=args.pre)
            if best is None:
                print("no release among the given versions", file=sys.stderr)
                return 1
            print(best)
        else:
            constraint = Constraint.parse(args.constraint)
            for v in args.versions:
                print(f"{v}\t{'yes' if constraint.allows(v, include_prerelease=args.pre) else 'no'}")
    except (InvalidVersion, InvalidConstraint) as exc:
        print(f"versionkit: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
