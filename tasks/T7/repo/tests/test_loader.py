from envfile import dotenv_values, load
from envfile.cli import main


def write(tmp_path, text):
    p = tmp_path / ".env"
    p.write_text(text, encoding="utf-8")
    return p


def test_load_keeps_existing_values(tmp_path):
    env = {"A": "shell"}
    values = load(write(tmp_path, "A=file\nB=2\n"), environ=env)
    assert values == {"A": "file", "B": "2"}
    assert env == {"A": "shell", "B": "2"}


def test_load_override(tmp_path):
    env = {"A": "shell"}
    load(write(tmp_path, "A=file\n"), environ=env, override=True)
    assert env == {"A": "file"}


def test_dotenv_values_does_not_touch_environ(tmp_path, monkeypatch):
    monkeypatch.delenv("ENVFILE_PROBE", raising=False)
    assert dotenv_values(write(tmp_path, "ENVFILE_PROBE=1\n")) == {"ENVFILE_PROBE": "1"}
    import os

    assert "ENVFILE_PROBE" not in os.environ


def test_cli_shell_format(tmp_path, capsys):
    assert main([str(write(tmp_path, "A=x y\n"))]) == 0
    assert capsys.readouterr().out == "export A='x y'\n"


def test_cli_reports_parse_errors(tmp_path, capsys):
    assert main([str(write(tmp_path, "oops\n"))]) == 2
    assert "line 1" in capsys.readouterr().err
