"""Command line: `python -m tasktrack [--file F] add|list|done ...`."""

from __future__ import annotations

import argparse
import os
import sys

from tasktrack import board
from tasktrack.store import Store, StoreError

DEFAULT_FILE = os.path.join(os.path.expanduser("~"), ".tasktrack.json")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tasktrack")
    ap.add_argument("--file", default=os.environ.get("TASKTRACK_FILE", DEFAULT_FILE))
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("add", help="add a task")
    p.add_argument("title")
    p.add_argument("--tag", action="append", default=[], help="may be repeated")

    p = sub.add_parser("list", help="show open tasks")
    p.add_argument("--all", action="store_true", help="include finished tasks")
    p.add_argument("--tag")

    p = sub.add_parser("done", help="mark a task finished")
    p.add_argument("id", type=int)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    store = Store(args.file)
    try:
        tasks = store.load()
    except StoreError as e:
        print(f"tasktrack: {e}", file=sys.stderr)
        return 1

    if args.command == "add":
        task = board.add(tasks, args.title, args.tag)
        store.save(tasks)
        print(f"added {task.id}")
    elif args.command == "list":
        for task in board.visible(tasks, show_done=args.all, tag=args.tag):
            print(board.render(task))
    elif args.command == "done":
        try:
            board.complete(tasks, args.id)
        except board.NoSuchTask as e:
            print(f"tasktrack: {e}", file=sys.stderr)
            return 1
        store.save(tasks)
    return 0
