from decimal import Decimal

from invoicer import split_evenly


def test_even_split():
    assert split_evenly("90.00", 3) == [Decimal("30.00")] * 3


def test_uneven_split_adds_up():
    parts = split_evenly("100.00", 3)
    assert parts == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    assert sum(parts) == Decimal("100.00")
