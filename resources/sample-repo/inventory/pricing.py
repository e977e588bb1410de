"""Pricing: discounts, promotional rules and sales tax.

All functions work on :class:`~inventory.money.Money` and never on floats,
and they round every intermediate amount to whole cents the same way
(:func:`~inventory.money._round_half_up`) so that quotes are reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable

from .catalog import Catalog, Product, find_product
from .money import DEFAULT_CURRENCY, Money, _round_half_up, _to_decimal, total

TAX_RATES: dict[str, Decimal] = {
    "standard": Decimal("0.20"),
    "reduced": Decimal("0.055"),
    "exempt": Decimal("0"),
}
MAX_DISCOUNT_PERCENT = 100


def _validate_percent(percent: float) -> Decimal:
    value = _to_decimal(percent)
    if value < 0 or value > MAX_DISCOUNT_PERCENT:
        raise ValueError(f"discount must be between 0 and {MAX_DISCOUNT_PERCENT}%, got {percent}")
    return value


def apply_discount(amount: Money, percent: float) -> Money:
    """Take ``percent`` per cent off ``amount``.

    The discount itself is rounded half-up to whole cents and then subtracted,
    so a 50% discount on 1.01 is 0.51 and the result is 0.50.

    Args:
        amount: The undiscounted amount.
        percent: Discount between 0 and :data:`MAX_DISCOUNT_PERCENT` inclusive.

    Raises:
        ValueError: if ``percent`` is out of range.
    """
    rate = _validate_percent(percent)
    discount = _round_half_up(Decimal(amount.cents) * rate / 100)
    return Money.from_cents(amount.cents - discount, amount.currency)


def tax_rate(tax_class: str) -> Decimal:
    """Rate for ``tax_class`` as a fraction (``Decimal("0.20")`` for 20%)."""
    try:
        return TAX_RATES[tax_class]
    except KeyError:
        raise ValueError(f"unknown tax class: {tax_class!r}") from None


def add_tax(amount: Money, tax_class: str = "standard") -> Money:
    """Return the gross amount: ``amount`` plus the tax for ``tax_class``.

    The tax is computed on the net amount, rounded half-up to the cent, and
    added; the currency is preserved.
    """
    tax = _round_half_up(Decimal(amount.cents) * tax_rate(tax_class))
    return amount + Money.from_cents(tax, amount.currency)


def tax_included(gross: Money, tax_class: str = "standard") -> Money:
    rate = tax_rate(tax_class)
    net = _round_half_up(Decimal(gross.cents) / (1 + rate))
    return Money.from_cents(gross.cents - net, gross.currency)


@dataclass(frozen=True)
class PriceRule:
    """A promotional rule such as "10% off tea when buying 6 or more".

    Attributes:
        name: Label shown on quotes.
        percent: Percentage taken off the line subtotal.
        min_quantity: Smallest quantity the rule applies to.
        category: Restrict the rule to one product category (``None`` = all).
        amount_off: Optional fixed amount taken off the line after the
            percentage discount; the line never goes below zero.
    """

    name: str
    percent: float = 0.0
    min_quantity: int = 1
    category: str | None = None
    amount_off: Money | None = None

    @classmethod
    def bulk(cls, min_quantity: int, percent: float, *, category: str | None = None) -> PriceRule:
        """Shortcut for a quantity-break rule, named e.g. ``"bulk 10+ (-5%)"``."""
        return cls(f"bulk {min_quantity}+ (-{percent:g}%)", percent, min_quantity, category)

    def applies_to(self, product: Product, quantity: int) -> bool:
        """Whether the rule is eligible for ``quantity`` units of ``product``."""
        if quantity < self.min_quantity:
            return False
        return self.category is None or product.category == self.category.lower()

    def apply(self, amount: Money, quantity: int = 1) -> Money:
        """Discounted line amount for ``quantity`` units costing ``amount`` in total.

        Below ``min_quantity`` the amount is returned unchanged. Otherwise the
        percentage discount is applied first, then ``amount_off`` is
        subtracted, clamping at zero. The category is *not* checked here; use
        :meth:`applies_to` for that.
        """
        if quantity < self.min_quantity:
            return amount
        discounted = apply_discount(amount, self.percent)
        if self.amount_off is not None:
            discounted = discounted - self.amount_off
            if discounted.is_negative:
                discounted = Money.zero(amount.currency)
        return discounted


@dataclass(frozen=True)
class LineQuote:
    """The priced result for one order line."""

    sku: str
    quantity: int
    unit_price: Money
    subtotal: Money
    discount: Money
    tax: Money
    rule: str | None = None

    @property
    def net(self) -> Money:
        return self.subtotal - self.discount

    @property
    def total(self) -> Money:
        return self.net + self.tax


def price_line(
    catalog: Catalog,
    sku: str,
    quantity: int,
    *rules: PriceRule,
    include_tax: bool = True,
) -> LineQuote:
    """Price ``quantity`` units of the product ``sku``.

    The subtotal is the catalogue unit price times the quantity. Of the
    ``rules`` that apply to the product and quantity, the one producing the
    lowest net amount wins (rules never stack; on a tie the earlier rule
    wins, and a rule that saves nothing is not reported). Tax follows the product's tax class and is computed on the net
    amount, or is zero when ``include_tax`` is false.

    Raises:
        UnknownProductError: if ``sku`` is not in the catalogue.
        ValueError: if ``quantity`` is not positive.
    """
    product = find_product(catalog, sku)
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    subtotal = product.unit_price.multiply(quantity)
    net, winner = subtotal, None
    for rule in rules:
        if not rule.applies_to(product, quantity):
            continue
        candidate = rule.apply(subtotal, quantity)
        if candidate < net:
            net, winner = candidate, rule.name
    if include_tax:
        tax = add_tax(net, product.tax_class) - net
    else:
        tax = Money.zero(subtotal.currency)
    return LineQuote(product.sku, quantity, product.unit_price, subtotal, subtotal - net, tax, winner)


def quote_order(
    catalog: Catalog,
    lines: Iterable[tuple[str, int]],
    *rules: PriceRule,
    **options,
) -> list[LineQuote]:
    """Price several ``(sku, quantity)`` lines; ``options`` go to :func:`price_line`."""
    return [price_line(catalog, sku, quantity, *rules, **options) for sku, quantity in lines]


def order_total(quotes: Iterable[LineQuote]) -> Money:
    """Grand total (net plus tax) of priced lines, all in one currency."""
    quotes = list(quotes)
    currency = quotes[0].subtotal.currency if quotes else DEFAULT_CURRENCY
    return total((quote.total for quote in quotes), currency)
