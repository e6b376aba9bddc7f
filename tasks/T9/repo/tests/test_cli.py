from tasktrack.cli import main


def run(tmp_path, capsys, *argv):
    code = main(["--file", str(tmp_path / "t.json"), *argv])
    return code, capsys.readouterr()


def test_add_list_done(tmp_path, capsys):
    assert run(tmp_path, capsys, "add", "buy milk", "--tag", "home")[0] == 0
    assert run(tmp_path, capsys, "add", "send invoice")[0] == 0
    assert run(tmp_path, capsys, "done", "1")[0] == 0
    code, out = run(tmp_path, capsys, "list", "--all")
    assert code == 0
    assert out.out.splitlines()[1] == "[ ]   2  normal  send invoice"


def test_done_unknown_id(tmp_path, capsys):
    code, out = run(tmp_path, capsys, "done", "7")
    assert code == 1
    assert "no task with id 7" in out.err


def test_high_priority_listed_first(tmp_path, capsys):
    run(tmp_path, capsys, "add", "tidy desk")
    run(tmp_path, capsys, "add", "pay rent", "--priority", "high", "--tag", "home")
    _, out = run(tmp_path, capsys, "list")
    assert out.out.splitlines() == [
        "[ ]   2  high    pay rent  #home",
        "[ ]   1  normal  tidy desk",
    ]
