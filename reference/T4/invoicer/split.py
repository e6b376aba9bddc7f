"""Splitting one amount between several payers (shared bills, instalments)."""

from __future__ import annotations

from decimal import Decimal

from invoicer.money import CENT, Number, round_money, to_decimal


def split_evenly(amount: Number, parts: int) -> list[Decimal]:
    """`amount` shared between `parts` payers, in whole cents that add up exactly to `amount`.

    Shares differ by at most one cent; the shares furthest from zero come first (for a refund too).
    """
    if not isinstance(parts, int) or isinstance(parts, bool) or parts < 1:
        raise ValueError(f"parts must be a positive integer, got {parts!r}")
    cents = int(round_money(to_decimal(amount)) / CENT)
    sign = -1 if cents < 0 else 1
    # Work on the magnitude so the remainder cents go to the first payers whatever the sign.
    share, extra = divmod(abs(cents), parts)
    return [sign * (share + (1 if i < extra else 0)) * CENT for i in range(parts)]
