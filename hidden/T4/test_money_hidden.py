from decimal import Decimal as D

import pytest

from invoicer import Invoice, render_invoice, round_money, split_evenly, to_decimal


def test_round_money_is_half_up():
    assert round_money(D("0.125")) == D("0.13")
    assert round_money(D("2.665")) == D("2.67")
    assert round_money(D("1.004")) == D("1.00")
    assert round_money(D("-0.005")) == D("-0.01")
    assert round_money(D("-2.665")) == D("-2.67")


def test_float_inputs_mean_their_shortest_repr():
    assert to_decimal(2.675) == D("2.675")
    assert to_decimal(0.1) == D("0.1")
    inv = Invoice("H-1")
    assert inv.add("Cable", 1, 2.675, 0.19).net == D("2.68")
    assert inv.add("Plug", 3, 1.115, 0.19).net == D("3.35")


def test_each_line_is_rounded_once():
    inv = Invoice("H-2")
    inv.add("Washer", 1, "0.005", "0.19")
    inv.add("Washer", 1, "0.005", "0.19")
    inv.add("Hours", "2.5", "0.125", "0.19")
    assert [line.net for line in inv.lines] == [D("0.01"), D("0.01"), D("0.31")]
    assert inv.net_total == D("0.33")


def test_vat_is_rounded_once_per_rate():
    inv = Invoice("H-3")
    for _ in range(4):
        inv.add("Bread", 1, "0.50", "0.07")
    assert inv.vat_by_rate() == {D("0.07"): D("0.14")}
    assert inv.total == D("2.14")


def test_mixed_rates_each_on_their_own_net():
    inv = Invoice("H-4")
    for _ in range(3):
        inv.add("Pen", 1, "1.05", "0.19")
    for _ in range(5):
        inv.add("Book", 1, "0.30", "0.07")
    assert inv.vat_by_rate() == {D("0.07"): D("0.11"), D("0.19"): D("0.60")}
    text = render_invoice(inv)
    assert "VAT 7 %" in text and "0.11 EUR" in text


def test_total_is_net_plus_vat():
    inv = Invoice("H-5")
    inv.add("Consulting (hours)", "7.5", "120.00", "0.19")
    inv.add("Taxi", 1, "23.45", "0.07")
    inv.add("Taxi", 1, "18.15", "0.07")
    inv.add("Parking", 3, "1.15", "0.07")
    assert inv.net_total == D("945.05")
    assert inv.vat_by_rate() == {D("0.07"): D("3.15"), D("0.19"): D("171.00")}
    assert inv.total == D("1119.20")


def test_split_adds_up_larger_parts_first():
    assert split_evenly("100.00", 3) == [D("33.34"), D("33.33"), D("33.33")]
    assert split_evenly("0.05", 3) == [D("0.02"), D("0.02"), D("0.01")]
    assert split_evenly("10.00", 4) == [D("2.50")] * 4
    assert split_evenly("1000.01", 7) == [D("142.86")] * 6 + [D("142.85")]
    for amount, n in [("0.05", 3), ("1000.01", 7), ("99.99", 6), ("0.01", 5)]:
        assert sum(split_evenly(amount, n)) == D(amount)


def test_split_refund_extra_cents_first():
    assert split_evenly("-0.10", 3) == [D("-0.04"), D("-0.03"), D("-0.03")]
    assert split_evenly("-100.00", 3) == [D("-33.34"), D("-33.33"), D("-33.33")]
    assert sum(split_evenly("-99.99", 6)) == D("-99.99")


def test_split_needs_a_positive_count():
    for bad in (0, -2):
        with pytest.raises(ValueError):
            split_evenly("10.00", bad)
