import threading

import pytest

from batchrun import PoolClosedError, WorkerPool

WAIT = 1.0  # generous: only reached when something is broken


@pytest.fixture
def pool():
    p = WorkerPool(workers=2)
    yield p
    p.shutdown(wait=True, timeout=WAIT)


def test_submit_and_result(pool):
    job = pool.submit(pow, 2, 10)
    assert job.result(timeout=WAIT) == 1024
    assert job.done()
    assert job.exception(timeout=WAIT) is None


def test_keyword_arguments(pool):
    assert pool.submit(int, "ff", base=16).result(timeout=WAIT) == 255


def test_map_keeps_input_order(pool):
    assert pool.map(lambda x: x * x, range(10), timeout=WAIT) == [x * x for x in range(10)]


def test_join_waits_for_running_jobs(pool):
    release = threading.Event()
    job = pool.submit(release.wait, WAIT)
    assert pool.join(timeout=0.05) is False
    release.set()
    assert pool.join(timeout=WAIT) is True
    assert job.done()


def test_result_timeout(pool):
    release = threading.Event()
    job = pool.submit(release.wait, WAIT)
    with pytest.raises(TimeoutError):
        job.result(timeout=0.01)
    release.set()


def test_closed_pool_refuses_jobs():
    p = WorkerPool(workers=1)
    p.shutdown()
    with pytest.raises(PoolClosedError):
        p.submit(print)


def test_failing_job_reraises(pool):
    def boom():
        raise ValueError("bad row")

    with pytest.raises(ValueError, match="bad row"):
        pool.submit(boom).result(timeout=WAIT)
