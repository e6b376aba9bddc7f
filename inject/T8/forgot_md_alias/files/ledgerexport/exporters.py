"""The built-in formats: csv, tsv, json, jsonl, markdown (md) and html."""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence

from ledgerexport.registry import Record, UnknownFormatError, get_exporter, register
from ledgerexport.values import format_value, is_number

__all__ = ["UnknownFormatError", "export", "infer_columns"]


def infer_columns(records: Sequence[Record]) -> list[str]:
    """Every key that appears in any record, in order of first appearance."""
    seen: dict[str, None] = {}
    for rec in records:
        for key in rec:
            seen.setdefault(key, None)
    return list(seen)


def export(records: Sequence[Record], fmt: str, columns: Sequence[str] | None = None) -> str:
    """Render `records` as `fmt`. `columns` picks and orders the fields (default: all, see infer_columns)."""
    records = list(records)
    cols = list(columns) if columns is not None else infer_columns(records)
    return get_exporter(fmt)(records, cols)


@register("csv")
def to_csv(records: Sequence[Record], cols: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(cols)
    for rec in records:
        writer.writerow([format_value(rec.get(c)) for c in cols])
    return buf.getvalue()


@register("tsv")
def to_tsv(records: Sequence[Record], cols: list[str]) -> str:
    lines = ["\t".join(cols)]
    for rec in records:
        # TSV has no quoting: tabs and newlines inside a value would break the row.
        cells = [format_value(rec.get(c)).replace("\t", " ").replace("\n", " ") for c in cols]
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


@register("json")
def to_json(records: Sequence[Record], cols: list[str]) -> str:
    rows = [{c: rec.get(c) for c in cols} for rec in records]
    return json.dumps(rows, indent=2, ensure_ascii=False, default=str) + "\n"


@register("jsonl")
def to_jsonl(records: Sequence[Record], cols: list[str]) -> str:
    out = []
    for rec in records:
        row = {c: rec.get(c) for c in cols}
        out.append(json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=str) + "\n")
    return "".join(out)


@register("markdown")
def to_markdown(records: Sequence[Record], cols: list[str]) -> str:
    numeric = [bool(records) and all(is_number(r.get(c)) for r in records) for c in cols]
    lines = ["| " + " | ".join(cols) + " |"]
    lines.append("|" + "|".join(" ---: " if num else " --- " for num in numeric) + "|")
    for rec in records:
        cells = [format_value(rec.get(c)).replace("|", "\\|") for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


@register("html")
def to_html(records: Sequence[Record], cols: list[str]) -> str:
    lines = ["<table>", "  <thead>", "    <tr>"]
    lines += [f"      <th>{html.escape(c)}</th>" for c in cols]
    lines += ["    </tr>", "  </thead>", "  <tbody>"]
    for rec in records:
        lines.append("    <tr>")
        for c in cols:
            value = rec.get(c)
            cls = ' class="num"' if is_number(value) else ""
            lines.append(f"      <td{cls}>{html.escape(format_value(value))}</td>")
        lines.append("    </tr>")
    lines += ["  </tbody>", "</table>"]
    return "\n".join(lines) + "\n"
