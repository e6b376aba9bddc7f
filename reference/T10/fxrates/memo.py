"""`@memoize(cache)`: remember a function's results in a TTLCache."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from fxrates.cache import TTLCache

F = TypeVar("F", bound=Callable[..., Any])

_MISSING = object()


def make_key(args: tuple, kwargs: dict) -> Hashable:
    """The cache key of one call: positional arguments, then keyword arguments by name.

    Sorting the keywords makes f(a=1, b=2) and f(b=2, a=1) the same call.
    """
    return (args, tuple(sorted(kwargs.items())))


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
