"""WorkerPool: N daemon threads taking jobs from one queue."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from typing import Any

from batchrun.job import Job

_STOP = None  # queue sentinel: one per worker at shutdown


class PoolClosedError(RuntimeError):
    pass


class WorkerPool:
    def __init__(self, workers: int = 4, name: str = "batchrun"):
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._pending = 0
        self._closed = False
        self.stats = {"submitted": 0, "succeeded": 0, "failed": 0}
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(workers)
        ]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Job:
        job = Job(fn, args, kwargs)
        with self._lock:
            if self._closed:
                raise PoolClosedError("pool is shut down")
            self._pending += 1
            self.stats["submitted"] += 1
        self._queue.put(job)
        return job

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any], timeout: float | None = None) -> list[Any]:
        """fn(item) for every item, run on the pool; results in input order."""
        jobs = [self.submit(fn, item) for item in items]
        return [job.result(timeout) for job in jobs]

    def join(self, timeout: float | None = None) -> bool:
        """Wait until every submitted job has finished. False if `timeout` passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def alive_workers(self) -> int:
        """How many worker threads are running (the health check reports this)."""
        return sum(t.is_alive() for t in self._threads)

    def shutdown(self, wait: bool = True, timeout: float | None = None) -> None:
        """Refuse new jobs; workers finish the queue, then stop."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for _ in self._threads:
            self._queue.put(_STOP)
        if wait:
            for t in self._threads:
                t.join(timeout)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown(wait=True)

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is _STOP:
                return
            try:
                result = job.fn(*job.args, **job.kwargs)
            except Exception as exc:
                job._finish(None, exc)
                with self._lock:
                    self.stats["failed"] += 1
                continue
            job._finish(result, None)
            with self._lock:
                self.stats["succeeded"] += 1
                self._pending -= 1
                if self._pending == 0:
                    self._idle.notify_all()
