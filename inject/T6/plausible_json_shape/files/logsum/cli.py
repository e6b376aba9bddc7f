"""Command line: `logsum access.log [more.log ...] [--top N] [--since WHEN] [--format text|json]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from datetime import datetime, timezone

from logsum.render import render_json, render_text
from logsum.summary import Summary


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def since_time(text: str) -> datetime:
    """ISO 8601 date or date-time; without a UTC offset it means UTC (a bare date: midnight UTC)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date or date-time: {text!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when


RENDERERS = {"text": render_text, "json": render_json}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="logsum", description="Summarise web server access logs (Common Log Format).")
    p.add_argument("files", nargs="+", metavar="FILE", help="access log files; - reads standard input")
    p.add_argument("--top", type=positive_int, default=10, help="how many paths to list (default 10)")
    p.add_argument("--since", type=since_time, metavar="WHEN",
                   help="only count requests at or after WHEN: 2023-10-12, 2023-10-12T08:30, "
                        "2023-10-12T08:30:00+02:00 (no offset means UTC)")
    p.add_argument("--format", choices=sorted(RENDERERS), default="text", help="output format (default text)")
    return p


def read_lines(name: str) -> Iterator[str]:
    if name == "-":
        yield from sys.stdin
        return
    with open(name, encoding="utf-8", errors="replace") as f:
        yield from f


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    summary = Summary(since=args.since)
    for name in args.files:
        try:
            for line in read_lines(name):
                summary.add_line(line)
        except OSError as e:
            print(f"logsum: {name}: {e.strerror or e}", file=sys.stderr)
            return 1
    sys.stdout.write(RENDERERS[args.format](summary, args.top))
    return 0
