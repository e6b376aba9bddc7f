"""The client the services use: rates and conversions, cached."""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Decimal

from fxrates.cache import TTLCache
from fxrates.clock import Clock
from fxrates.memo import memoize

# fetch(base, quote, date=None) -> Decimal; `date` is an ISO day string for historical rates.
Fetcher = Callable[..., Decimal]


class RatesClient:
    def __init__(self, fetch: Fetcher, ttl: float = 300.0, maxsize: int = 256, clock: Clock | None = None):
        self.cache = TTLCache(maxsize=maxsize, ttl=ttl, clock=clock)
        self._fetch = memoize(self.cache)(fetch)

    def rate(self, base: str, quote: str, date: str | None = None) -> Decimal:
        """Units of `quote` for one unit of `base` (today's rate, or the rate of `date`)."""
        base, quote = base.upper(), quote.upper()
        if base == quote:
            return Decimal(1)
        return self._fetch(base, quote, date=date)

    def convert(self, amount: Decimal, base: str, quote: str, date: str | None = None) -> Decimal:
        return (Decimal(amount) * self.rate(base, quote, date=date)).quantize(
            Decimal("0.01"), rounding=ROUND_HALF_EVEN
        )

    def refresh(self, base: str, quote: str, date: str | None = None) -> None:
        """Forget the cached rate so the next call asks the provider again."""
        self._fetch.invalidate(base.upper(), quote.upper(), date=date)
