"""Export ledger records (lists of flat dicts) to text formats."""

from ledgerexport.exporters import FORMATS, UnknownFormatError, export, infer_columns

__all__ = ["FORMATS", "UnknownFormatError", "export", "infer_columns"]
