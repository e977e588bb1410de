"""Exact money amounts.

Amounts are stored as an integer number of minor units ("cents") together
with an ISO 4217 currency code, which avoids the usual binary floating point
surprises. Every operation that can produce fractions of a cent rounds with
:func:`_round_half_up`, i.e. commercial rounding where halves go away from
zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Iterable, Union

from .errors import CurrencyMismatchError, InvalidAmountError, UnknownCurrencyError

DEFAULT_CURRENCY = "EUR"
CENTS_PER_UNIT = 100
CURRENCY_SYMBOLS: dict[str, str] = {"EUR": "€", "USD": "$", "GBP": "£"}
SUPPORTED_CURRENCIES = frozenset(CURRENCY_SYMBOLS)

Number = Union[int, float, Decimal]


def _to_decimal(value: Number | str) -> Decimal:
    """Convert ``value`` to :class:`~decimal.Decimal` without float noise.

    Floats are converted through their shortest ``repr`` so that ``0.1``
    becomes ``Decimal("0.1")`` rather than ``Decimal(0.1000000000000000055...)``.

    Raises:
        InvalidAmountError: if ``value`` is not a finite number.
    """
    if isinstance(value, bool):
        raise InvalidAmountError(f"not a number: {value!r}")
    if isinstance(value, float):
        value = repr(value)
    try:
        result = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidAmountError(f"not a number: {value!r}") from None
    if not result.is_finite():
        raise InvalidAmountError(f"not a finite number: {value!r}")
    return result


def _round_half_up(value: Number) -> int:
    """Round ``value`` to the nearest integer, halves away from zero.

    >>> _round_half_up(2.5), _round_half_up(-2.5), _round_half_up(2.49)
    (3, -3, 2)
    """
    return int(_to_decimal(value).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _check_currency(code: str) -> str:
    normalized = str(code).strip().upper()
    if normalized not in SUPPORTED_CURRENCIES:
        raise UnknownCurrencyError(code)
    return normalized


@dataclass(frozen=True)
class Money:
    """An immutable amount of money in a single currency.

    Attributes:
        cents: The amount in minor units (may be negative, e.g. for refunds).
        currency: Upper-case ISO 4217 code, one of ``SUPPORTED_CURRENCIES``.
    """

    cents: int
    currency: str = DEFAULT_CURRENCY

    def __post_init__(self) -> None:
        if isinstance(self.cents, bool) or not isinstance(self.cents, int):
            raise TypeError(f"cents must be an int, got {type(self.cents).__name__}")
        object.__setattr__(self, "currency", _check_currency(self.currency))

    # -- construction -----------------------------------------------------

    @classmethod
    def from_cents(cls, cents: int, currency: str = DEFAULT_CURRENCY) -> Money:
        """Build an amount from a whole number of minor units."""
        return cls(int(cents), currency)

    @classmethod
    def from_decimal(cls, amount: Number | str, currency: str = DEFAULT_CURRENCY) -> Money:
        """Build an amount from major units, e.g. ``Money.from_decimal("12.345")``.

        Fractions of a cent are rounded half-up, so the example gives 1235 cents.
        """
        cents = _round_half_up(_to_decimal(amount) * CENTS_PER_UNIT)
        return cls(cents, currency)

    @classmethod
    def zero(cls, currency: str = DEFAULT_CURRENCY) -> Money:
        return cls(0, currency)

    # -- inspection -------------------------------------------------------

    @property
    def amount(self) -> Decimal:
        """The amount in major units as a two-place ``Decimal``."""
        return (Decimal(self.cents) / CENTS_PER_UNIT).quantize(Decimal("0.01"))

    @property
    def is_zero(self) -> bool:
        return self.cents == 0

    @property
    def is_negative(self) -> bool:
        return self.cents < 0

    # -- arithmetic -------------------------------------------------------

    def _require_same_currency(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"expected Money, got {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatchError(self.currency, other.currency)

    def __add__(self, other: Money) -> Money:
        self._require_same_currency(other)
        return Money(self.cents + other.cents, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._require_same_currency(other)
        return Money(self.cents - other.cents, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.cents, self.currency)

    def __lt__(self, other: Money) -> bool:
        self._require_same_currency(other)
        return self.cents < other.cents

    def __le__(self, other: Money) -> bool:
        self._require_same_currency(other)
        return self.cents <= other.cents

    def multiply(self, factor: Number) -> Money:
        """Scale the amount by ``factor`` and round to whole cents.

        Args:
            factor: Any int, float or Decimal (quantities, rates, ratios).
                Floats are interpreted by their decimal repr, so ``0.1``
                means exactly one tenth.

        Returns:
            A new :class:`Money` in the same currency; a product that ends in
            exactly half a cent is rounded away from zero.
        """
        scaled = Decimal(self.cents) * _to_decimal(factor)
        return Money.from_cents(_round_half_up(scaled), self.currency)

    def split(self, parts: int) -> list[Money]:
        """Divide the amount into ``parts`` nearly equal shares.

        The shares always add up to the original amount; leftover cents are
        handed out one by one to the first shares.

        Raises:
            ValueError: if ``parts`` is smaller than 1.
        """
        if parts < 1:
            raise ValueError("parts must be at least 1")
        base, remainder = divmod(abs(self.cents), parts)
        sign = -1 if self.cents < 0 else 1
        return [
            Money(sign * (base + (1 if index < remainder else 0)), self.currency)
            for index in range(parts)
        ]

    # -- presentation -----------------------------------------------------

    def format(self, *, symbol: bool = True) -> str:
        """Render the amount for humans.

        ``Money(-1250, "EUR").format()`` gives ``"-€12.50"``; with
        ``symbol=False`` the code is appended instead: ``"-12.50 EUR"``.
        """
        sign = "-" if self.cents < 0 else ""
        digits = f"{abs(self.amount):,.2f}"
        if symbol:
            return f"{sign}{CURRENCY_SYMBOLS[self.currency]}{digits}"
        return f"{sign}{digits} {self.currency}"

    def __str__(self) -> str:
        return self.format()


def total(amounts: Iterable[Money], currency: str = DEFAULT_CURRENCY) -> Money:
    """Add up ``amounts``; an empty iterable gives zero in ``currency``."""
    result = Money.zero(currency)
    for amount in amounts:
        result = result + amount
    return result


_SYMBOL_TO_CODE = {symbol: code for code, symbol in CURRENCY_SYMBOLS.items()}


def parse_money(text: str, default_currency: str = DEFAULT_CURRENCY) -> Money:
    """Parse a human-written amount such as ``"€1,299.90"`` or ``"12.5 USD"``.

    Accepted forms: an optional leading minus sign, an optional currency
    symbol right before the digits, or a three-letter currency code either
    before or after the number (separated by whitespace). Commas are treated
    as thousands separators. When no currency is given, ``default_currency``
    is used.

    Raises:
        InvalidAmountError: if the text does not contain a valid number, or
            names two different currencies.
        UnknownCurrencyError: if the currency code is not supported.
    """
    cleaned = str(text).strip()
    if not cleaned:
        raise InvalidAmountError("empty amount")
    currency: str | None = None
    tokens = cleaned.split()
    if len(tokens) == 2:
        code_index = 0 if tokens[0].isalpha() else 1
        currency = _check_currency(tokens[code_index])
        cleaned = tokens[1 - code_index]
    elif len(tokens) > 2:
        raise InvalidAmountError(f"cannot parse amount: {text!r}")

    negative = cleaned.startswith("-")
    if negative:
        cleaned = cleaned[1:]
    if cleaned and cleaned[0] in _SYMBOL_TO_CODE:
        symbol_currency = _SYMBOL_TO_CODE[cleaned[0]]
        if currency is not None and currency != symbol_currency:
            raise InvalidAmountError(f"conflicting currencies in {text!r}")
        currency = symbol_currency
        cleaned = cleaned[1:]

    value = _to_decimal(cleaned.replace(",", ""))
    if value < 0:
        raise InvalidAmountError(f"misplaced minus sign in {text!r}")
    if negative:
        value = -value
    return Money.from_decimal(value, currency or default_currency)
