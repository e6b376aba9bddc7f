import datetime as dt

import pytest

from ledgerexport import UnknownFormatError, export, infer_columns

RECORDS = [
    {"date": dt.date(2024, 3, 1), "payee": "Bakery", "amount": 4.5, "cleared": True},
    {"date": dt.date(2024, 3, 2), "payee": "Rent, March", "amount": 950.0, "cleared": False},
]


def test_infer_columns_in_first_seen_order():
    assert infer_columns([{"b": 1}, {"a": 2, "b": 3}, {"c": 4}]) == ["b", "a", "c"]


def test_csv():
    assert export(RECORDS, "csv") == (
        "date,payee,amount,cleared\r\n"
        "2024-03-01,Bakery,4.50,true\r\n"
        '2024-03-02,"Rent, March",950.00,false\r\n'
    )


def test_tsv_with_selected_columns():
    assert export(RECORDS, "tsv", columns=["payee", "amount"]) == "payee\tamount\nBakery\t4.50\nRent, March\t950.00\n"


def test_json_keeps_native_types():
    assert export([{"n": 1, "note": None}], "json") == '[\n  {\n    "n": 1,\n    "note": null\n  }\n]'


def test_markdown():
    assert export([{"payee": "Bakery", "memo": "bread"}], "markdown") == (
        "| payee | memo |\n| --- | --- |\n| Bakery | bread |\n"
    )


def test_missing_values_are_blank():
    assert export([{"a": 1}, {"b": 2}], "csv") == "a,b\r\n1,\r\n,2\r\n"


def test_unknown_format():
    with pytest.raises(UnknownFormatError, match="unknown format 'xml'"):
        export(RECORDS, "xml")
