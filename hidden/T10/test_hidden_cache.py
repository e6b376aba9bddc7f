from decimal import Decimal

from fxrates import ManualClock, RatesClient, TTLCache, memoize


class Provider:
    def __init__(self):
        self.calls = []

    def __call__(self, base, quote, date=None):
        self.calls.append((base, quote, date))
        return Decimal(f"1.{len(self.calls):02d}")


def counting(cache):
    calls = []

    @memoize(cache)
    def f(*args, **kwargs):
        calls.append((args, kwargs))
        return len(calls)

    return f, calls


def test_calls_differing_in_a_keyword_do_not_share_an_entry():
    f, calls = counting(TTLCache(maxsize=8, ttl=10, clock=ManualClock()))
    assert f("x", unit="km") == 1
    assert f("x", unit="mi") == 2
    assert f("x") == 3
    assert f("x", unit="km") == 1
    assert len(calls) == 3


def test_keyword_order_does_not_matter():
    f, calls = counting(TTLCache(maxsize=8, ttl=10, clock=ManualClock()))
    assert f(1, a=1, b=2) == 1
    assert f(1, b=2, a=1) == 1
    assert len(calls) == 1


def test_client_keeps_dated_and_latest_rates_apart():
    provider = Provider()
    client = RatesClient(provider, clock=ManualClock())
    latest = client.rate("EUR", "USD")
    dated = client.rate("EUR", "USD", date="2023-06-30")
    other = client.rate("EUR", "USD", date="2023-07-01")
    assert len({latest, dated, other}) == 3
    assert client.rate("EUR", "USD", date="2023-06-30") == dated
    assert client.rate("EUR", "USD") == latest
    assert len(provider.calls) == 3


def test_entry_expires_exactly_at_ttl():
    clock = ManualClock(100.0)
    cache = TTLCache(maxsize=4, ttl=30, clock=clock)
    cache.put("k", "v")
    clock.advance(29.5)
    assert cache.get("k") == "v"
    assert "k" in cache
    clock.advance(0.5)
    assert "k" not in cache
    assert cache.get("k", "miss") == "miss"


def test_client_refetches_once_ttl_has_passed():
    provider = Provider()
    clock = ManualClock()
    client = RatesClient(provider, ttl=60, clock=clock)
    first = client.rate("GBP", "EUR")
    clock.advance(60)
    second = client.rate("GBP", "EUR")
    assert first != second
    assert len(provider.calls) == 2


def test_get_makes_an_entry_most_recently_used():
    cache = TTLCache(maxsize=3, ttl=100, clock=ManualClock())
    for k in "abc":
        cache.put(k, k.upper())
    assert cache.get("a") == "A"
    cache.put("d", "D")
    assert "b" not in cache
    assert all(k in cache for k in "acd")
    assert cache.get("c") == "C"
    cache.put("e", "E")
    assert "a" not in cache
    assert all(k in cache for k in "cde")


def test_put_of_existing_key_evicts_nothing_and_refreshes():
    clock = ManualClock()
    cache = TTLCache(maxsize=2, ttl=10, clock=clock)
    cache.put("a", 1)
    cache.put("b", 2)
    clock.advance(6)
    cache.put("a", 10)
    assert cache.get("b") == 2
    assert cache.get("a") == 10
    assert cache.stats.evictions == 0
    clock.advance(6)
    assert cache.get("b") is None
    assert cache.get("a") == 10


def test_put_of_existing_key_makes_it_most_recently_used():
    cache = TTLCache(maxsize=3, ttl=10, clock=ManualClock())
    for k in "abc":
        cache.put(k, k)
    cache.put("b", "B")
    cache.put("d", "d")
    assert "a" not in cache
    cache.put("e", "e")
    assert "c" not in cache
    assert [cache.get(k) for k in "bde"] == ["B", "d", "e"]


def test_expired_entries_are_dropped_before_evicting_live_ones():
    clock = ManualClock()
    cache = TTLCache(maxsize=3, ttl=10, clock=clock)
    cache.put("old", 1)
    clock.advance(5)
    cache.put("live1", 2)
    cache.put("live2", 3)
    assert cache.get("old") == 1
    clock.advance(5)
    cache.put("new", 4)
    assert cache.get("live1") == 2
    assert cache.get("live2") == 3
    assert cache.get("new") == 4
    assert cache.stats.evictions == 0


def test_refresh_drops_only_that_rate():
    provider = Provider()
    client = RatesClient(provider, clock=ManualClock())
    latest = client.rate("EUR", "USD")
    dated = client.rate("EUR", "USD", date="2023-06-30")
    client.refresh("eur", "usd", date="2023-06-30")
    assert client.rate("EUR", "USD") == latest
    assert client.rate("EUR", "USD", date="2023-06-30") != dated
    assert len(provider.calls) == 3


def test_memoize_invalidate_with_keywords():
    f, _ = counting(TTLCache(maxsize=8, ttl=10, clock=ManualClock()))
    f("x", unit="km")
    f("x", unit="mi")
    assert f.invalidate("x", unit="km") is True
    assert f("x", unit="mi") == 2
    assert f("x", unit="km") == 3
