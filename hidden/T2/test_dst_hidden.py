from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from cronlite import Job, Schedule, due_runs

UTC = timezone.utc


def utc(*args):
    return datetime(*args, tzinfo=UTC)


def test_plain_days_run_at_wall_time():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(utc(2024, 6, 10, 0, 0)) == utc(2024, 6, 10, 0, 30)
    assert s.next_run(utc(2024, 1, 10, 0, 0)) == utc(2024, 1, 10, 1, 30)
    weekdays = Schedule("07:00", "Europe/Berlin", days="mon-fri")
    assert weekdays.next_run(utc(2024, 1, 12, 6, 0)) == utc(2024, 1, 15, 6, 0)


def test_result_is_utc_and_after_may_be_in_any_zone():
    s = Schedule("02:30", "Europe/Berlin")
    tokyo = datetime(2024, 6, 10, 9, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    got = s.next_run(tokyo)
    assert got == utc(2024, 6, 10, 0, 30)
    assert got.utcoffset() == timedelta(0)
    assert s.next_run(utc(2024, 6, 10, 0, 30)) == utc(2024, 6, 11, 0, 30)


def test_naive_after_is_rejected():
    s = Schedule("02:30", "Europe/Berlin")
    with pytest.raises(ValueError):
        s.next_run(datetime(2024, 6, 10, 0, 0))


def test_gap_run_is_shifted_by_the_gap_length():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(utc(2024, 3, 31, 1, 0)) == utc(2024, 3, 31, 1, 30)
    assert s.next_run(utc(2024, 3, 31, 1, 29)) == utc(2024, 3, 31, 1, 30)
    sundays = Schedule("02:15", "Europe/Berlin", days="sun")
    # 2025-03-30 is a Sunday and a spring-forward day; 03:05 CEST is after the gap, before 03:15 CEST.
    assert sundays.next_run(utc(2025, 3, 30, 1, 5)) == utc(2025, 3, 30, 1, 15)


def test_gap_day_before_and_after_the_shifted_run():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(utc(2024, 3, 30, 22, 0)) == utc(2024, 3, 31, 1, 30)
    assert s.next_run(utc(2024, 3, 31, 1, 30)) == utc(2024, 4, 1, 0, 30)


def test_fold_runs_at_first_occurrence():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(utc(2024, 10, 26, 23, 0)) == utc(2024, 10, 27, 0, 30)
    assert s.next_run(utc(2024, 10, 27, 0, 29)) == utc(2024, 10, 27, 0, 30)


def test_fold_never_returns_the_second_occurrence():
    s = Schedule("02:30", "Europe/Berlin")
    # 02:45 CEST, then 02:10 CET and 02:29 CET: all inside the repeated hour, after the first 02:30.
    for after in (utc(2024, 10, 27, 0, 45), utc(2024, 10, 27, 1, 10), utc(2024, 10, 27, 1, 29)):
        assert s.next_run(after) == utc(2024, 10, 28, 1, 30), after


def test_new_york_transitions():
    gap = Schedule("02:30", "America/New_York")
    assert gap.next_run(utc(2024, 3, 10, 7, 10)) == utc(2024, 3, 10, 7, 30)
    fold = Schedule("01:30", "America/New_York")
    assert fold.next_run(utc(2024, 11, 3, 4, 0)) == utc(2024, 11, 3, 5, 30)
    assert fold.next_run(utc(2024, 11, 3, 6, 0)) == utc(2024, 11, 4, 6, 30)


def test_several_times_a_day_come_out_in_real_order():
    s = Schedule("02:30,03:15", "Europe/Berlin")
    assert s.upcoming(utc(2024, 3, 31, 0, 0), 4) == [
        utc(2024, 3, 31, 1, 15),
        utc(2024, 3, 31, 1, 30),
        utc(2024, 4, 1, 0, 30),
        utc(2024, 4, 1, 1, 15),
    ]


def test_daemon_runs_the_job_exactly_once_on_transition_days():
    job = Job("backup", Schedule("02:30", "Europe/Berlin"), "backup --full")
    for start, expected in [(utc(2024, 3, 30, 23, 0), [utc(2024, 3, 31, 1, 30)]),
                            (utc(2024, 10, 26, 23, 0), [utc(2024, 10, 27, 0, 30)])]:
        runs = []
        last = start
        for minute in range(1, 4 * 60):
            now = start + timedelta(minutes=minute)
            runs += [at for at, _ in due_runs([job], last, now)]
            last = now
        assert runs == expected, start
