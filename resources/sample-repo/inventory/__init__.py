"""inventory - a small stock-keeping library for a single shop.

Typical use::

    from inventory import Catalog, Money, Product, StockLedger, price_line

    catalog = Catalog([Product("TEA-0042", "Green tea 100g", Money.from_cents(490))])
    ledger = StockLedger()
    ledger.receive("TEA-0042", 24)
    quote = price_line(catalog, "TEA-0042", 6)
"""

from .catalog import Catalog, Product, find_product
from .errors import InventoryError, UnknownProductError
from .money import Money, parse_money
from .pricing import PriceRule, apply_discount, price_line
from .stock import StockLedger, StockMovement

__version__ = "0.3.1"

__all__ = [
    "Catalog",
    "InventoryError",
    "Money",
    "PriceRule",
    "Product",
    "StockLedger",
    "StockMovement",
    "UnknownProductError",
    "apply_discount",
    "find_product",
    "parse_money",
    "price_line",
    "__version__",
]
