"""Parsing Common Log Format lines:

    203.0.113.5 - frank [10/Oct/2023:13:55:36 -0700] "GET /index.html HTTP/1.1" 200 2326
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

_LINE = re.compile(
    r'^(?P<host>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<method>[A-Z]+) (?P<path>\S+)(?: [^"]*)?" '
    r"(?P<status>\d{3}) (?P<size>\d+|-)"
)
_TIME = re.compile(r"^(\d{2})/([A-Za-z]{3})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$")
# Month names are always English in access logs; strptime's %b would follow the process locale.
_MONTHS = {m: i for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1)}


@dataclass(frozen=True)
class Entry:
    host: str
    time: datetime  # aware, in the offset the server logged
    method: str
    path: str
    status: int
    size: int


def parse_time(text: str) -> datetime | None:
    m = _TIME.match(text)
    if not m or m.group(2) not in _MONTHS:
        return None
    day, _, year, hh, mm, ss, sign, oh, om = m.groups()
    offset = timedelta(hours=int(oh), minutes=int(om))
    tz = timezone(offset if sign == "+" else -offset)
    try:
        return datetime(int(year), _MONTHS[m.group(2)], int(day), int(hh), int(mm), int(ss), tzinfo=tz)
    except ValueError:
        return None


def parse_line(line: str) -> Entry | None:
    """The entry on `line`, or None if the line is not a valid log line."""
    m = _LINE.match(line)
    if not m:
        return None
    when = parse_time(m.group("time"))
    if when is None:
        return None
    size = 0 if m.group("size") == "-" else int(m.group("size"))
    return Entry(m.group("host"), when, m.group("method"), m.group("path"), int(m.group("status")), size)
