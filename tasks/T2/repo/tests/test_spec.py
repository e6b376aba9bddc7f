from datetime import time

import pytest

from cronlite import SpecError, parse_days, parse_times


def test_times_sorted_and_deduplicated():
    assert parse_times("18:00, 02:30,18:00") == (time(2, 30), time(18, 0))


@pytest.mark.parametrize("bad", ["2:3", "24:00", "12:60", "noon", ""])
def test_bad_times_rejected(bad):
    with pytest.raises(SpecError):
        parse_times(bad)


def test_days():
    assert parse_days("*") == frozenset(range(7))
    assert parse_days("mon-fri") == frozenset({0, 1, 2, 3, 4})
    assert parse_days("sat,Sunday") == frozenset({5, 6})


def test_backwards_range_rejected():
    with pytest.raises(SpecError):
        parse_days("fri-mon")
