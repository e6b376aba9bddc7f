"""invoicer: invoice arithmetic for the billing service (net, VAT, totals, splitting a bill)."""

from invoicer.invoice import Invoice, Line
from invoicer.money import format_money, round_money, to_decimal
from invoicer.render import render_invoice
from invoicer.split import split_evenly

__all__ = ["Invoice", "Line", "format_money", "render_invoice", "round_money", "split_evenly", "to_decimal"]
