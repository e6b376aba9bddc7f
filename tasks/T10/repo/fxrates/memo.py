"""`@memoize(cache)`: remember a function's results in a TTLCache."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from fxrates.cache import TTLCache

F = TypeVar("F", bound=Callable[..., Any])

_MISSING = object()


def make_key(args: tuple, kwargs: dict) -> Hashable:
    """The cache key of one call: the positional arguments identify it."""
    return args


def memoize(cache: TTLCache) -> Callable[[F], F]:
    """Cache `fn`'s results in `cache`. Exceptions are not cached: the next call tries again.

    The wrapper gains `.cache` and `.invalidate(*args, **kwargs)` to drop one remembered call.
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = make_key(args, kwargs)
            value = cache.get(key, _MISSING)
            if value is _MISSING:
                value = fn(*args, **kwargs)
                cache.put(key, value)
            return value

        def invalidate(*args: Any, **kwargs: Any) -> bool:
            return cache.invalidate(make_key(args, kwargs))

        wrapper.cache = cache  # type: ignore[attr-defined]
        wrapper.invalidate = invalidate  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
