"""Invoice lines and the totals printed on an invoice."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from invoicer.money import Number, round_money, to_decimal


@dataclass(frozen=True)
class Line:
    description: str
    quantity: Decimal
    unit_price: Decimal
    vat_rate: Decimal  # 0.19 for 19 %

    @classmethod
    def of(cls, description: str, quantity: Number, unit_price: Number, vat_rate: Number) -> Line:
        line = cls(description, to_decimal(quantity), to_decimal(unit_price), to_decimal(vat_rate))
        if line.vat_rate < 0 or line.vat_rate >= 1:
            raise ValueError(f"{description}: VAT rate {line.vat_rate} must be a fraction in [0, 1)")
        return line

    @property
    def net(self) -> Decimal:
        return round_money(self.quantity * self.unit_price)

    @property
    def vat(self) -> Decimal:
        """This line's VAT on its own; the invoice's VAT is computed per rate, see Invoice.vat_by_rate."""
        return round_money(self.net * self.vat_rate)


@dataclass
class Invoice:
    number: str
    currency: str = "EUR"
    lines: list[Line] = field(default_factory=list)

    def add(self, description: str, quantity: Number, unit_price: Number, vat_rate: Number) -> Line:
        line = Line.of(description, quantity, unit_price, vat_rate)
        self.lines.append(line)
        return line

    @property
    def net_total(self) -> Decimal:
        return sum((line.net for line in self.lines), Decimal("0.00"))

    def vat_by_rate(self) -> dict[Decimal, Decimal]:
        """VAT per rate, as printed in the VAT summary of the invoice.

        VAT is rounded once per rate, on the summed net of that rate's lines: rounding every line and adding
        the results drifts by a cent per few lines.
        """
        net_by_rate: dict[Decimal, Decimal] = {}
        for line in self.lines:
            net_by_rate[line.vat_rate] = net_by_rate.get(line.vat_rate, Decimal("0.00")) + line.net
        return {rate: round_money(net * rate) for rate, net in sorted(net_by_rate.items())}

    @property
    def vat_total(self) -> Decimal:
        return sum(self.vat_by_rate().values(), Decimal("0.00"))

    @property
    def total(self) -> Decimal:
        return self.net_total + self.vat_total
