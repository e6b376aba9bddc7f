import json

import pytest

from tasktrack import Store, StoreError, Task
from tasktrack.cli import main


def cli(path, capsys, *argv):
    code = main(["--file", str(path), *argv])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_task_priority_defaults_to_normal():
    assert Task(1, "x").priority == "normal"
    assert Task(2, "y", priority="low").priority == "low"


def test_task_rejects_unknown_priority():
    with pytest.raises(ValueError):
        Task(1, "x", priority="urgent")
    with pytest.raises(ValueError):
        Task(1, "x", priority="HIGH")


def test_saved_file_is_version_2_with_priorities(tmp_path):
    path = tmp_path / "tasks.json"
    tasks = [Task(1, "a", priority="low"), Task(2, "b", tags=["t"]), Task(3, "c", done=True, priority="high")]
    Store(path).save(tasks)
    data = json.loads(path.read_text())
    assert data["version"] == 2
    assert [t["priority"] for t in data["tasks"]] == ["low", "normal", "high"]
    assert Store(path).load() == tasks


def test_version_1_file_loads_as_normal_and_upgrades(tmp_path):
    path = tmp_path / "tasks.json"
    old = {"version": 1, "tasks": [{"id": 4, "title": "old one", "done": False, "tags": ["x"]}]}
    path.write_text(json.dumps(old))
    tasks = Store(path).load()
    assert tasks == [Task(4, "old one", tags=["x"], priority="normal")]
    Store(path).save(tasks)
    data = json.loads(path.read_text())
    assert data["version"] == 2
    assert data["tasks"][0]["priority"] == "normal"


def test_bad_priority_in_file_names_the_task(tmp_path):
    path = tmp_path / "tasks.json"
    bad = {"version": 2, "tasks": [{"id": 1, "title": "ok", "priority": "low"}, {"id": 7, "title": "t", "priority": "asap"}]}
    path.write_text(json.dumps(bad))
    with pytest.raises(StoreError, match="task 7"):
        Store(path).load()


def test_unknown_file_version_still_refused(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"version": 3, "tasks": []}))
    with pytest.raises(StoreError):
        Store(path).load()


def test_cli_add_with_priority_is_stored(tmp_path, capsys):
    path = tmp_path / "t.json"
    assert cli(path, capsys, "add", "file taxes", "--priority", "low")[0] == 0
    assert cli(path, capsys, "add", "plain")[0] == 0
    assert [t.priority for t in Store(path).load()] == ["low", "normal"]


def test_cli_add_rejects_unknown_priority(tmp_path, capsys):
    path = tmp_path / "t.json"
    with pytest.raises(SystemExit) as exc:
        main(["--file", str(path), "add", "x", "--priority", "urgent"])
    assert exc.value.code == 2
    assert Store(path).load() == []


def test_cli_list_line_shows_priority_column(tmp_path, capsys):
    path = tmp_path / "t.json"
    Store(path).save([Task(12, "renew passport", priority="low", tags=["admin", "home"]), Task(3, "done thing", done=True)])
    code, lines, _ = cli(path, capsys, "list", "--all")
    assert code == 0
    assert lines == ["[x]   3  normal  done thing", "[ ]  12  low     renew passport  #admin #home"]


def test_cli_list_orders_high_normal_low_then_id(tmp_path, capsys):
    path = tmp_path / "t.json"
    Store(path).save([
        Task(1, "l1", priority="low"),
        Task(2, "n2"),
        Task(3, "h3", priority="high"),
        Task(4, "l4", priority="low"),
        Task(5, "n5"),
        Task(6, "h6", priority="high"),
    ])
    _, lines, _ = cli(path, capsys, "list")
    assert [line.split()[-1] for line in lines] == ["h3", "h6", "n2", "n5", "l1", "l4"]


def test_cli_list_filters_by_priority(tmp_path, capsys):
    path = tmp_path / "t.json"
    Store(path).save([Task(1, "a", priority="low"), Task(2, "b", priority="high"), Task(3, "c", priority="low", done=True)])
    _, lines, _ = cli(path, capsys, "list", "--priority", "low")
    assert lines == ["[ ]   1  low     a"]
    _, lines, _ = cli(path, capsys, "list", "--priority", "low", "--all")
    assert [line.split()[-1] for line in lines] == ["a", "c"]


def test_cli_prio_changes_priority(tmp_path, capsys):
    path = tmp_path / "t.json"
    Store(path).save([Task(1, "a"), Task(2, "b")])
    assert cli(path, capsys, "prio", "2", "high")[0] == 0
    assert [t.priority for t in Store(path).load()] == ["normal", "high"]
    code, _, err = cli(path, capsys, "prio", "9", "low")
    assert code == 1
    assert "no task with id 9" in err
