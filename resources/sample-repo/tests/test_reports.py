import unittest
from datetime import date

from inventory.catalog import Catalog, Product
from inventory.errors import CurrencyMismatchError, UnknownProductError
from inventory.money import Money
from inventory.pricing import PriceRule
from inventory.reports import (
    NO_LOW_STOCK_MESSAGE,
    format_table,
    inventory_report,
    low_stock_report,
    sales_summary,
    stock_valuation,
)
from inventory.serialize import load_catalog, load_ledger
from inventory.stock import StockLedger

from tests.helpers import DATA_DIR, eur, sample_catalog, sample_ledger


class FormatTableTests(unittest.TestCase):
    def test_alignment_and_widths(self):
        table = format_table([["TEA-0042", 9, eur(490)], ["ACC-1001", 12, eur(2400)]], ["SKU", "Qty", "Price"])
        self.assertEqual(
            table.splitlines(),
            [
                "SKU       Qty  Price",
                "--------  ---  ------",
                "TEA-0042    9   €4.90",
                "ACC-1001   12  €24.00",
            ],
        )

    def test_no_trailing_spaces(self):
        table = format_table([["a", "b"], ["long value", ""]], ["x", "y"])
        for line in table.splitlines():
            self.assertEqual(line, line.rstrip())
        self.assertFalse(table.endswith("\n"))

    def test_row_length_mismatch(self):
        with self.assertRaises(ValueError):
            format_table([["only one"]], ["a", "b"])


class StockValuationTests(unittest.TestCase):
    def test_stock_valuation_empty_ledger_is_zero(self):
        self.assertEqual(stock_valuation(StockLedger(), sample_catalog()), eur(0))
        self.assertEqual(stock_valuation(StockLedger(), Catalog(), currency="USD"), Money(0, "USD"))

    def test_stock_valuation_sums_quantity_times_price(self):
        # 9 x 4.90 + 22 x 3.60 + 3 x 18.50 + 3 x 24.00
        self.assertEqual(stock_valuation(sample_ledger(), sample_catalog()), eur(4410 + 7920 + 5550 + 7200))

    def test_stock_valuation_ignores_negative_stock(self):
        ledger = StockLedger(allow_negative=True)
        ledger.receive("TEA-0042", 2, when=date(2024, 1, 1))
        ledger.sell("TEA-0107", 5, when=date(2024, 1, 2))
        self.assertEqual(stock_valuation(ledger, sample_catalog()), eur(980))

    def test_stock_valuation_after_write_off(self):
        ledger = StockLedger(allow_negative=True)
        ledger.receive("COF-0310", 2, when=date(2024, 1, 1))
        ledger.record("COF-0310", "adjustment", -3, when=date(2024, 1, 5), note="bags split")
        ledger.receive("ACC-1001", 1, when=date(2024, 1, 1))
        self.assertEqual(stock_valuation(ledger, sample_catalog()), eur(2400))

    def test_stock_valuation_unknown_product(self):
        ledger = StockLedger()
        ledger.receive("ZZZ-0001", 1)
        with self.assertRaises(UnknownProductError):
            stock_valuation(ledger, sample_catalog())

    def test_stock_valuation_currency(self):
        catalog = Catalog([Product("USA-001", "Imported mug", Money(1250, "USD"))])
        ledger = StockLedger()
        ledger.receive("USA-001", 4)
        self.assertEqual(stock_valuation(ledger, catalog, currency="USD"), Money(5000, "USD"))
        with self.assertRaises(CurrencyMismatchError):
            stock_valuation(ledger, catalog)

    def test_stock_valuation_bundled_data(self):
        catalog = load_catalog(DATA_DIR / "products.csv")
        ledger = load_ledger(DATA_DIR / "movements.json")
        self.assertEqual(stock_valuation(ledger, catalog), eur(31605))


class LowStockReportTests(unittest.TestCase):
    def test_low_stock_report_exact_text(self):
        expected = "\n".join(
            [
                "Low stock",
                "=========",
                "SKU       Product             On hand  Reorder at",
                "--------  ------------------  -------  ----------",
                "COF-0310  Espresso beans 1kg        3           5",
                "TEA-0042  Green tea 100g            9          10",
            ]
        )
        self.assertEqual(low_stock_report(sample_ledger(), sample_catalog()), expected)

    def test_low_stock_report_orders_by_shortfall_then_sku(self):
        ledger = StockLedger()
        ledger.receive("TEA-0107", 2)  # shortfall 10
        ledger.receive("ACC-1001", 2)  # shortfall 0 (at the level counts as low)
        # TEA-0042 and COF-0310 never moved: shortfalls 10 and 5
        report = low_stock_report(ledger, sample_catalog())
        rows = report.splitlines()[4:]
        self.assertEqual([row.split()[0] for row in rows], ["TEA-0042", "TEA-0107", "COF-0310", "ACC-1001"])

    def test_low_stock_report_includes_product_at_level(self):
        ledger = sample_ledger()
        ledger.sell("ACC-1001", 1)
        report = low_stock_report(ledger, sample_catalog())
        self.assertEqual(report.splitlines()[-1], "ACC-1001  Ceramic teapot 1.2l        2           2")

    def test_low_stock_report_worst_first(self):
        ledger = StockLedger()
        ledger.receive("TEA-0042", 9)
        ledger.receive("TEA-0107", 1)
        ledger.receive("COF-0310", 5)
        ledger.receive("ACC-1001", 7)
        rows = low_stock_report(ledger, sample_catalog()).splitlines()[4:]
        self.assertEqual([row.split()[0] for row in rows], ["TEA-0107", "TEA-0042", "COF-0310"])

    def test_low_stock_report_skips_untracked_products(self):
        report = low_stock_report(StockLedger(), sample_catalog())
        self.assertNotIn("GFT-0900", report)
        self.assertIn("TEA-0042", report)

    def test_low_stock_report_nothing_low(self):
        ledger = StockLedger()
        for product in sample_catalog():
            ledger.receive(product.sku, product.reorder_level + 1)
        report = low_stock_report(ledger, sample_catalog(), title="Reorder check")
        self.assertEqual(report, "Reorder check\n=============\n" + NO_LOW_STOCK_MESSAGE)

    def test_low_stock_report_custom_title(self):
        report = low_stock_report(sample_ledger(), sample_catalog(), title="Friday order")
        self.assertTrue(report.startswith("Friday order\n============\nSKU"))


class OtherReportTests(unittest.TestCase):
    def test_inventory_report_sections(self):
        report = inventory_report(sample_ledger(), sample_catalog(), title="Shop")
        self.assertTrue(report.startswith("Shop\n====\n"))
        self.assertIn("Stock value: €250.80", report)
        self.assertIn("Low stock", report)

    def test_inventory_report_with_negative_stock(self):
        ledger = StockLedger(allow_negative=True)
        ledger.receive("TEA-0042", 10)
        ledger.sell("GFT-0900", 1)
        report = inventory_report(ledger, sample_catalog())
        self.assertIn("Stock value: €49.00", report)

    def test_sales_summary(self):
        report = sales_summary(sample_ledger(), sample_catalog(), PriceRule.bulk(5, 10), since=date(2024, 3, 10))
        lines = report.splitlines()
        self.assertEqual(lines[0], "Sales summary")
        self.assertEqual([line.split()[0] for line in lines[4:]], ["ACC-1001", "COF-0310", "TOTAL"])
        self.assertIn("€122.96", report)

    def test_sales_summary_empty_period(self):
        report = sales_summary(sample_ledger(), sample_catalog(), since=date(2025, 1, 1))
        self.assertTrue(report.endswith("No sales in this period."))


if __name__ == "__main__":
    unittest.main()
