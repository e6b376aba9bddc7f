"""Splitting one amount between several payers (shared bills, instalments)."""

from __future__ import annotations

from decimal import Decimal

from invoicer.money import CENT, Number, round_money, to_decimal


def split_evenly(amount: Number, parts: int) -> list[Decimal]:
    """`amount` shared between `parts` payers; the last payer pays the leftover cents."""
    cents = int(round_money(to_decimal(amount)) * 100)
    share, extra = divmod(cents, parts)
    return [(share + 1 if i >= parts - extra else share) * CENT for i in range(parts)]
