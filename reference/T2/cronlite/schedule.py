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
        """The earliest run strictly after `after`, in UTC."""
        if after.tzinfo is None or after.utcoffset() is None:
            raise ValueError(f"next_run needs an aware datetime, got naive {after!r}")
        after_utc = after.astimezone(timezone.utc)
        today = after_utc.astimezone(self.zone).date()
        # Compare instants, never local wall times: aware datetimes sharing a tzinfo compare by wall time and
        # ignore `fold`, which is wrong inside a DST gap or fold. Starting a day early catches a run that a gap
        # shifted past midnight.
        candidates = []
        for day_offset in range(-1, 8):
            day = today + timedelta(days=day_offset)
            if day.weekday() not in self.days:
                continue
            for t in self.times:
                # fold=0 picks the first of two repeated wall times, and in a gap it applies the offset from
                # before the jump, which lands the run that much later (02:30 -> 03:30 CEST).
                at = datetime.combine(day, t, tzinfo=self.zone).replace(fold=0).astimezone(timezone.utc)
                if at > after_utc:
                    candidates.append(at)
        if not candidates:
            raise RuntimeError(f"{self!r} has no run within a week of {after}")
        return min(candidates)

    def upcoming(self, after: datetime, count: int) -> list[datetime]:
        """The next `count` runs after `after`, in UTC, in order."""
        runs = []
        for _ in range(count):
            after = self.next_run(after)
            runs.append(after)
        return runs
