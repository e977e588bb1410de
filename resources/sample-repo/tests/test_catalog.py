import unittest

from inventory.catalog import Catalog, Product, find_product
from inventory.errors import DuplicateProductError, UnknownProductError
from inventory.money import Money

from tests.helpers import eur, sample_catalog


class ProductTests(unittest.TestCase):
    def test_fields_are_normalised(self):
        product = Product(" tea_0042 ", " Green tea ", eur(490), " Tea ", tags=("Organic", " loose", "organic", ""))
        self.assertEqual(product.sku, "TEA-0042")
        self.assertEqual(product.name, "Green tea")
        self.assertEqual(product.category, "tea")
        self.assertEqual(product.tags, ("loose", "organic"))

    def test_defaults(self):
        product = Product("ACC-1002", "Tea scoop", eur(320))
        self.assertEqual(product.category, "general")
        self.assertEqual(product.tax_class, "standard")
        self.assertEqual(product.reorder_level, 0)

    def test_validation(self):
        with self.assertRaises(ValueError):
            Product("not a sku!", "x", eur(1))
        with self.assertRaises(ValueError):
            Product("ABC-123", "  ", eur(1))
        with self.assertRaises(ValueError):
            Product("ABC-123", "x", eur(1), tax_class="luxury")
        with self.assertRaises(ValueError):
            Product("ABC-123", "x", eur(1), reorder_level=-1)

    def test_display_name_and_with_price(self):
        product = Product("TEA-0042", "Green tea 100g", eur(490))
        self.assertEqual(product.display_name, "Green tea 100g (TEA-0042)")
        cheaper = product.with_price(eur(450))
        self.assertEqual(cheaper.unit_price, eur(450))
        self.assertEqual(product.unit_price, eur(490))


class CatalogTests(unittest.TestCase):
    def setUp(self):
        self.catalog = sample_catalog()

    def test_normalize_sku_is_static(self):
        self.assertEqual(Catalog.normalize_sku("cof 0310"), "COF-0310")
        with self.assertRaises(ValueError):
            Catalog.normalize_sku("C-1")

    def test_len_iter_and_contains(self):
        self.assertEqual(len(self.catalog), 5)
        skus = [product.sku for product in self.catalog]
        self.assertEqual(skus, sorted(skus))
        self.assertIn("tea_0042", self.catalog)
        self.assertNotIn("TEA-9999", self.catalog)
        self.assertNotIn("garbage", self.catalog)

    def test_add_duplicate_and_replace(self):
        product = Product("TEA-0042", "Green tea 250g", eur(990))
        with self.assertRaises(DuplicateProductError):
            self.catalog.add(product)
        self.catalog.add(product, replace=True)
        self.assertEqual(self.catalog.get("TEA-0042").name, "Green tea 250g")

    def test_remove(self):
        removed = self.catalog.remove("gft 0900")
        self.assertEqual(removed.name, "Gift card")
        self.assertIsNone(self.catalog.get("GFT-0900"))
        with self.assertRaises(UnknownProductError):
            self.catalog.remove("GFT-0900")

    def test_categories(self):
        self.assertEqual(self.catalog.categories(), ["accessories", "coffee", "gifts", "tea"])

    def test_search(self):
        self.assertEqual([p.sku for p in self.catalog.search("tea")], ["ACC-1001", "TEA-0042", "TEA-0107"])
        self.assertEqual([p.sku for p in self.catalog.search(category="TEA")], ["TEA-0042", "TEA-0107"])
        self.assertEqual([p.sku for p in self.catalog.search(tags=["organic", "loose"])], ["TEA-0042"])
        self.assertEqual([p.sku for p in self.catalog.search("pot")], ["ACC-1001"])
        self.assertEqual(self.catalog.search("nothing like this"), [])


class FindProductTests(unittest.TestCase):
    def test_found_in_any_spelling(self):
        catalog = sample_catalog()
        self.assertEqual(find_product(catalog, "acc_1001").name, "Ceramic teapot 1.2l")

    def test_missing_raises(self):
        catalog = sample_catalog()
        with self.assertRaises(UnknownProductError) as ctx:
            find_product(catalog, "acc-9999")
        self.assertEqual(ctx.exception.sku, "ACC-9999")
        with self.assertRaises(LookupError):
            find_product(catalog, "???")

    def test_prices_keep_their_currency(self):
        catalog = Catalog([Product("USA-001", "Imported mug", Money(1200, "USD"))])
        self.assertEqual(find_product(catalog, "USA-001").unit_price.currency, "USD")


if __name__ == "__main__":
    unittest.main()
