import threading

import pytest

from batchrun import WorkerPool

WAIT = 0.5  # only ever reached when something is broken: keeps a broken pool from hanging the oracle


@pytest.fixture
def make_pool():
    pools = []

    def make(workers):
        p = WorkerPool(workers=workers)
        pools.append(p)
        return p

    yield make
    for p in pools:
        p.shutdown(wait=True, timeout=WAIT)


class Boom(Exception):
    pass


def fail(message="boom"):
    raise Boom(message)


def test_failed_job_reraises_the_same_exception(make_pool):
    pool = make_pool(2)
    err = Boom("row 17")

    def raise_err():
        raise err

    job = pool.submit(raise_err)
    with pytest.raises(Boom) as exc:
        job.result(timeout=WAIT)
    assert exc.value is err
    assert job.exception(timeout=WAIT) is err
    assert job.done()


def test_single_worker_keeps_running_after_failures(make_pool):
    pool = make_pool(1)
    bad = [pool.submit(fail) for _ in range(3)]
    good = pool.submit(lambda: "still here")
    assert good.result(timeout=WAIT) == "still here"
    assert all(isinstance(j.exception(timeout=WAIT), Boom) for j in bad)


def test_no_worker_is_lost_to_failures(make_pool):
    pool = make_pool(3)
    jobs = [pool.submit(fail) for _ in range(9)]
    assert pool.join(timeout=WAIT) is True
    assert all(j.done() for j in jobs)
    assert pool.alive_workers() == 3


def test_join_counts_failed_jobs_as_finished(make_pool):
    pool = make_pool(2)
    release = threading.Event()
    pool.submit(fail)
    blocker = pool.submit(release.wait, WAIT)
    assert pool.join(timeout=0.05) is False
    release.set()
    assert pool.join(timeout=WAIT) is True
    assert blocker.result(timeout=WAIT) is True


def test_stats_count_successes_and_failures(make_pool):
    pool = make_pool(2)
    for i in range(5):
        if i % 2:
            pool.submit(fail)
        else:
            pool.submit(abs, -i)
    assert pool.join(timeout=WAIT) is True
    assert pool.stats == {"submitted": 5, "succeeded": 3, "failed": 2}


def test_map_raises_earliest_failing_item_in_input_order(make_pool):
    pool = make_pool(4)
    item3_failed = threading.Event()

    def work(i):
        if i == 1:
            # Fails only after item 3 has failed, so "first to fail" and "first in order" differ.
            item3_failed.wait(WAIT)
            raise Boom("item 1")
        if i == 3:
            item3_failed.set()
            raise Boom("item 3")
        return i

    with pytest.raises(Boom, match="item 1"):
        pool.map(work, range(4), timeout=WAIT)
    assert pool.map(lambda x: -x, [3, 1, 2], timeout=WAIT) == [-3, -1, -2]


def test_callbacks_fire_once_for_success_and_failure(make_pool):
    pool = make_pool(2)
    release = threading.Event()
    seen = []
    ok = pool.submit(lambda: release.wait(WAIT) and "ok")
    bad = pool.submit(lambda: release.wait(WAIT) and fail("late"))
    ok.add_done_callback(lambda j: seen.append(("ok", j.result())))
    bad.add_done_callback(lambda j: seen.append(("bad", str(j.exception()))))
    release.set()
    assert pool.join(timeout=WAIT) is True
    assert sorted(seen) == [("bad", "late"), ("ok", "ok")]


def test_callback_added_after_finish_runs_immediately(make_pool):
    pool = make_pool(1)
    ok = pool.submit(lambda: 5)
    bad = pool.submit(fail)
    assert pool.join(timeout=WAIT) is True
    seen = []
    ok.add_done_callback(lambda j: seen.append((threading.current_thread().name, j.result())))
    bad.add_done_callback(lambda j: seen.append((threading.current_thread().name, type(j.exception()).__name__)))
    me = threading.current_thread().name
    assert seen == [(me, 5), (me, "Boom")]


def test_raising_callback_does_not_break_worker_or_other_callbacks(make_pool):
    pool = make_pool(1)
    release = threading.Event()
    seen = []
    first = pool.submit(release.wait, WAIT)

    def broken(job):
        raise RuntimeError("callback bug")

    first.add_done_callback(broken)
    first.add_done_callback(lambda j: seen.append("second callback"))
    release.set()
    assert first.result(timeout=WAIT) is True
    assert pool.submit(lambda: "next job").result(timeout=WAIT) == "next job"
    assert seen == ["second callback"]
    assert pool.alive_workers() == 1


def test_shutdown_after_failures_stops_every_worker():
    pool = WorkerPool(workers=2)
    for _ in range(4):
        pool.submit(fail)
    last = pool.submit(lambda: "drained")
    pool.shutdown(wait=True, timeout=WAIT)
    assert last.result(timeout=0) == "drained"
    assert pool.alive_workers() == 0
    assert pool.stats["failed"] == 4 and pool.stats["succeeded"] == 1
