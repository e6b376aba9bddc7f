from versionkit.__main__ import main


def test_sort(capsys):
    assert main(["sort", "1.10.0", "1.2.0", "v1.9.0"]) == 0
    assert capsys.readouterr().out.split() == ["1.2.0", "1.9.0", "1.10.0"]


def test_sort_reverse(capsys):
    assert main(["sort", "--reverse", "1.2.0", "1.10.0"]) == 0
    assert capsys.readouterr().out.split() == ["1.10.0", "1.2.0"]


def test_latest(capsys):
    assert main(["latest", "1.2.0", "1.3.0-beta.1"]) == 0
    assert capsys.readouterr().out.strip() == "1.2.0"
    assert main(["latest", "--pre", "1.2.0", "1.3.0-beta.1"]) == 0
    assert capsys.readouterr().out.strip() == "1.3.0-beta.1"


def test_latest_without_release_exits_1(capsys):
    assert main(["latest", "2.0.0-rc.1"]) == 1
    assert "no release" in capsys.readouterr().err


def test_check(capsys):
    assert main(["check", "~1.2.0", "1.2.7", "1.3.0"]) == 0
    assert capsys.readouterr().out.splitlines() == ["1.2.7\tyes", "1.3.0\tno"]


def test_bad_input_exits_2(capsys):
    assert main(["sort", "1.2"]) == 2
    assert "not a semantic version" in capsys.readouterr().err
    assert main(["check", ">=x", "1.0.0"]) == 2
