"""`python -m envfile FILE [--format json|shell]`: print the parsed values of a .env file."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from envfile.errors import ParseError
from envfile.loader import dotenv_values


def render(values: dict[str, str], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(values, indent=2, sort_keys=True)
    return "\n".join(f"export {k}={shlex.quote(v)}" for k, v in values.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="envfile", description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--format", choices=["json", "shell"], default="shell")
    args = ap.parse_args(argv)
    try:
        values = dotenv_values(args.file)
    except OSError as e:
        print(f"envfile: {e}", file=sys.stderr)
        return 1
    except ParseError as e:
        print(f"envfile: {args.file}: {e}", file=sys.stderr)
        return 2
    print(render(values, args.format))
    return 0
