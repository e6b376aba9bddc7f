"""A size-bounded cache whose entries expire `ttl` seconds after they were stored."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from fxrates.clock import Clock, monotonic


@dataclass
class _Entry:
    value: Any
    expires_at: float


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    evictions: int = 0


class TTLCache:
    """Least-recently-used cache with a time-to-live.

    Entries live in an OrderedDict, oldest use first, so the entry to evict is always the first one.
    """

    def __init__(self, maxsize: int = 128, ttl: float = 60.0, clock: Clock | None = None):
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        self.maxsize = maxsize
        self.ttl = ttl
        self._clock = clock or monotonic
        self._data: OrderedDict[Hashable, _Entry] = OrderedDict()
        self.stats = CacheStats()

    def get(self, key: Hashable, default: Any = None) -> Any:
        entry = self._data.get(key)
        if entry is None:
            self.stats.misses += 1
            return default
        if self._expired(entry):
            del self._data[key]
            self.stats.misses += 1
            return default
        self._data.move_to_end(key)
        self.stats.hits += 1
        return entry.value

    def put(self, key: Hashable, value: Any) -> None:
        if key in self._data:
            # Replacing needs no room: never evict a neighbour for it.
            self._data.move_to_end(key)
        elif len(self._data) >= self.maxsize:
            self._make_room()
        self._data[key] = _Entry(value, self._clock() + self.ttl)

    def _make_room(self) -> None:
        """Drop expired entries; evict the least recently used live entry only if that freed nothing."""
        now = self._clock()
        for k in [k for k, e in self._data.items() if now >= e.expires_at]:
            del self._data[k]
        if len(self._data) >= self.maxsize:
            self._data.popitem(last=False)
            self.stats.evictions += 1

    def _expired(self, entry: _Entry) -> bool:
        # Expired from the very moment ttl has passed, not one tick later.
        return self._clock() >= entry.expires_at

    def invalidate(self, key: Hashable) -> bool:
        """Drop `key`; True if it was there."""
        return self._data.pop(key, None) is not None

    def clear(self) -> None:
        self._data.clear()

    def __contains__(self, key: Hashable) -> bool:
        entry = self._data.get(key)
        return entry is not None and not self._expired(entry)

    def __len__(self) -> int:
        return len(self._data)
