from decimal import Decimal

import pytest

from invoicer import Invoice, render_invoice, to_decimal


def test_line_net_is_quantity_times_price():
    inv = Invoice("T-1")
    line = inv.add("Widget", 4, "2.50", "0.19")
    assert line.net == Decimal("10.00")


def test_line_net_rounds_half_up():
    inv = Invoice("T-2")
    line = inv.add("Screws", 3, "0.335", "0.19")
    assert line.net == Decimal("1.01")


def test_single_line_vat_and_total():
    inv = Invoice("T-3")
    inv.add("Consulting", 1, "100.00", "0.19")
    assert inv.vat_by_rate() == {Decimal("0.19"): Decimal("19.00")}
    assert inv.total == Decimal("119.00")


def test_render_lists_totals():
    inv = Invoice("T-4")
    inv.add("Consulting", 2, "100.00", "0.19")
    text = render_invoice(inv)
    assert "Invoice T-4" in text
    assert "VAT 19 %" in text
    assert text.rstrip().endswith("238.00 EUR")


def test_bad_amount_rejected():
    with pytest.raises(ValueError):
        to_decimal("12,50")
