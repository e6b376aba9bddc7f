"""Run many small jobs on a fixed set of worker threads."""

from batchrun.job import Job
from batchrun.pool import PoolClosedError, WorkerPool
from batchrun.report import BatchReport, run_batch

__all__ = ["BatchReport", "Job", "PoolClosedError", "WorkerPool", "run_batch"]
