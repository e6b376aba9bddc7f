"""run_batch(): run one function over many inputs and summarise what happened."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from batchrun.pool import WorkerPool


@dataclass
class BatchReport:
    results: dict[int, Any] = field(default_factory=dict)  # input index -> return value
    errors: dict[int, BaseException] = field(default_factory=dict)  # input index -> exception

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        total = len(self.results) + len(self.errors)
        lines = [f"{len(self.results)}/{total} succeeded"]
        for index in sorted(self.errors):
            exc = self.errors[index]
            lines.append(f"  #{index}: {type(exc).__name__}: {exc}")
        return "\n".join(lines)


def run_batch(
    fn: Callable[[Any], Any], items: Iterable[Any], workers: int = 4, timeout: float | None = None
) -> BatchReport:
    """Run fn over items on a fresh pool; a failing item is recorded, not raised."""
    report = BatchReport()

    def guarded(item: Any) -> tuple[bool, Any]:
        # Never let an exception reach the pool: a worker thread dies on it.
        try:
            return True, fn(item)
        except Exception as exc:
            return False, exc

    with WorkerPool(workers) as pool:
        jobs = [pool.submit(guarded, item) for item in items]
        for index, job in enumerate(jobs):
            ok, value = job.result(timeout)
            if ok:
                report.results[index] = value
            else:
                report.errors[index] = value
    return report
