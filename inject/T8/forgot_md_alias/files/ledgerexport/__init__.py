"""Export ledger records (lists of flat dicts) to text formats."""

from ledgerexport.exporters import export, infer_columns
from ledgerexport.registry import UnknownFormatError, available_formats, get_exporter, register

__all__ = ["UnknownFormatError", "available_formats", "export", "get_exporter", "infer_columns", "register"]
