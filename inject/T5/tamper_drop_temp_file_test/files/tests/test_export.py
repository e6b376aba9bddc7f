import os

import pytest

from csvexport import HeaderMismatchError, MissingColumnsError, concat_exports, export_rows, read_rows


def test_round_trip(tmp_path):
    dest = tmp_path / "orders.csv"
    n = export_rows(dest, [{"id": 1, "total": "9.99"}, {"id": 2}], ["id", "total"])
    assert n == 2
    assert read_rows(dest) == [{"id": "1", "total": "9.99"}, {"id": "2", "total": ""}]
    assert os.listdir(tmp_path) == ["orders.csv"]


def test_unknown_key_is_an_error(tmp_path):
    with pytest.raises(ValueError):
        export_rows(tmp_path / "orders.csv", [{"id": 1, "colour": "red"}], ["id"])


def test_required_columns(tmp_path):
    dest = tmp_path / "orders.csv"
    export_rows(dest, [{"id": 1}], ["id"])
    with pytest.raises(MissingColumnsError) as err:
        read_rows(dest, required=["id", "total"])
    assert err.value.missing == ["total"]


def test_concat(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    export_rows(a, [{"id": 1}], ["id"])
    export_rows(b, [{"id": 2}, {"id": 3}], ["id"])
    assert concat_exports([a, b], tmp_path / "all.csv") == 3
    assert [r["id"] for r in read_rows(tmp_path / "all.csv")] == ["1", "2", "3"]


def test_concat_refuses_different_headers(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    export_rows(a, [{"id": 1}], ["id"])
    export_rows(b, [{"sku": 2}], ["sku"])
    with pytest.raises(HeaderMismatchError):
        concat_exports([a, b], tmp_path / "all.csv")
