import json

import pytest

from tasktrack import Store, StoreError, Task


def test_task_validation():
    with pytest.raises(ValueError):
        Task(id=0, title="x")
    with pytest.raises(ValueError):
        Task(id=1, title="  ")


def test_round_trip(tmp_path):
    store = Store(tmp_path / "tasks.json")
    tasks = [Task(1, "write report", tags=["work"]), Task(2, "water plants", done=True)]
    store.save(tasks)
    assert store.load() == tasks


def test_missing_file_is_empty(tmp_path):
    assert Store(tmp_path / "nope.json").load() == []


def test_corrupt_file(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text("{not json")
    with pytest.raises(StoreError, match="cannot read"):
        Store(path).load()


def test_priority_is_saved(tmp_path):
    store = Store(tmp_path / "tasks.json")
    store.save([Task(1, "call bank", priority="high")])
    assert store.load()[0].priority == "high"
    assert json.loads((tmp_path / "tasks.json").read_text())["tasks"][0]["priority"] == "high"
