"""csvexport: atomic CSV exports for the nightly reporting jobs."""

from csvexport.export import (
    ExportError,
    HeaderMismatchError,
    MissingColumnsError,
    concat_exports,
    export_rows,
    read_rows,
)

__all__ = [
    "ExportError",
    "HeaderMismatchError",
    "MissingColumnsError",
    "concat_exports",
    "export_rows",
    "read_rows",
]
