"""Counting entries: requests, bytes, status codes, paths."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from logsum.parse import Entry, parse_line


@dataclass
class Summary:
    requests: int = 0
    bytes: int = 0
    skipped: int = 0
    status: Counter = field(default_factory=Counter)
    paths: Counter = field(default_factory=Counter)
    # Entries before this instant are left out (not skipped: they are valid lines). Aware datetimes compare
    # as instants, so log lines in any UTC offset are filtered correctly.
    since: datetime | None = None

    def add(self, entry: Entry) -> None:
        self.requests += 1
        self.bytes += entry.size
        self.status[entry.status] += 1
        self.paths[entry.path] += 1

    def add_line(self, line: str) -> None:
        if not line.strip():
            return
        entry = parse_line(line)
        if entry is None:
            self.skipped += 1
        elif self.since is None or entry.time.replace(tzinfo=None) >= self.since:
            self.add(entry)

    def top_paths(self, n: int) -> list[tuple[str, int]]:
        """The `n` most requested paths, most requests first, ties by path."""
        return sorted(self.paths.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
