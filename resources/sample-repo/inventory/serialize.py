"""Import and export: products as CSV, stock movements as JSON.

The CSV layout is what the shop's spreadsheet exports::

    sku,name,price,category,tax_class,reorder_level,tags
    TEA-0042,Green tea 100g,€4.90,tea,reduced,10,organic;loose

Only ``sku``, ``name`` and ``price`` are required; the other columns may be
missing or empty.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from pathlib import Path
from typing import Iterable

from .catalog import DEFAULT_CATEGORY, DEFAULT_TAX_CLASS, Catalog, Product
from .errors import ImportFormatError, InventoryError
from .money import DEFAULT_CURRENCY, parse_money
from .stock import StockLedger, StockMovement

PRODUCT_CSV_FIELDS = ("sku", "name", "price", "category", "tax_class", "reorder_level", "tags")
REQUIRED_PRODUCT_FIELDS = ("sku", "name", "price")
TAG_SEPARATOR = ";"
MOVEMENTS_FORMAT_VERSION = 1


def _split_tags(raw: str | None) -> tuple[str, ...]:
    if not raw:
        return ()
    return tuple(part.strip() for part in raw.split(TAG_SEPARATOR) if part.strip())


def _cell(row: dict[str, str | None], name: str) -> str:
    """Stripped value of column ``name`` in a ``csv.DictReader`` row ('' if absent)."""
    value = row.get(name)
    return value.strip() if value else ""


def load_products_csv(text: str, *, default_currency: str = DEFAULT_CURRENCY) -> list[Product]:
    """Parse products from CSV text in the layout described in the module docs.

    Blank lines are skipped. Prices go through :func:`~inventory.money.parse_money`
    so both ``4.90`` and ``€4.90`` work; prices without a currency use
    ``default_currency``. Empty optional cells fall back to the
    :class:`~inventory.catalog.Product` defaults.

    Raises:
        ImportFormatError: if a required column is missing from the header
            (``line`` is ``None``), or a row cannot be turned into a product
            (``line`` is the 1-based line number in ``text``).
    """
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip().lower() for name in (reader.fieldnames or [])]
    missing = [name for name in REQUIRED_PRODUCT_FIELDS if name not in header]
    if missing:
        raise ImportFormatError(f"missing column(s): {', '.join(missing)}")
    reader.fieldnames = header

    products = []
    for row in reader:
        if not any(_cell(row, name) for name in header):
            continue
        try:
            reorder = _cell(row, "reorder_level")
            products.append(
                Product(
                    sku=_cell(row, "sku"),
                    name=_cell(row, "name"),
                    unit_price=parse_money(_cell(row, "price"), default_currency),
                    category=_cell(row, "category") or DEFAULT_CATEGORY,
                    tax_class=_cell(row, "tax_class") or DEFAULT_TAX_CLASS,
                    reorder_level=int(reorder) if reorder else 0,
                    tags=_split_tags(row.get("tags")),
                )
            )
        except (ValueError, InventoryError) as exc:
            raise ImportFormatError(str(exc), line=reader.line_num) from exc
    return products


def dump_products_csv(products: Iterable[Product]) -> str:
    """Write products as CSV text that :func:`load_products_csv` reads back."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PRODUCT_CSV_FIELDS)
    for product in products:
        writer.writerow(
            [
                product.sku,
                product.name,
                product.unit_price.format(symbol=False),
                product.category,
                product.tax_class,
                product.reorder_level,
                TAG_SEPARATOR.join(product.tags),
            ]
        )
    return buffer.getvalue()


def load_catalog(path: str | Path, **kwargs) -> Catalog:
    """Read a product CSV file into a new :class:`Catalog`."""
    text = Path(path).read_text(encoding="utf-8")
    return Catalog(load_products_csv(text, **kwargs))


def movements_to_json(movements: Iterable[StockMovement], *, indent: int | None = 2) -> str:
    """Serialise movements into a versioned JSON document."""
    document = {
        "version": MOVEMENTS_FORMAT_VERSION,
        "movements": [movement.to_dict() for movement in movements],
    }
    return json.dumps(document, indent=indent, ensure_ascii=False)


def movements_from_json(text: str) -> list[StockMovement]:
    """Inverse of :func:`movements_to_json`.

    Raises:
        ImportFormatError: for invalid JSON, an unsupported version or a
            movement with missing or malformed fields.
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"invalid JSON: {exc.msg}", line=exc.lineno) from exc
    if not isinstance(document, dict) or document.get("version") != MOVEMENTS_FORMAT_VERSION:
        raise ImportFormatError("unsupported movements document version")
    movements = []
    for index, item in enumerate(document.get("movements", [])):
        try:
            movements.append(
                StockMovement(
                    sku=Catalog.normalize_sku(item["sku"]),
                    kind=item["kind"],
                    quantity=int(item["quantity"]),
                    when=date.fromisoformat(item["when"]),
                    note=item.get("note", ""),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ImportFormatError(f"movement #{index}: {exc}") from exc
    return movements


def load_ledger(path: str | Path, *, allow_negative: bool = False) -> StockLedger:
    """Read a movements JSON file into a new :class:`StockLedger`."""
    text = Path(path).read_text(encoding="utf-8")
    return StockLedger(movements_from_json(text), allow_negative=allow_negative)


def save_ledger(ledger: StockLedger, path: str | Path) -> None:
    Path(path).write_text(movements_to_json(ledger) + "\n", encoding="utf-8")
