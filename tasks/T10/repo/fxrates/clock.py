"""Clocks. The cache asks a clock for the time so that tests can move time by hand."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]

monotonic: Clock = time.monotonic


class ManualClock:
    """A clock that only moves when told to. Call it to read the time."""

    def __init__(self, start: float = 0.0):
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not go backwards")
        self.now += seconds
