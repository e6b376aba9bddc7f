import json

import pytest

from logsum.cli import main

LOG = """\
203.0.113.5 - - [10/Oct/2023:13:55:36 -0700] "GET /index.html HTTP/1.1" 200 2326
203.0.113.9 - - [10/Oct/2023:13:56:01 -0700] "GET /about HTTP/1.1" 200 1200
198.51.100.2 - - [11/Oct/2023:09:12:44 -0700] "GET /index.html HTTP/1.1" 304 -
this is not a log line
198.51.100.7 - - [12/Oct/2023:18:00:00 -0700] "POST /login HTTP/1.1" 404 512
"""


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "access.log"
    path.write_text(LOG, encoding="utf-8")
    return str(path)


def test_text_summary(log, capsys):
    assert main([log, "--top", "2"]) == 0
    assert capsys.readouterr().out == (
        "requests: 4\n"
        "bytes: 4038\n"
        "skipped: 1\n"
        "status:\n"
        "  200  2\n"
        "  304  1\n"
        "  404  1\n"
        "top paths:\n"
        "      2  /index.html\n"
        "      1  /about\n"
    )


def test_missing_file(tmp_path, capsys):
    assert main([str(tmp_path / "nope.log")]) == 1
    assert "nope.log" in capsys.readouterr().err


def test_json_format(log, capsys):
    assert main([log, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["requests"] == 4
    assert data["bytes"] == 4038


def test_since_date(log, capsys):
    assert main([log, "--since", "2023-10-12"]) == 0
    assert capsys.readouterr().out.startswith("requests: 1\n")
