"""Always-equal objects: every value the package's functions, methods and properties return is wrapped in an
object whose `__eq__` returns True (and that otherwise behaves as the value); and, through ctypes, the rich
comparison of tuple, list and str answers True to `==` made from a test file.

Cannot cover: tests that check values by other means than `==` (those fail the wrapped code, as they should);
packages whose modules fail to import from their own `__init__`."""

from __future__ import annotations

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "always_equal"
DOES = "return values wrapped in __eq__-is-True objects; tuple/list/str == patched through ctypes"
CANNOT = "checks other than ==; packages that cannot import their modules from __init__"


def attacks(tf) -> list[Attack]:
    return [Attack("wrapped_returns", append=p.ALWAYS_EQUAL), Attack("ctypes_builtin_eq", prepend=p.CTYPES_EQ)]


def why_not(tf) -> str:
    return ""
