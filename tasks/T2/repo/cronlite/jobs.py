"""Job files and the "what is due now?" question the daemon asks every minute.

A job file has one job per line, whitespace separated; the command is the rest of the line:

    # name    times         days     zone            command
    backup    02:30         *        Europe/Berlin   /usr/local/bin/backup --full
    report    07:00,18:00   mon-fri  Europe/Berlin   report --daily
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfoNotFoundError

from cronlite.schedule import Schedule
from cronlite.spec import SpecError


@dataclass(frozen=True)
class Job:
    name: str
    schedule: Schedule
    command: str


def parse_jobfile(text: str, source: str = "<jobs>") -> list[Job]:
    jobs, names = [], set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 4)
        if len(fields) < 5:
            raise SpecError(f"{source}:{lineno}: expected 'name times days zone command'")
        name, times, days, zone, command = fields
        if name in names:
            raise SpecError(f"{source}:{lineno}: duplicate job name {name!r}")
        try:
            schedule = Schedule(times, zone, days)
        except ZoneInfoNotFoundError:
            raise SpecError(f"{source}:{lineno}: unknown time zone {zone!r}") from None
        except SpecError as e:
            raise SpecError(f"{source}:{lineno}: {e}") from None
        names.add(name)
        jobs.append(Job(name, schedule, command))
    return jobs


def due_runs(jobs: list[Job], last_check: datetime, now: datetime) -> list[tuple[datetime, Job]]:
    """Every run in (last_check, now], oldest first; the daemon calls this once a minute."""
    out = []
    for job in jobs:
        at = job.schedule.next_run(last_check)
        while at <= now:
            out.append((at, job))
            at = job.schedule.next_run(at)
    out.sort(key=lambda pair: (pair[0], pair[1].name))
    return out
