import unittest
from datetime import date

from inventory.catalog import Catalog, Product
from inventory.errors import InsufficientStockError
from inventory.stock import (
    ADJUSTMENT,
    RECEIPT,
    RETURN,
    SALE,
    StockLedger,
    StockMovement,
    reorder_suggestions,
)

from tests.helpers import eur, sample_catalog, sample_ledger


class StockMovementTests(unittest.TestCase):
    def test_signed_quantity(self):
        day = date(2024, 1, 1)
        self.assertEqual(StockMovement("TEA-0042", RECEIPT, 5, day).signed_quantity, 5)
        self.assertEqual(StockMovement("TEA-0042", SALE, 5, day).signed_quantity, -5)
        self.assertEqual(StockMovement("TEA-0042", RETURN, 2, day).signed_quantity, 2)
        self.assertEqual(StockMovement("TEA-0042", ADJUSTMENT, -3, day).signed_quantity, -3)

    def test_to_dict(self):
        movement = StockMovement("TEA-0042", SALE, 2, date(2024, 5, 6), "till 2")
        self.assertEqual(
            movement.to_dict(),
            {"sku": "TEA-0042", "kind": "sale", "quantity": 2, "when": "2024-05-06", "note": "till 2"},
        )


class QuantityOnHandTests(unittest.TestCase):
    def test_unknown_sku_is_zero(self):
        self.assertEqual(StockLedger().quantity_on_hand("TEA-0042"), 0)
        self.assertEqual(sample_ledger().quantity_on_hand("GFT-0900"), 0)

    def test_receipts_minus_sales(self):
        ledger = sample_ledger()
        self.assertEqual(ledger.quantity_on_hand("TEA-0042"), 9)
        self.assertEqual(ledger.quantity_on_hand("COF-0310"), 3)

    def test_returns_and_adjustments_count(self):
        ledger = sample_ledger()
        self.assertEqual(ledger.quantity_on_hand("ACC-1001"), 3)
        self.assertEqual(ledger.quantity_on_hand("TEA-0107"), 22)

    def test_accepts_any_sku_spelling(self):
        ledger = sample_ledger()
        self.assertEqual(ledger.quantity_on_hand(" tea_0042"), 9)
        self.assertEqual(ledger.quantity_on_hand("acc 1001"), 3)

    def test_as_of_excludes_later_movements(self):
        ledger = sample_ledger()
        self.assertEqual(ledger.quantity_on_hand("TEA-0042", as_of=date(2024, 3, 8)), 40)
        self.assertEqual(ledger.quantity_on_hand("ACC-1001", as_of=date(2024, 3, 13)), 2)

    def test_as_of_includes_movements_on_that_day(self):
        ledger = sample_ledger()
        self.assertEqual(ledger.quantity_on_hand("TEA-0042", as_of=date(2024, 3, 9)), 9)
        self.assertEqual(ledger.quantity_on_hand("ACC-1001", as_of=date(2024, 3, 14)), 3)

    def test_as_of_before_first_movement_is_zero(self):
        ledger = sample_ledger()
        self.assertEqual(ledger.quantity_on_hand("TEA-0042", as_of=date(2024, 2, 1)), 0)
        self.assertEqual(ledger.quantity_on_hand("COF-0310", as_of=date(2024, 3, 1)), 0)

    def test_negative_stock_is_reported(self):
        ledger = StockLedger(allow_negative=True)
        ledger.receive("TEA-0042", 2, when=date(2024, 1, 1))
        ledger.sell("TEA-0042", 5, when=date(2024, 1, 2))
        self.assertEqual(ledger.quantity_on_hand("TEA-0042"), -3)


class RecordTests(unittest.TestCase):
    def test_sale_beyond_stock_is_refused(self):
        ledger = sample_ledger()
        with self.assertRaises(InsufficientStockError) as ctx:
            ledger.sell("COF-0310", 4)
        self.assertEqual((ctx.exception.requested, ctx.exception.available), (4, 3))
        self.assertEqual(len(ledger.history("COF-0310")), 2)

    def test_selling_exactly_the_stock_is_fine(self):
        ledger = sample_ledger()
        ledger.sell("COF-0310", 3, note="last ones")
        self.assertEqual(ledger.history("cof-0310")[-1].note, "last ones")

    def test_validation(self):
        ledger = StockLedger()
        with self.assertRaises(ValueError):
            ledger.record("TEA-0042", "theft", 1)
        with self.assertRaises(ValueError):
            ledger.record("TEA-0042", RECEIPT, 0)
        with self.assertRaises(ValueError):
            ledger.record("TEA-0042", ADJUSTMENT, 0)
        with self.assertRaises(TypeError):
            ledger.record("TEA-0042", RECEIPT, 1.5)
        self.assertEqual(len(ledger), 0)

    def test_defaults_to_today_and_normalises_sku(self):
        movement = StockLedger().receive("tea 0042", 3)
        self.assertEqual(movement.when, date.today())
        self.assertEqual(movement.sku, "TEA-0042")

    def test_history_and_skus(self):
        ledger = sample_ledger()
        self.assertEqual(len(ledger.history()), len(ledger))
        self.assertEqual([m.kind for m in ledger.history("ACC-1001")], [RECEIPT, SALE, RETURN])
        self.assertEqual(ledger.skus(), ["ACC-1001", "COF-0310", "TEA-0042", "TEA-0107"])


class ReorderSuggestionTests(unittest.TestCase):
    def test_suggests_refill_to_twice_the_level(self):
        suggestions = reorder_suggestions(sample_ledger(), sample_catalog())
        self.assertEqual(suggestions, {"TEA-0042": 11, "COF-0310": 7})

    def test_batch_size_rounds_up(self):
        suggestions = reorder_suggestions(sample_ledger(), sample_catalog(), batch_size=6)
        self.assertEqual(suggestions, {"TEA-0042": 12, "COF-0310": 12})
        with self.assertRaises(ValueError):
            reorder_suggestions(sample_ledger(), sample_catalog(), batch_size=0)

    def test_empty_ledger_refills_everything(self):
        suggestions = reorder_suggestions(StockLedger(), sample_catalog(), batch_size=5)
        self.assertEqual(suggestions, {"ACC-1001": 5, "COF-0310": 10, "TEA-0042": 20, "TEA-0107": 25})

    def test_level_zero_is_ignored(self):
        catalog = Catalog([Product("ACC-1002", "Scoop", eur(320), reorder_level=0)])
        self.assertEqual(reorder_suggestions(StockLedger(), catalog), {})


if __name__ == "__main__":
    unittest.main()
