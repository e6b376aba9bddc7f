from decimal import Decimal

from invoicer import split_evenly


def test_a_bill_split_three_ways_adds_up():
    parts = split_evenly(Decimal("100.00"), 3)
    assert parts == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    assert sum(parts) == Decimal("100.00")
