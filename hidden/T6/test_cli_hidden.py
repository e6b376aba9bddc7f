import json

import pytest

from logsum.cli import main

LOG = """\
10.0.0.1 - - [10/Oct/2023:13:55:36 -0700] "GET /index.html HTTP/1.1" 200 1000
10.0.0.2 - - [10/Oct/2023:22:10:00 +0200] "GET /b HTTP/1.1" 200 100
10.0.0.3 - - [11/Oct/2023:00:30:00 +0200] "GET /a HTTP/1.1" 404 10
10.0.0.4 - - [10/Oct/2023:23:59:59 +0000] "GET /a HTTP/1.1" 500 0
garbage line
10.0.0.5 - - [11/Oct/2023:01:00:00 +0000] "POST /b HTTP/1.1" 301 -
10.0.0.6 - - [10/Oct/2023:19:00:00 -0700] "GET /c HTTP/1.1" 200 5
"""
# The same instants in UTC: 1 20:55:36Z, 2 20:10Z, 3 22:30Z, 4 23:59:59Z (all Oct 10), 5 01:00Z, 6 02:00Z (Oct 11).


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "access.log"
    path.write_text(LOG, encoding="utf-8")
    return str(path)


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code or 0, out, err


def run_json(argv, capsys):
    code, out, err = run([*argv, "--format", "json"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_default_text_output_unchanged(log, capsys):
    code, out, _ = run([log, "--top", "3"], capsys)
    assert code == 0
    assert out == (
        "requests: 6\nbytes: 1115\nskipped: 1\nstatus:\n  200  3\n  301  1\n  404  1\n  500  1\n"
        "top paths:\n      2  /a\n      2  /b\n      1  /c\n"
    )
    assert run([log, "--top", "3", "--format", "text"], capsys)[1] == out


def test_json_has_every_field(log, capsys):
    assert run_json([log], capsys) == {
        "requests": 6,
        "bytes": 1115,
        "skipped": 1,
        "status": {"200": 3, "301": 1, "404": 1, "500": 1},
        "top_paths": [
            {"path": "/a", "count": 2},
            {"path": "/b", "count": 2},
            {"path": "/c", "count": 1},
            {"path": "/index.html", "count": 1},
        ],
    }


def test_json_status_codes_sorted(log, capsys):
    assert list(run_json([log], capsys)["status"]) == ["200", "301", "404", "500"]


def test_json_top_paths_follow_top(log, capsys):
    assert run_json([log, "--top", "1"], capsys)["top_paths"] == [{"path": "/a", "count": 2}]
    assert [p["path"] for p in run_json([log, "--top", "3"], capsys)["top_paths"]] == ["/a", "/b", "/c"]


def test_json_with_nothing_to_count(tmp_path, capsys):
    empty = tmp_path / "empty.log"
    empty.write_text("", encoding="utf-8")
    code, out, err = run([str(empty), "--format", "json"], capsys)
    assert code == 0 and err == ""
    assert json.loads(out) == {"requests": 0, "bytes": 0, "skipped": 0, "status": {}, "top_paths": []}


def test_since_bare_date_is_midnight_utc(log, capsys):
    data = run_json([log, "--since", "2023-10-11"], capsys)
    assert data["requests"] == 2
    assert data["status"] == {"200": 1, "301": 1}
    assert data["top_paths"] == [{"path": "/b", "count": 1}, {"path": "/c", "count": 1}]


def test_since_is_inclusive(log, capsys):
    data = run_json([log, "--since", "2023-10-10T20:55:36Z"], capsys)
    assert data["requests"] == 5
    assert data["bytes"] == 1015


def test_since_compares_instants_across_offsets(log, capsys):
    data = run_json([log, "--since", "2023-10-11T00:00:00+02:00"], capsys)
    assert data["requests"] == 4
    assert data["status"] == {"200": 1, "301": 1, "404": 1, "500": 1}
    data = run_json([log, "--since", "2023-10-10T14:00-07:00"], capsys)
    assert data["requests"] == 4


def test_since_without_offset_is_utc(log, capsys):
    data = run_json([log, "--since", "2023-10-10T23:00"], capsys)
    assert data["requests"] == 3
    assert data["status"] == {"200": 1, "301": 1, "500": 1}


def test_invalid_since_is_a_usage_error(log, capsys):
    code, out, err = run([log, "--since", "last tuesday"], capsys)
    assert code == 2
    assert "--since" in err
    assert out == ""


def test_since_does_not_count_as_skipped(log, capsys):
    data = run_json([log, "--since", "2023-10-11T01:00:00Z"], capsys)
    assert (data["requests"], data["skipped"]) == (2, 1)
    code, out, _ = run([log, "--since", "2030-01-01"], capsys)
    assert (code, out) == (0, "no requests (skipped: 1)\n")
