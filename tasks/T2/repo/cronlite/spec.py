"""Parsing of the small spec language used in job files: times ("02:30,18:00") and days ("mon-fri")."""

from __future__ import annotations

from datetime import time

DAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


class SpecError(ValueError):
    """A time or day spec that cannot be parsed; the message quotes the offending text."""


def parse_times(text: str) -> tuple[time, ...]:
    """"02:30,18:00" -> (time(2, 30), time(18, 0)), sorted, duplicates removed."""
    out = set()
    for part in text.split(","):
        part = part.strip()
        hh, sep, mm = part.partition(":")
        if not sep or not hh.isdigit() or not mm.isdigit() or len(mm) != 2:
            raise SpecError(f"bad time {part!r}: expected HH:MM")
        h, m = int(hh), int(mm)
        if not (0 <= h <= 23 and 0 <= m <= 59):
            raise SpecError(f"bad time {part!r}: out of range")
        out.add(time(h, m))
    if not out:
        raise SpecError("no times given")
    return tuple(sorted(out))


def _day(name: str) -> int:
    try:
        return DAY_NAMES.index(name.strip().lower()[:3])
    except ValueError:
        raise SpecError(f"bad day {name!r}: expected one of {', '.join(DAY_NAMES)}") from None


def parse_days(text: str) -> frozenset[int]:
    """"mon-fri" / "sat,sun" / "*" -> weekday numbers (Monday is 0, as in datetime.weekday())."""
    text = text.strip()
    if text in ("*", ""):
        return frozenset(range(7))
    days: set[int] = set()
    for part in text.split(","):
        first, sep, last = part.partition("-")
        if sep:
            a, b = _day(first), _day(last)
            if a > b:
                raise SpecError(f"bad day range {part!r}: runs backwards")
            days.update(range(a, b + 1))
        else:
            days.add(_day(first))
    return frozenset(days)
