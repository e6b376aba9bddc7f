from datetime import datetime, timezone

from cronlite import Schedule, due_runs, parse_jobfile

UTC = timezone.utc


def test_summer_day_runs_at_wall_time():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(datetime(2024, 6, 10, 0, 0, tzinfo=UTC)) == datetime(2024, 6, 10, 0, 30, tzinfo=UTC)


def test_next_run_is_strictly_after():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(datetime(2024, 6, 10, 0, 30, tzinfo=UTC)) == datetime(2024, 6, 11, 0, 30, tzinfo=UTC)


def test_weekdays_only():
    s = Schedule("07:00", "Europe/Berlin", days="mon-fri")
    # 2024-06-14 is a Friday: the next run after Friday 07:00 is Monday.
    assert s.next_run(datetime(2024, 6, 14, 6, 0, tzinfo=UTC)) == datetime(2024, 6, 17, 5, 0, tzinfo=UTC)


def test_spring_forward_gap_runs_after_the_gap():
    s = Schedule("02:30", "Europe/Berlin")
    # 03:15 CEST on the day clocks jump from 02:00 to 03:00: 02:30 did not exist, the run moves to 03:30 CEST.
    assert s.next_run(datetime(2024, 3, 31, 1, 15, tzinfo=UTC)) == datetime(2024, 3, 31, 1, 30, tzinfo=UTC)


def test_fall_back_runs_at_first_occurrence():
    s = Schedule("02:30", "Europe/Berlin")
    assert s.next_run(datetime(2024, 10, 26, 23, 0, tzinfo=UTC)) == datetime(2024, 10, 27, 0, 30, tzinfo=UTC)


def test_due_runs_from_jobfile():
    jobs = parse_jobfile(
        "# nightly\n"
        "backup  02:30        *        Europe/Berlin  backup --full\n"
        "report  07:00,18:00  mon-fri  Europe/Berlin  report --daily\n"
    )
    runs = due_runs(jobs, datetime(2024, 6, 10, 0, 0, tzinfo=UTC), datetime(2024, 6, 10, 16, 0, tzinfo=UTC))
    assert [(at.hour, at.minute, job.name) for at, job in runs] == [
        (0, 30, "backup"),
        (5, 0, "report"),
        (16, 0, "report"),
    ]
