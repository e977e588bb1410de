"""Stock movements and the ledger that turns them into quantities on hand.

The ledger is append-only: the quantity of a product is never stored, it is
always derived from the list of movements, which keeps an audit trail for free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from typing import Iterable, Iterator

from .catalog import Catalog, _normalize_sku
from .errors import InsufficientStockError

RECEIPT = "receipt"
SALE = "sale"
RETURN = "return"
ADJUSTMENT = "adjustment"
MOVEMENT_KINDS = (RECEIPT, SALE, RETURN, ADJUSTMENT)

_OUTBOUND_KINDS = frozenset({SALE})


@dataclass(frozen=True)
class StockMovement:
    """One change to the stock of a single product.

    ``quantity`` is always positive for receipts, sales and returns; the
    direction follows from ``kind``. Adjustments (stock-take corrections,
    breakage) carry their own sign.
    """

    sku: str
    kind: str
    quantity: int
    when: date
    note: str = ""

    @property
    def signed_quantity(self) -> int:
        """The effect of this movement on the quantity on hand."""
        if self.kind in _OUTBOUND_KINDS:
            return -self.quantity
        return self.quantity

    def to_dict(self) -> dict[str, object]:
        return {
            "sku": self.sku,
            "kind": self.kind,
            "quantity": self.quantity,
            "when": self.when.isoformat(),
            "note": self.note,
        }


def _validate_movement(kind: str, quantity: int) -> None:
    if kind not in MOVEMENT_KINDS:
        raise ValueError(f"unknown movement kind: {kind!r}")
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise TypeError("quantity must be an int")
    if kind == ADJUSTMENT:
        if quantity == 0:
            raise ValueError("an adjustment must change the quantity")
    elif quantity <= 0:
        raise ValueError(f"{kind} quantity must be positive")


class StockLedger:
    """Chronological record of stock movements for many products.

    Args:
        movements: Initial movements, e.g. loaded from disk. They are
            validated but not checked against stock levels.
        allow_negative: When false (the default), :meth:`record` refuses a
            sale that would take stock below zero.
    """

    def __init__(self, movements: Iterable[StockMovement] = (), *, allow_negative: bool = False) -> None:
        self.allow_negative = allow_negative
        self._movements: list[StockMovement] = []
        for movement in movements:
            _validate_movement(movement.kind, movement.quantity)
            self._movements.append(movement)

    def record(
        self,
        sku: str,
        kind: str,
        quantity: int,
        *,
        when: date | None = None,
        note: str = "",
    ) -> StockMovement:
        """Append a movement and return it.

        Args:
            sku: Product SKU in any accepted spelling.
            kind: One of :data:`MOVEMENT_KINDS`.
            quantity: Number of units (see :class:`StockMovement`).
            when: Booking date; defaults to today.
            note: Free text such as an invoice number.

        Raises:
            ValueError: for an unknown kind or a bad quantity.
            InsufficientStockError: if a sale exceeds the stock on hand and
                the ledger does not allow negative stock.
        """
        key = _normalize_sku(sku)
        _validate_movement(kind, quantity)
        movement = StockMovement(key, kind, quantity, when or date.today(), note)
        if not self.allow_negative and movement.signed_quantity < 0:
            available = self.quantity_on_hand(key)
            if available + movement.signed_quantity < 0:
                raise InsufficientStockError(key, quantity, available)
        self._movements.append(movement)
        return movement

    def receive(self, sku: str, quantity: int, **kwargs) -> StockMovement:
        """Book incoming goods; keyword arguments go to :meth:`record`."""
        return self.record(sku, RECEIPT, quantity, **kwargs)

    def sell(self, sku: str, quantity: int, **kwargs) -> StockMovement:
        """Book a sale; keyword arguments go to :meth:`record`."""
        return self.record(sku, SALE, quantity, **kwargs)

    def quantity_on_hand(self, sku: str, *, as_of: date | None = None) -> int:
        """Current stock of one product, derived from its movements.

        Args:
            sku: Product SKU in any accepted spelling.
            as_of: If given, only movements booked on or before this date count.

        Returns:
            The sum of the signed quantities; ``0`` for a product that never moved.
        """
        key = _normalize_sku(sku)
        return sum(
            movement.signed_quantity
            for movement in self._movements
            if movement.sku == key and (as_of is None or movement.when <= as_of)
        )

    def history(self, sku: str | None = None) -> list[StockMovement]:
        """Movements in booking order, optionally for a single SKU."""
        if sku is None:
            return list(self._movements)
        key = _normalize_sku(sku)
        return [movement for movement in self._movements if movement.sku == key]

    def skus(self) -> list[str]:
        """Sorted SKUs that have at least one movement."""
        return sorted({movement.sku for movement in self._movements})

    def __len__(self) -> int:
        return len(self._movements)

    def __iter__(self) -> Iterator[StockMovement]:
        return iter(self._movements)


def reorder_suggestions(
    ledger: StockLedger,
    catalog: Catalog,
    *,
    batch_size: int = 1,
) -> dict[str, int]:
    """Suggest order quantities for products at or below their reorder level.

    The suggestion refills stock to twice the reorder level, rounded up to a
    multiple of ``batch_size`` (suppliers often ship in cases).

    Returns:
        Mapping of SKU to the number of units to order; products that do not
        need reordering, or have ``reorder_level == 0``, are left out.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    suggestions: dict[str, int] = {}
    for product in catalog:
        if product.reorder_level == 0:
            continue
        on_hand = ledger.quantity_on_hand(product.sku)
        if on_hand > product.reorder_level:
            continue
        missing = 2 * product.reorder_level - on_hand
        suggestions[product.sku] = math.ceil(missing / batch_size) * batch_size
    return suggestions
