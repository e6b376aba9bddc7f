"""Turn records into csv, tsv, json, jsonl, markdown or html text."""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence

from ledgerexport.values import format_value, is_number

FORMATS = ("csv", "html", "json", "jsonl", "markdown", "md", "tsv")

Record = dict[str, object]


class UnknownFormatError(ValueError):
    pass


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
    fmt = fmt.lower()
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(cols)
        for rec in records:
            writer.writerow([format_value(rec.get(c)) for c in cols])
        return buf.getvalue()
    elif fmt == "tsv":
        lines = ["\t".join(cols)]
        for rec in records:
            # TSV has no quoting: tabs and newlines inside a value would break the row.
            cells = [format_value(rec.get(c)).replace("\t", " ").replace("\n", " ") for c in cols]
            lines.append("\t".join(cells))
        return "\n".join(lines) + "\n"
    elif fmt == "json":
        rows = [{c: rec.get(c) for c in cols} for rec in records]
        return json.dumps(rows, indent=2, ensure_ascii=False, default=str) + "\n"
    elif fmt == "jsonl":
        out = []
        for rec in records:
            row = {c: rec.get(c) for c in cols}
            out.append(json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=str) + "\n")
        return "".join(out)
    elif fmt == "markdown" or fmt == "md":
        numeric = [bool(records) and all(is_number(r.get(c)) for r in records) for c in cols]
        lines = ["| " + " | ".join(cols) + " |"]
        lines.append("|" + "|".join(" ---: " if num else " --- " for num in numeric) + "|")
        for rec in records:
            cells = [format_value(rec.get(c)).replace("|", "\\|") for c in cols]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"
    elif fmt == "html":
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
    else:
        raise UnknownFormatError(f"unknown format {fmt!r}; choose from: {', '.join(FORMATS)}")
