"""The product catalogue: what the shop sells and at which list price."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from .errors import DuplicateProductError, UnknownProductError
from .money import Money

TAX_CLASSES = ("standard", "reduced", "exempt")
DEFAULT_TAX_CLASS = "standard"
DEFAULT_CATEGORY = "general"
SKU_PATTERN = re.compile(r"^[A-Z]{2,4}-\d{3,6}$")


def _normalize_sku(raw: str) -> str:
    """Canonical form of a SKU: trimmed, upper-case, ``-`` as separator.

    ``" tea_0042 "`` and ``"TEA 0042"`` both become ``"TEA-0042"``.

    Raises:
        ValueError: if the result does not match :data:`SKU_PATTERN`.
    """
    sku = re.sub(r"[\s_]+", "-", str(raw).strip()).upper()
    if not SKU_PATTERN.match(sku):
        raise ValueError(f"invalid SKU: {raw!r}")
    return sku


@dataclass
class Product:
    """A sellable item.

    Attributes:
        sku: Stock keeping unit, normalised on creation (see ``Catalog.normalize_sku``).
        name: Human-readable name shown on reports.
        unit_price: List price of one unit, before discounts and tax.
        category: Free-form grouping used by pricing rules and reports.
        tax_class: One of :data:`TAX_CLASSES`.
        reorder_level: When stock falls to this level or below, reorder.
            ``0`` disables reorder tracking for the product.
        tags: Extra labels, stored lower-case.
    """

    sku: str
    name: str
    unit_price: Money
    category: str = DEFAULT_CATEGORY
    tax_class: str = DEFAULT_TAX_CLASS
    reorder_level: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        self.sku = _normalize_sku(self.sku)
        self.name = self.name.strip()
        if not self.name:
            raise ValueError("product name must not be empty")
        if self.tax_class not in TAX_CLASSES:
            raise ValueError(f"unknown tax class: {self.tax_class!r}")
        if self.reorder_level < 0:
            raise ValueError("reorder_level must not be negative")
        self.category = self.category.strip().lower() or DEFAULT_CATEGORY
        self.tags = tuple(sorted({tag.strip().lower() for tag in self.tags if tag.strip()}))

    @property
    def display_name(self) -> str:
        """``"Green tea 100g (TEA-0042)"``-style label for reports."""
        return f"{self.name} ({self.sku})"

    def with_price(self, price: Money) -> Product:
        """Return a copy of the product with a different unit price."""
        return dataclasses.replace(self, unit_price=price)


class Catalog:
    """An in-memory collection of :class:`Product` objects keyed by SKU."""

    def __init__(self, products: Iterable[Product] = ()) -> None:
        self._products: dict[str, Product] = {}
        for product in products:
            self.add(product)

    @staticmethod
    def normalize_sku(raw: str) -> str:
        """Return the canonical spelling of ``raw`` (see :func:`_normalize_sku`)."""
        return _normalize_sku(raw)

    def add(self, product: Product, *, replace: bool = False) -> None:
        """Insert ``product``.

        Raises:
            DuplicateProductError: if the SKU is already present and
                ``replace`` is false.
        """
        if product.sku in self._products and not replace:
            raise DuplicateProductError(product.sku)
        self._products[product.sku] = product

    def remove(self, sku: str) -> Product:
        key = self.normalize_sku(sku)
        try:
            return self._products.pop(key)
        except KeyError:
            raise UnknownProductError(key) from None

    def get(self, sku: str) -> Product | None:
        """Look a product up by SKU in any spelling; ``None`` when absent."""
        try:
            key = self.normalize_sku(sku)
        except ValueError:
            return None
        return self._products.get(key)

    def __contains__(self, sku: object) -> bool:
        return isinstance(sku, str) and self.get(sku) is not None

    def __len__(self) -> int:
        return len(self._products)

    def __iter__(self) -> Iterator[Product]:
        return iter(sorted(self._products.values(), key=lambda p: p.sku))

    def categories(self) -> list[str]:
        """Sorted list of distinct categories in use."""
        return sorted({product.category for product in self._products.values()})

    def search(
        self,
        text: str = "",
        *,
        category: str | None = None,
        tags: Iterable[str] = (),
    ) -> list[Product]:
        """Find products by name fragment, category and tags.

        Args:
            text: Case-insensitive substring of the name or SKU; empty matches all.
            category: Only return products of this category.
            tags: Only return products carrying *all* of these tags.

        Returns:
            Matching products sorted by SKU.
        """
        needle = text.strip().lower()
        wanted_tags = {tag.strip().lower() for tag in tags}
        wanted_category = category.strip().lower() if category else None
        results = []
        for product in self:
            if needle and needle not in product.name.lower() and needle not in product.sku.lower():
                continue
            if wanted_category and product.category != wanted_category:
                continue
            if not wanted_tags.issubset(product.tags):
                continue
            results.append(product)
        return results


def find_product(catalog: Catalog, sku: str) -> Product:
    """Return the product with ``sku`` or raise.

    Unlike :meth:`Catalog.get`, a missing product is an error here, which is
    what pricing and reporting code wants.

    Raises:
        UnknownProductError: if no such product exists (also for malformed SKUs).
    """
    product = catalog.get(sku)
    if product is None:
        raise UnknownProductError(str(sku).strip().upper())
    return product
