import json

from ledgerexport.cli import main


def test_cli_csv_to_stdout(tmp_path, capsys):
    src = tmp_path / "in.json"
    src.write_text(json.dumps([{"payee": "Bakery", "amount": 4.5}]))
    assert main([str(src), "--format", "csv", "--columns", "amount,payee"]) == 0
    assert capsys.readouterr().out == "amount,payee\r\n4.50,Bakery\r\n"


def test_cli_writes_output_file(tmp_path):
    src = tmp_path / "in.json"
    src.write_text(json.dumps([{"a": "x"}]))
    out = tmp_path / "out.tsv"
    assert main([str(src), "-f", "tsv", "-o", str(out)]) == 0
    assert out.read_text() == "a\nx\n"


def test_cli_rejects_bad_input(tmp_path, capsys):
    src = tmp_path / "in.json"
    src.write_text('{"not": "a list"}')
    assert main([str(src)]) == 1
    assert "expected a JSON list" in capsys.readouterr().err
