"""cronlite: run jobs at fixed wall-clock times in a time zone."""

from cronlite.jobs import Job, due_runs, parse_jobfile
from cronlite.schedule import Schedule
from cronlite.spec import SpecError, parse_days, parse_times

__all__ = ["Job", "Schedule", "SpecError", "due_runs", "parse_days", "parse_jobfile", "parse_times"]
