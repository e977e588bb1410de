"""Shared fixtures for the test suite (plain functions, no test framework magic)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from inventory.catalog import Catalog, Product
from inventory.money import Money
from inventory.stock import StockLedger

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def eur(cents: int) -> Money:
    return Money.from_cents(cents, "EUR")


def sample_catalog() -> Catalog:
    return Catalog(
        [
            Product("TEA-0042", "Green tea 100g", eur(490), "tea", "reduced", 10, ("organic", "loose")),
            Product("TEA-0107", "Earl Grey 50 bags", eur(360), "tea", "reduced", 12, ("bags",)),
            Product("COF-0310", "Espresso beans 1kg", eur(1850), "coffee", "reduced", 5),
            Product("ACC-1001", "Ceramic teapot 1.2l", eur(2400), "accessories", "standard", 2, ("gift",)),
            Product("GFT-0900", "Gift card", eur(2500), "gifts", "exempt"),
        ]
    )


def sample_ledger() -> StockLedger:
    ledger = StockLedger()
    ledger.receive("TEA-0042", 40, when=date(2024, 3, 1))
    ledger.receive("TEA-0107", 24, when=date(2024, 3, 1))
    ledger.receive("COF-0310", 10, when=date(2024, 3, 2))
    ledger.receive("ACC-1001", 6, when=date(2024, 3, 4))
    ledger.sell("TEA-0042", 31, when=date(2024, 3, 9))
    ledger.sell("COF-0310", 7, when=date(2024, 3, 10))
    ledger.sell("ACC-1001", 4, when=date(2024, 3, 12))
    ledger.record("ACC-1001", "return", 1, when=date(2024, 3, 14))
    ledger.record("TEA-0107", "adjustment", -2, when=date(2024, 3, 15))
    return ledger
