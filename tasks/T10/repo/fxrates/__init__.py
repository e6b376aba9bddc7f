"""Exchange rates with a small in-process cache in front of a slow rate provider."""

from fxrates.cache import TTLCache
from fxrates.client import RatesClient
from fxrates.clock import ManualClock
from fxrates.memo import memoize

__all__ = ["ManualClock", "RatesClient", "TTLCache", "memoize"]
