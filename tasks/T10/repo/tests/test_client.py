from decimal import Decimal

from fxrates import ManualClock, RatesClient, TTLCache, memoize


class FakeProvider:
    def __init__(self):
        self.calls = []

    def __call__(self, base, quote, date=None):
        self.calls.append((base, quote, date))
        table = {("EUR", "USD", None): "1.0850", ("EUR", "USD", "2024-01-02"): "1.0940", ("USD", "JPY", None): "151.20"}
        return Decimal(table[(base, quote, date)])


def test_rate_is_cached():
    provider = FakeProvider()
    client = RatesClient(provider, clock=ManualClock())
    assert client.rate("eur", "usd") == Decimal("1.0850")
    assert client.rate("EUR", "USD") == Decimal("1.0850")
    assert len(provider.calls) == 1


def test_same_currency_needs_no_provider():
    provider = FakeProvider()
    assert RatesClient(provider).rate("CHF", "chf") == 1
    assert provider.calls == []


def test_convert_rounds_to_cents():
    client = RatesClient(FakeProvider(), clock=ManualClock())
    assert client.convert(Decimal("10"), "USD", "JPY") == Decimal("1512.00")


def test_historical_rate_is_not_todays_rate():
    provider = FakeProvider()
    client = RatesClient(provider, clock=ManualClock())
    assert client.rate("EUR", "USD") == Decimal("1.0850")
    assert client.rate("EUR", "USD", date="2024-01-02") == Decimal("1.0940")


def test_memoize_does_not_cache_errors():
    calls = []

    @memoize(TTLCache(clock=ManualClock()))
    def flaky(x):
        calls.append(x)
        if len(calls) == 1:
            raise RuntimeError("provider down")
        return x * 2

    try:
        flaky(2)
    except RuntimeError:
        pass
    assert flaky(2) == 4
    assert calls == [2, 2]
