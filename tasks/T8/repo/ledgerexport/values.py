"""How one cell value is written in the text formats (everything but JSON)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal


def format_value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        # Ledgers hold money: two decimals, no scientific notation.
        return f"{value:.2f}"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def is_number(value: object) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)
