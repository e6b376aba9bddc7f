"""A submitted job: its function, and later its result or its exception."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("batchrun")


class Job:
    """Handed out by WorkerPool.submit(); a small Future.

    The pool's worker calls `_finish` exactly once. Readers block on the `_done` event.
    """

    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict):
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self._done = threading.Event()
        # Guards _callbacks against the worker finishing while a caller adds a callback.
        self._lock = threading.Lock()
        self._result: Any = None
        self._exc: BaseException | None = None
        self._callbacks: list[Callable[[Job], None]] = []

    def done(self) -> bool:
        return self._done.is_set()

    def result(self, timeout: float | None = None) -> Any:
        """The job's return value; re-raises the job's exception. TimeoutError if not done in time."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"job {self.fn.__name__} not finished after {timeout}s")
        if self._exc is not None:
            raise self._exc
        return self._result

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The exception the job raised, or None if it succeeded. TimeoutError if not done in time."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"job {self.fn.__name__} not finished after {timeout}s")
        return self._exc

    def add_done_callback(self, fn: Callable[[Job], None]) -> None:
        """Call `fn(job)` once the job finishes; right now, in this thread, if it already has."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(fn)
                return
        _call(fn, self)

    def _finish(self, result: Any, exc: BaseException | None) -> None:
        with self._lock:
            self._result = result
            self._exc = exc
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            _call(cb, self)


def _call(cb: Callable[[Job], None], job: Job) -> None:
    # A broken callback is the caller's bug; it must not take the worker thread down with it.
    try:
        cb(job)
    except Exception:
        log.exception("done-callback %r of job %s raised", cb, job.fn.__name__)
