"""Money values: Decimal everywhere, two decimal places on the way out."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
Number = Decimal | int | float | str


def to_decimal(value: Number) -> Decimal:
    """Accept what callers send us (JSON numbers, form strings, Decimals) as a Decimal."""
    if isinstance(value, bool):
        raise TypeError("a bool is not an amount")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        # Decimal(2.675) is the binary value 2.67499999...; the shortest repr is what the sender meant.
        return Decimal(repr(value))
    if isinstance(value, str):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"not a number: {value!r}") from None
    raise TypeError(f"cannot use {type(value).__name__} as an amount")


def round_money(amount: Decimal) -> Decimal:
    """Round to whole cents, half away from zero (commercial rounding, not the banker's default)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def format_money(amount: Decimal, currency: str = "EUR") -> str:
    """"1,234.50 EUR"."""
    return f"{round_money(amount):,.2f} {currency}"
