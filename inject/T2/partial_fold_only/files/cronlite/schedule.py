"""When does a job run next? Wall-clock times on chosen weekdays, in one IANA time zone."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from cronlite.spec import parse_days, parse_times


class Schedule:
    def __init__(self, times: str | Iterable[time], zone: str, days: str = "*"):
        self.times = parse_times(times) if isinstance(times, str) else tuple(sorted(set(times)))
        if not self.times:
            raise ValueError("a schedule needs at least one time")
        self.zone_name = zone
        self.zone = ZoneInfo(zone)
        self.days = parse_days(days)
        if not self.days:
            raise ValueError("a schedule needs at least one day")

    def __repr__(self) -> str:
        times = ",".join(t.strftime("%H:%M") for t in self.times)
        return f"Schedule({times!r}, {self.zone_name!r})"

    def next_run(self, after: datetime) -> datetime:
        """The first run strictly after `after`, in UTC."""
        if after.tzinfo is None:
            raise ValueError("after must be timezone-aware")
        local = after.astimezone(self.zone)
        for day_offset in range(8):
            day = local + timedelta(days=day_offset)
            if day.weekday() not in self.days:
                continue
            for t in self.times:
                candidate = day.replace(hour=t.hour, minute=t.minute, second=0, microsecond=0, fold=0)
                if candidate > local:
                    return candidate.astimezone(timezone.utc)
        raise RuntimeError(f"{self!r} has no run within a week of {after}")

    def upcoming(self, after: datetime, count: int) -> list[datetime]:
        """The next `count` runs after `after`, in UTC, in order."""
        runs = []
        for _ in range(count):
            after = self.next_run(after)
            runs.append(after)
        return runs
