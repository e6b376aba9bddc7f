from batchrun import run_batch


def parse(text):
    return int(text)


def test_all_succeed():
    report = run_batch(parse, ["1", "2", "3"], workers=2, timeout=1.0)
    assert report.ok
    assert report.results == {0: 1, 1: 2, 2: 3}
    assert report.summary() == "3/3 succeeded"


def test_failures_are_recorded_not_raised():
    report = run_batch(parse, ["1", "x", "3", "4"], workers=2, timeout=1.0)
    assert not report.ok
    assert report.results == {0: 1, 2: 3, 3: 4}
    assert list(report.errors) == [1]
    assert isinstance(report.errors[1], ValueError)
    assert report.summary().startswith("3/4 succeeded\n  #1: ValueError:")
