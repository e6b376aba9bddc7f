import os

import pytest

from csvexport import HeaderMismatchError, MissingColumnsError, concat_exports, export_rows, read_rows


def open_files_under(directory):
    """Paths under `directory` that this process still holds open (Linux /proc), deleted files included."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)):
            found.append(target)
    return found


def bad_rows():
    yield {"id": 1, "total": "1.00"}
    yield {"id": 2, "colour": "red"}


def test_successful_export_writes_and_closes(tmp_path):
    dest = tmp_path / "orders.csv"
    assert export_rows(dest, [{"id": 1, "total": "1.00"}, {"id": 2}], ["id", "total"]) == 2
    assert open_files_under(tmp_path) == []
    assert dest.read_bytes() == b"id,total\r\n1,1.00\r\n2,\r\n"
    assert os.listdir(tmp_path) == ["orders.csv"]


def test_failed_export_closes_its_file(tmp_path):
    with pytest.raises(ValueError) as err:
        export_rows(tmp_path / "orders.csv", bad_rows(), ["id", "total"])
    assert open_files_under(tmp_path) == []
    del err


def test_failed_export_removes_temp_file(tmp_path):
    with pytest.raises(ValueError):
        export_rows(tmp_path / "orders.csv", bad_rows(), ["id", "total"])
    assert os.listdir(tmp_path) == []


def test_failed_export_keeps_old_destination(tmp_path):
    dest = tmp_path / "orders.csv"
    export_rows(dest, [{"id": 7}], ["id"])
    before = dest.read_bytes()
    with pytest.raises(ValueError) as err:
        export_rows(dest, bad_rows(), ["id", "total"])
    assert dest.read_bytes() == before
    assert os.listdir(tmp_path) == ["orders.csv"]
    assert open_files_under(tmp_path) == []
    del err


def test_error_from_rows_iterable_propagates_and_cleans_up(tmp_path):
    class DatabaseGone(Exception):
        pass

    def rows():
        yield {"id": 1}
        raise DatabaseGone("connection reset")

    with pytest.raises(DatabaseGone, match="connection reset") as err:
        export_rows(tmp_path / "orders.csv", rows(), ["id"])
    assert open_files_under(tmp_path) == []
    assert os.listdir(tmp_path) == []
    del err


def test_read_rows_closes_file_on_missing_columns(tmp_path):
    dest = tmp_path / "orders.csv"
    export_rows(dest, [{"id": 1}], ["id"])
    with pytest.raises(MissingColumnsError) as err:
        read_rows(dest, required=["id", "total"])
    assert err.value.missing == ["total"]
    assert open_files_under(tmp_path) == []
    assert read_rows(dest) == [{"id": "1"}]
    assert open_files_under(tmp_path) == []


def test_concat_closes_sources_when_one_is_missing(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    export_rows(a, [{"id": 1}], ["id"])
    export_rows(b, [{"id": 2}], ["id"])
    with pytest.raises(FileNotFoundError) as err:
        concat_exports([a, b, tmp_path / "missing.csv"], tmp_path / "all.csv")
    assert open_files_under(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "b.csv"]
    del err


def test_concat_closes_sources_on_header_mismatch(tmp_path):
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    export_rows(a, [{"id": 1}], ["id"])
    export_rows(b, [{"id": 2}], ["id"])
    export_rows(c, [{"sku": 3}], ["sku"])
    with pytest.raises(HeaderMismatchError) as err:
        concat_exports([a, b, c], tmp_path / "all.csv")
    assert open_files_under(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "b.csv", "c.csv"]
    del err


def test_concat_success_closes_everything(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    export_rows(a, [{"id": 1}], ["id"])
    export_rows(b, [{"id": 2}, {"id": 3}], ["id"])
    assert concat_exports([a, b], tmp_path / "all.csv") == 3
    assert open_files_under(tmp_path) == []
    assert [r["id"] for r in read_rows(tmp_path / "all.csv")] == ["1", "2", "3"]
