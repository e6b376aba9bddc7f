"""Splitting one amount between several payers (shared bills, instalments)."""

from __future__ import annotations

from decimal import Decimal

from invoicer.money import Number, round_money, to_decimal


def split_evenly(amount: Number, parts: int) -> list[Decimal]:
    """`amount` shared between `parts` payers."""
    share = round_money(to_decimal(amount) / parts)
    return [share] * parts
