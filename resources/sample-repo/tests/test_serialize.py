import tempfile
import unittest
from datetime import date
from pathlib import Path

from inventory.errors import ImportFormatError
from inventory.money import Money
from inventory.serialize import (
    dump_products_csv,
    load_catalog,
    load_ledger,
    load_products_csv,
    movements_from_json,
    movements_to_json,
    save_ledger,
)

from tests.helpers import DATA_DIR, eur, sample_catalog, sample_ledger

FULL_CSV = """sku,name,price,category,tax_class,reorder_level,tags
TEA-0042,Green tea 100g,€4.90,tea,reduced,10,organic;loose
acc_1001,Ceramic teapot,24,Accessories,standard,2,gift
"""


class LoadProductsCsvTests(unittest.TestCase):
    def test_load_products_full_rows(self):
        products = load_products_csv(FULL_CSV)
        self.assertEqual([p.sku for p in products], ["TEA-0042", "ACC-1001"])
        tea = products[0]
        self.assertEqual(tea.name, "Green tea 100g")
        self.assertEqual(tea.unit_price, eur(490))
        self.assertEqual((tea.category, tea.tax_class, tea.reorder_level), ("tea", "reduced", 10))
        self.assertEqual(tea.tags, ("loose", "organic"))
        self.assertEqual(products[1].category, "accessories")

    def test_load_products_price_uses_default_currency(self):
        products = load_products_csv(FULL_CSV, default_currency="USD")
        self.assertEqual(products[0].unit_price, Money(490, "EUR"))
        self.assertEqual(products[1].unit_price, Money(2400, "USD"))
        products = load_products_csv('sku,name,price\nMUG-001,Mug,"1,299.5 GBP"\n')
        self.assertEqual(products[0].unit_price, Money(129950, "GBP"))

    def test_load_products_optional_columns_default(self):
        products = load_products_csv("sku,name,price\nACC-1002,Bamboo scoop,3.20\n")
        self.assertEqual(len(products), 1)
        scoop = products[0]
        self.assertEqual((scoop.category, scoop.tax_class, scoop.reorder_level, scoop.tags), ("general", "standard", 0, ()))
        products = load_products_csv(
            "sku,name,price,category,tax_class,reorder_level,tags\nACC-1002,Bamboo scoop,3.20,,,,\n"
        )
        self.assertEqual((products[0].category, products[0].tax_class, products[0].reorder_level), ("general", "standard", 0))

    def test_load_products_catalog_file_in_other_currency(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "us.csv"
            path.write_text("sku,name,price\nMUG-001,Mug,12\nMUG-002,Big mug,€15\n", encoding="utf-8")
            catalog = load_catalog(path, default_currency="usd")
        self.assertEqual(catalog.get("MUG-001").unit_price, Money(1200, "USD"))
        self.assertEqual(catalog.get("MUG-002").unit_price, Money(1500, "EUR"))

    def test_load_products_skips_blank_lines(self):
        text = "sku,name,price\n\nTEA-0042,Green tea,4.90\n,,\n\nTEA-0107,Earl Grey,3.60\n"
        self.assertEqual([p.sku for p in load_products_csv(text)], ["TEA-0042", "TEA-0107"])

    def test_load_products_header_is_case_insensitive(self):
        products = load_products_csv(" SKU , Name ,PRICE\nTEA-0042,Green tea,4.90\n")
        self.assertEqual(products[0].unit_price, eur(490))
        self.assertEqual(products[0].name, "Green tea")

    def test_load_products_missing_column(self):
        with self.assertRaises(ImportFormatError) as ctx:
            load_products_csv("sku,name\nTEA-0042,Green tea\n")
        self.assertIsNone(ctx.exception.line)
        self.assertIn("price", str(ctx.exception))
        with self.assertRaises(ImportFormatError):
            load_products_csv("")

    def test_load_products_bad_row_reports_line(self):
        text = "sku,name,price\nTEA-0042,Green tea,4.90\nTEA-0107,Earl Grey,cheap\n"
        with self.assertRaises(ImportFormatError) as ctx:
            load_products_csv(text)
        self.assertEqual(ctx.exception.line, 3)
        text = "sku,name,price,reorder_level\nTEA-0042,Green tea,4.90,ten\n"
        with self.assertRaises(ImportFormatError) as ctx:
            load_products_csv(text)
        self.assertEqual(ctx.exception.line, 2)
        with self.assertRaises(ImportFormatError):
            load_products_csv("sku,name,price\nnot a sku,Thing,1\n")

    def test_dump_and_load_round_trip(self):
        products = list(sample_catalog())
        self.assertEqual(load_products_csv(dump_products_csv(products)), products)

    def test_bundled_products_file(self):
        catalog = load_catalog(DATA_DIR / "products.csv")
        self.assertEqual(len(catalog), 7)
        self.assertEqual(catalog.get("COF-0310").unit_price, eur(1850))
        self.assertEqual(catalog.get("GFT-0900").tax_class, "exempt")


class MovementsJsonTests(unittest.TestCase):
    def test_round_trip(self):
        ledger = sample_ledger()
        restored = movements_from_json(movements_to_json(ledger))
        self.assertEqual(restored, ledger.history())

    def test_rejects_bad_documents(self):
        with self.assertRaises(ImportFormatError):
            movements_from_json("{not json")
        with self.assertRaises(ImportFormatError):
            movements_from_json('{"version": 99, "movements": []}')
        with self.assertRaises(ImportFormatError):
            movements_from_json('{"version": 1, "movements": [{"sku": "TEA-0042"}]}')

    def test_save_and_load_ledger(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "ledger.json"
            save_ledger(sample_ledger(), path)
            ledger = load_ledger(path)
        self.assertEqual(ledger.quantity_on_hand("TEA-0042"), 9)
        self.assertEqual(ledger.history("ACC-1001")[-1].when, date(2024, 3, 14))

    def test_bundled_movements_file(self):
        ledger = load_ledger(DATA_DIR / "movements.json")
        self.assertEqual(len(ledger), 11)
        self.assertEqual(ledger.quantity_on_hand("COF-0311"), 9)


if __name__ == "__main__":
    unittest.main()
