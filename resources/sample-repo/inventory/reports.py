"""Plain-text reports for the shop owner: valuation, low stock, sales."""

from __future__ import annotations

from datetime import date
from typing import Sequence

from .catalog import Catalog, find_product
from .money import DEFAULT_CURRENCY, Money
from .pricing import PriceRule, price_line
from .stock import SALE, StockLedger

REPORT_WIDTH = 60
_COLUMN_GAP = "  "
NO_LOW_STOCK_MESSAGE = "All products are above their reorder level."


def _is_numeric(value: object) -> bool:
    return isinstance(value, (int, float, Money)) and not isinstance(value, bool)


def format_table(rows: Sequence[Sequence[object]], headers: Sequence[str]) -> str:
    """Lay out ``rows`` as a fixed-width text table.

    Columns are as wide as their widest cell or header. Numbers and
    :class:`Money` values are right-aligned, everything else left-aligned.
    A dashed rule separates the header from the body. Trailing spaces are
    stripped from every line and there is no final newline.

    Raises:
        ValueError: if a row does not have one cell per header.
    """
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"expected {len(headers)} cells, got {len(row)}")
    text_rows = [[str(cell) for cell in row] for row in rows]
    widths = [len(header) for header in headers]
    for row in text_rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row)]

    def render(cells: Sequence[str], numeric: Sequence[bool]) -> str:
        parts = [
            cell.rjust(width) if is_number else cell.ljust(width)
            for cell, width, is_number in zip(cells, widths, numeric)
        ]
        return _COLUMN_GAP.join(parts).rstrip()

    lines = [render(headers, [False] * len(headers))]
    lines.append(_COLUMN_GAP.join("-" * width for width in widths))
    for raw, cells in zip(rows, text_rows):
        lines.append(render(cells, [_is_numeric(cell) for cell in raw]))
    return "\n".join(lines)


def _title(text: str) -> list[str]:
    return [text, "=" * min(len(text), REPORT_WIDTH)]


def stock_valuation(ledger: StockLedger, catalog: Catalog, *, currency: str = DEFAULT_CURRENCY) -> Money:
    """Value of the stock on hand at catalogue unit prices.

    Every SKU that appears in the ledger is valued as quantity on hand times
    its unit price; products with zero or negative stock contribute nothing.

    Args:
        ledger: Where quantities come from.
        catalog: Where unit prices come from.
        currency: Currency of the result (and of an empty ledger's zero).

    Raises:
        UnknownProductError: if the ledger mentions a SKU missing from the catalogue.
        CurrencyMismatchError: if a product is priced in another currency.
    """
    value = Money.zero(currency)
    for sku in ledger.skus():
        product = find_product(catalog, sku)
        on_hand = ledger.quantity_on_hand(sku)
        if on_hand > 0:
            value = value + product.unit_price.multiply(on_hand)
    return value


def low_stock_report(ledger: StockLedger, catalog: Catalog, *, title: str = "Low stock") -> str:
    """Text report of products at or below their reorder level.

    The report starts with ``title`` underlined with ``=``, followed by a
    :func:`format_table` with the columns SKU, Product, On hand and Reorder at.
    Rows are ordered by shortfall (reorder level minus stock), largest first,
    then by SKU. Products with ``reorder_level == 0`` are ignored. When no
    product is low, the table is replaced by :data:`NO_LOW_STOCK_MESSAGE`.
    """
    low = []
    for product in catalog:
        if product.reorder_level == 0:
            continue
        on_hand = ledger.quantity_on_hand(product.sku)
        if on_hand <= product.reorder_level:
            low.append((product.reorder_level - on_hand, product, on_hand))
    low.sort(key=lambda item: (-item[0], item[1].sku))
    lines = _title(title)
    if not low:
        lines.append(NO_LOW_STOCK_MESSAGE)
    else:
        rows = [[p.sku, p.name, on_hand, p.reorder_level] for _, p, on_hand in low]
        lines.append(format_table(rows, ["SKU", "Product", "On hand", "Reorder at"]))
    return "\n".join(lines)


def sales_summary(
    ledger: StockLedger,
    catalog: Catalog,
    *rules: PriceRule,
    since: date | None = None,
    until: date | None = None,
) -> str:
    # Re-prices each recorded sale at today's catalogue prices and rules, so
    # the figures are an estimate, not accounting data.
    per_sku: dict[str, int] = {}
    for movement in ledger.history():
        if movement.kind != SALE:
            continue
        if (since and movement.when < since) or (until and movement.when > until):
            continue
        per_sku[movement.sku] = per_sku.get(movement.sku, 0) + movement.quantity
    lines = _title("Sales summary")
    if not per_sku:
        lines.append("No sales in this period.")
        return "\n".join(lines)
    rows = []
    grand = None
    for sku in sorted(per_sku):
        quote = price_line(catalog, sku, per_sku[sku], *rules)
        rows.append([sku, quote.quantity, quote.net, quote.total])
        grand = quote.total if grand is None else grand + quote.total
    rows.append(["TOTAL", sum(per_sku.values()), "", grand])
    lines.append(format_table(rows, ["SKU", "Units", "Net", "Gross"]))
    return "\n".join(lines)


def inventory_report(ledger: StockLedger, catalog: Catalog, **options) -> str:
    """Full stock listing plus valuation and the low-stock section.

    Keyword ``options``: ``title`` (report heading) and ``currency``
    (passed to :func:`stock_valuation`).
    """
    title = options.get("title", "Inventory")
    rows = [
        [p.sku, p.name, p.category, ledger.quantity_on_hand(p.sku), p.unit_price]
        for p in catalog
    ]
    lines = _title(title)
    lines.append(format_table(rows, ["SKU", "Product", "Category", "On hand", "Unit price"]))
    lines.append("")
    valuation = stock_valuation(ledger, catalog, currency=options.get("currency", DEFAULT_CURRENCY))
    lines.append(f"Stock value: {valuation}")
    lines.append("")
    lines.append(low_stock_report(ledger, catalog))
    return "\n".join(lines)
