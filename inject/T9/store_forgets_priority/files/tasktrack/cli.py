"""Command line: `python -m tasktrack [--file F] add|list|done|prio ...`."""

from __future__ import annotations

import argparse
import os
import sys

from tasktrack import board
from tasktrack.model import DEFAULT_PRIORITY, PRIORITIES
from tasktrack.store import Store, StoreError

DEFAULT_FILE = os.path.join(os.path.expanduser("~"), ".tasktrack.json")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tasktrack")
    ap.add_argument("--file", default=os.environ.get("TASKTRACK_FILE", DEFAULT_FILE))
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("add", help="add a task")
    p.add_argument("title")
    p.add_argument("--tag", action="append", default=[], help="may be repeated")
    p.add_argument("--priority", choices=PRIORITIES, default=DEFAULT_PRIORITY)

    p = sub.add_parser("list", help="show open tasks")
    p.add_argument("--all", action="store_true", help="include finished tasks")
    p.add_argument("--tag")
    p.add_argument("--priority", choices=PRIORITIES, help="only tasks of this priority")

    p = sub.add_parser("done", help="mark a task finished")
    p.add_argument("id", type=int)

    p = sub.add_parser("prio", help="change a task's priority")
    p.add_argument("id", type=int)
    p.add_argument("priority", choices=PRIORITIES)
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
        task = board.add(tasks, args.title, args.tag, args.priority)
        store.save(tasks)
        print(f"added {task.id}")
    elif args.command == "list":
        for task in board.visible(tasks, show_done=args.all, tag=args.tag, priority=args.priority):
            print(board.render(task))
    elif args.command in ("done", "prio"):
        try:
            if args.command == "done":
                board.complete(tasks, args.id)
            else:
                board.set_priority(tasks, args.id, args.priority)
        except board.NoSuchTask as e:
            print(f"tasktrack: {e}", file=sys.stderr)
            return 1
        store.save(tasks)
    return 0
