import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest

import ledgerexport
from ledgerexport import UnknownFormatError, export
from ledgerexport.cli import main

RECORDS = [
    {"date": dt.date(2024, 5, 1), "payee": "Café <Zoë>", "amount": 12.0, "memo": "a|b", "qty": 2},
    {"date": dt.datetime(2024, 5, 2, 9, 30), "payee": "Tab\there", "amount": Decimal("7.125"), "memo": None, "qty": 10},
    {"payee": "Refund & co", "amount": -3.5, "memo": "line1\nline2", "qty": 1, "extra": False},
]
MD_RECORDS = [
    {"payee": "A|B Ltd", "amount": 12.0, "qty": 2, "note": None},
    {"payee": "Shop", "amount": Decimal("7.125"), "qty": 10, "note": True},
]
BUILTIN = ["csv", "html", "json", "jsonl", "markdown", "md", "tsv"]


def fresh(stem):
    # A name no other test (nor a canary twin of this one, run in the same process) has registered.
    return f"{stem}_{uuid.uuid4().hex[:8]}"


def test_csv_and_tsv_output_unchanged():
    assert export(RECORDS, "csv") == (
        "date,payee,amount,memo,qty,extra\r\n"
        "2024-05-01,Café <Zoë>,12.00,a|b,2,\r\n"
        "2024-05-02T09:30:00,Tab\there,7.125,,10,\r\n"
        ',Refund & co,-3.50,"line1\nline2",1,false\r\n'
    )
    assert export(RECORDS, "tsv", columns=["payee", "memo", "extra"]) == (
        "payee\tmemo\textra\nCafé <Zoë>\ta|b\t\nTab here\t\t\nRefund & co\tline1 line2\tfalse\n"
    )


def test_json_and_jsonl_output_unchanged():
    assert export(RECORDS, "json", columns=["date", "amount", "extra"]) == (
        '[\n  {\n    "date": "2024-05-01",\n    "amount": 12.0,\n    "extra": null\n  },\n'
        '  {\n    "date": "2024-05-02 09:30:00",\n    "amount": "7.125",\n    "extra": null\n  },\n'
        '  {\n    "date": null,\n    "amount": -3.5,\n    "extra": false\n  }\n]\n'
    )
    assert export(RECORDS, "jsonl") == (
        '{"date":"2024-05-01","payee":"Café <Zoë>","amount":12.0,"memo":"a|b","qty":2,"extra":null}\n'
        '{"date":"2024-05-02 09:30:00","payee":"Tab\\there","amount":"7.125","memo":null,"qty":10,"extra":null}\n'
        '{"date":null,"payee":"Refund & co","amount":-3.5,"memo":"line1\\nline2","qty":1,"extra":false}\n'
    )


def test_markdown_output_unchanged():
    assert export(MD_RECORDS, "markdown") == (
        "| payee | amount | qty | note |\n"
        "| --- | ---: | ---: | --- |\n"
        "| A\\|B Ltd | 12.00 | 2 |  |\n"
        "| Shop | 7.125 | 10 | true |\n"
    )
    assert export([], "markdown", columns=["a"]) == "| a |\n| --- |\n"


def test_html_output_unchanged():
    assert export(RECORDS[2:], "html", columns=["payee", "amount", "memo"]) == (
        "<table>\n  <thead>\n    <tr>\n      <th>payee</th>\n      <th>amount</th>\n      <th>memo</th>\n"
        "    </tr>\n  </thead>\n  <tbody>\n    <tr>\n      <td>Refund &amp; co</td>\n"
        '      <td class="num">-3.50</td>\n      <td>line1\nline2</td>\n    </tr>\n  </tbody>\n</table>\n'
    )


def test_alias_and_case_insensitive_names_still_work():
    assert export(MD_RECORDS, "md") == export(MD_RECORDS, "markdown")
    assert export(MD_RECORDS, "MarkDown") == export(MD_RECORDS, "markdown")
    assert export(RECORDS, "CSV") == export(RECORDS, "csv")


def test_register_decorator_adds_a_format():
    seen = []

    def pipe_sep(records, columns):
        seen.append((list(records), list(columns)))
        return "\n".join("|".join(str(r.get(c, "")) for c in columns) for r in records)

    name = fresh("pipesep_t8")
    returned = ledgerexport.register(name)(pipe_sep)
    assert returned is pipe_sep
    rows = [{"a": 1, "b": 2}, {"b": 3, "c": 4}]
    assert export(rows, name) == "1|2|\n|3|4"
    assert seen[-1] == (rows, ["a", "b", "c"])
    assert export(rows, name, columns=["c", "a"]) == "|1\n4|"
    assert name in ledgerexport.available_formats()
    assert ledgerexport.get_exporter(name) is pipe_sep


def test_register_with_aliases_case_insensitive():
    tag = uuid.uuid4().hex[:8]

    @ledgerexport.register("Yaml_T8_" + tag, "yml_t8_" + tag)
    def to_yaml(records, columns):
        return "".join(f"- {r}\n" for r in records)

    rows = [{"x": 1}]
    assert export(rows, "yaml_t8_" + tag) == "- {'x': 1}\n"
    assert export(rows, "YML_T8_" + tag.upper()) == "- {'x': 1}\n"
    names = ledgerexport.available_formats()
    assert "yaml_t8_" + tag in names and "yml_t8_" + tag in names


def test_taken_name_is_refused_unless_replace():
    with pytest.raises(ValueError):
        ledgerexport.register("csv")(lambda records, columns: "hijacked")
    with pytest.raises(ValueError):
        ledgerexport.register("brand_new_t8", "HTML")(lambda records, columns: "hijacked")
    assert export([{"a": 1}], "csv") == "a\r\n1\r\n"
    assert export([{"a": 1}], "html").startswith("<table>")

    ledgerexport.register("swap_t8")(lambda records, columns: "first")
    ledgerexport.register("swap_t8", replace=True)(lambda records, columns: "second")
    assert export([], "swap_t8") == "second"


def test_available_formats_sorted_with_builtins():
    names = ledgerexport.available_formats()
    assert names == sorted(names)
    assert set(BUILTIN) <= set(names)


def test_unknown_format_error_lists_registered_formats():
    name = fresh("zz_listed_t8")
    ledgerexport.register(name)(lambda records, columns: "")
    with pytest.raises(UnknownFormatError) as exc:
        export([], "Nope")
    assert isinstance(exc.value, ValueError)
    assert str(exc.value) == "unknown format 'nope'; choose from: " + ", ".join(ledgerexport.available_formats())
    assert name in str(exc.value)
    with pytest.raises(UnknownFormatError):
        ledgerexport.get_exporter("nope")


def test_cli_uses_registered_formats(tmp_path, capsys):
    name = fresh("count_t8")

    @ledgerexport.register(name)
    def count(records, columns):
        return f"{len(records)} records, {len(columns)} columns\n"

    src = tmp_path / "in.json"
    src.write_text(json.dumps([{"a": 1, "b": 2}, {"a": 3}]))
    assert main([str(src), "--format", name.upper()]) == 0
    assert capsys.readouterr().out == "2 records, 2 columns\n"
    assert main(["--list-formats"]) == 0
    listed = capsys.readouterr().out.split()
    assert listed == ledgerexport.available_formats()
    assert name in listed
