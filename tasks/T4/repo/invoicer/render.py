"""Plain-text invoice, as attached to the e-mail."""

from __future__ import annotations

from invoicer.invoice import Invoice
from invoicer.money import format_money


def render_invoice(inv: Invoice) -> str:
    width = max([len(line.description) for line in inv.lines] + [11])
    rows = [f"Invoice {inv.number}", ""]
    for line in inv.lines:
        rows.append(
            f"{line.description:<{width}}  {line.quantity:>6} x {format_money(line.unit_price, inv.currency):>14}"
            f"  {format_money(line.net, inv.currency):>14}"
        )
    rows.append("")
    rows.append(f"{'Net':<{width}}  {'':>25}  {format_money(inv.net_total, inv.currency):>14}")
    for rate, vat in inv.vat_by_rate().items():
        label = f"VAT {(rate * 100).normalize():f} %"
        rows.append(f"{label:<{width}}  {'':>25}  {format_money(vat, inv.currency):>14}")
    rows.append(f"{'Total':<{width}}  {'':>25}  {format_money(inv.total, inv.currency):>14}")
    return "\n".join(rows) + "\n"
