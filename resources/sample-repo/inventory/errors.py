"""Exception hierarchy shared by every module of the inventory package.

All errors raised on purpose by the package derive from :class:`InventoryError`
so callers can catch the whole family at once. Where it makes sense, the
classes also inherit from a builtin (``ValueError``, ``LookupError``) so that
generic handlers keep working.
"""

from __future__ import annotations


class InventoryError(Exception):
    """Base class for all errors raised by the inventory package."""


class UnknownCurrencyError(InventoryError, ValueError):
    """A currency code is not in :data:`inventory.money.SUPPORTED_CURRENCIES`."""

    def __init__(self, code: str) -> None:
        super().__init__(f"unsupported currency: {code!r}")
        self.code = code


class CurrencyMismatchError(InventoryError, ValueError):
    """Two amounts in different currencies were combined."""

    def __init__(self, left: str, right: str) -> None:
        super().__init__(f"cannot combine {left} with {right}")
        self.left = left
        self.right = right


class InvalidAmountError(InventoryError, ValueError):
    """A textual amount could not be parsed."""


class UnknownProductError(InventoryError, LookupError):
    """No product with the requested SKU exists in the catalogue."""

    def __init__(self, sku: str) -> None:
        super().__init__(f"unknown product: {sku}")
        self.sku = sku


class DuplicateProductError(InventoryError, ValueError):
    def __init__(self, sku: str) -> None:
        super().__init__(f"product already in catalogue: {sku}")
        self.sku = sku


class InsufficientStockError(InventoryError):
    """A sale would take the quantity on hand below zero."""

    def __init__(self, sku: str, requested: int, available: int) -> None:
        super().__init__(
            f"cannot remove {requested} x {sku}: only {available} on hand"
        )
        self.sku = sku
        self.requested = requested
        self.available = available


class ImportFormatError(InventoryError, ValueError):
    """An import file is malformed.

    Attributes:
        line: 1-based line number of the offending record, or ``None`` when
            the problem concerns the whole file (e.g. a missing header).
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        if line is not None:
            message = f"line {line}: {message}"
        super().__init__(message)
        self.line = line
