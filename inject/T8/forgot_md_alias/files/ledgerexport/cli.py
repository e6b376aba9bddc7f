"""`python -m ledgerexport RECORDS.json --format FMT [--columns a,b] [-o OUT]`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ledgerexport.exporters import export
from ledgerexport.registry import available_formats


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ledgerexport", description="Export ledger records to text formats.")
    ap.add_argument("records", nargs="?", help="JSON file holding a list of objects")
    # Choices are read when the parser is built, so formats registered by plugins are accepted.
    ap.add_argument("--format", "-f", default="csv", type=str.lower, choices=available_formats())
    ap.add_argument("--columns", help="comma-separated column names, in output order")
    ap.add_argument("--output", "-o", help="write here instead of stdout")
    ap.add_argument("--list-formats", action="store_true", help="print the known formats and exit")
    return ap


def load_records(path: str) -> list[dict]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError(f"{path}: expected a JSON list of objects")
    return data


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_formats:
        print("\n".join(available_formats()))
        return 0
    if not args.records:
        print("ledgerexport: a records file is required", file=sys.stderr)
        return 2
    try:
        records = load_records(args.records)
    except (OSError, ValueError) as e:
        print(f"ledgerexport: {e}", file=sys.stderr)
        return 1
    columns = args.columns.split(",") if args.columns else None
    text = export(records, args.format, columns)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
