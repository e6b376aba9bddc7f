import pytest

from fxrates import ManualClock, TTLCache


def test_hit_and_miss():
    cache = TTLCache(maxsize=4, ttl=10, clock=ManualClock())
    assert cache.get("a") is None
    cache.put("a", 1)
    assert cache.get("a") == 1
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)


def test_entry_expires_after_ttl():
    clock = ManualClock()
    cache = TTLCache(maxsize=4, ttl=10, clock=clock)
    cache.put("a", 1)
    clock.advance(5)
    assert cache.get("a") == 1
    clock.advance(6)
    assert cache.get("a", "gone") == "gone"
    assert len(cache) == 0


def test_evicts_oldest_when_full():
    cache = TTLCache(maxsize=2, ttl=10, clock=ManualClock())
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert "a" not in cache
    assert cache.get("b") == 2 and cache.get("c") == 3
    assert cache.stats.evictions == 1


def test_invalidate_and_clear():
    cache = TTLCache(maxsize=4, ttl=10, clock=ManualClock())
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.invalidate("a") is True
    assert cache.invalidate("a") is False
    cache.clear()
    assert len(cache) == 0


def test_bad_settings():
    with pytest.raises(ValueError):
        TTLCache(maxsize=0)
    with pytest.raises(ValueError):
        TTLCache(ttl=0)
