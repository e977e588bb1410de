import unittest
from decimal import Decimal

from inventory.catalog import Catalog, Product
from inventory.errors import UnknownProductError
from inventory.money import Money
from inventory.pricing import (
    PriceRule,
    add_tax,
    apply_discount,
    order_total,
    price_line,
    quote_order,
    tax_included,
    tax_rate,
)

from tests.helpers import eur, sample_catalog


class ApplyDiscountTests(unittest.TestCase):
    def test_apply_discount_basic(self):
        self.assertEqual(apply_discount(eur(2000), 10), eur(1800))
        self.assertEqual(apply_discount(eur(490), 25), eur(367))

    def test_apply_discount_rounds_half_up(self):
        # The discount (50.5 cents) is rounded, not the result.
        self.assertEqual(apply_discount(eur(101), 50), eur(50))
        self.assertEqual(apply_discount(eur(999), 12.5), eur(874))

    def test_apply_discount_zero_and_full(self):
        self.assertEqual(apply_discount(eur(1234), 0), eur(1234))
        self.assertEqual(apply_discount(eur(1234), 100), eur(0))

    def test_apply_discount_keeps_currency(self):
        self.assertEqual(apply_discount(Money(1000, "USD"), 15), Money(850, "USD"))
        self.assertEqual(apply_discount(Money(1000, "GBP"), Decimal("2.5")), Money(975, "GBP"))

    def test_apply_discount_on_refund(self):
        self.assertEqual(apply_discount(eur(-101), 50), eur(-50))

    def test_apply_discount_rejects_out_of_range(self):
        for percent in (-1, 100.5, 250):
            with self.subTest(percent=percent):
                with self.assertRaises(ValueError):
                    apply_discount(eur(1000), percent)


class TaxTests(unittest.TestCase):
    def test_add_tax_standard_rate(self):
        self.assertEqual(add_tax(eur(1000)), eur(1200))
        self.assertEqual(add_tax(eur(1000), "standard"), eur(1200))

    def test_add_tax_reduced_rate_rounds_half_up(self):
        # 5.5% of 4.90 is 26.95 cents -> 27.
        self.assertEqual(add_tax(eur(490), "reduced"), eur(517))
        # 5.5% of 0.10 is 0.55 cents -> 1.
        self.assertEqual(add_tax(eur(10), "reduced"), eur(11))
        # 5.5% of 3.00 is exactly 16.5 cents -> 17 (not banker's 16).
        self.assertEqual(add_tax(eur(300), "reduced"), eur(317))

    def test_add_tax_exempt_is_unchanged(self):
        self.assertEqual(add_tax(eur(2500), "exempt"), eur(2500))

    def test_add_tax_keeps_currency(self):
        self.assertEqual(add_tax(Money(999, "USD"), "standard"), Money(1199, "USD"))

    def test_add_tax_unknown_class(self):
        with self.assertRaises(ValueError):
            add_tax(eur(100), "luxury")

    def test_tax_rate_and_tax_included(self):
        self.assertEqual(tax_rate("reduced"), Decimal("0.055"))
        self.assertEqual(tax_included(eur(1200), "standard"), eur(200))
        self.assertEqual(tax_included(eur(517), "reduced"), eur(27))


class PriceRuleTests(unittest.TestCase):
    def test_price_rule_below_min_quantity_is_unchanged(self):
        rule = PriceRule("six-pack", percent=10, min_quantity=6)
        self.assertEqual(rule.apply(eur(2450), 5), eur(2450))

    def test_price_rule_at_min_quantity_discounts(self):
        rule = PriceRule("six-pack", percent=10, min_quantity=6)
        self.assertEqual(rule.apply(eur(2940), 6), eur(2646))
        self.assertEqual(rule.apply(eur(101), 7), eur(91))

    def test_price_rule_percentage_before_amount_off(self):
        rule = PriceRule("combo", percent=10, amount_off=eur(150))
        self.assertEqual(rule.apply(eur(2000), 1), eur(1650))

    def test_price_rule_amount_off_clamps_at_zero(self):
        rule = PriceRule("voucher", amount_off=eur(500))
        self.assertEqual(rule.apply(eur(300)), eur(0))
        usd_rule = PriceRule("voucher", percent=10, amount_off=Money(500, "USD"))
        self.assertEqual(usd_rule.apply(Money(600, "USD"), 1), Money(40, "USD"))
        self.assertEqual(usd_rule.apply(Money(550, "USD"), 1), Money(0, "USD"))

    def test_price_rule_rounds_like_apply_discount(self):
        rule = PriceRule("half price", percent=50)
        self.assertEqual(rule.apply(eur(101), 1), eur(50))

    def test_bulk_classmethod(self):
        rule = PriceRule.bulk(10, 5, category="tea")
        self.assertEqual(rule.name, "bulk 10+ (-5%)")
        self.assertEqual((rule.percent, rule.min_quantity, rule.category), (5, 10, "tea"))

    def test_applies_to(self):
        tea = sample_catalog().get("TEA-0042")
        rule = PriceRule.bulk(6, 10, category="Tea")
        self.assertTrue(rule.applies_to(tea, 6))
        self.assertFalse(rule.applies_to(tea, 5))
        coffee = sample_catalog().get("COF-0310")
        self.assertFalse(rule.applies_to(coffee, 50))


class PriceLineTests(unittest.TestCase):
    def setUp(self):
        self.catalog = sample_catalog()

    def test_price_line_without_rules(self):
        quote = price_line(self.catalog, "TEA-0042", 3)
        self.assertEqual(quote.sku, "TEA-0042")
        self.assertEqual(quote.unit_price, eur(490))
        self.assertEqual(quote.subtotal, eur(1470))
        self.assertEqual(quote.discount, eur(0))
        self.assertEqual(quote.tax, eur(81))  # 5.5% of 14.70 = 80.85
        self.assertEqual(quote.total, eur(1551))
        self.assertIsNone(quote.rule)

    def test_price_line_uses_product_tax_class(self):
        self.assertEqual(price_line(self.catalog, "ACC-1001", 1).tax, eur(480))
        self.assertEqual(price_line(self.catalog, "GFT-0900", 2).tax, eur(0))

    def test_price_line_picks_best_rule(self):
        small = PriceRule.bulk(2, 5)
        big = PriceRule.bulk(6, 15, category="tea")
        coffee_only = PriceRule.bulk(1, 50, category="coffee")
        quote = price_line(self.catalog, "tea_0042", 6, small, coffee_only, big)
        self.assertEqual(quote.subtotal, eur(2940))
        self.assertEqual(quote.discount, eur(441))
        self.assertEqual(quote.net, eur(2499))
        self.assertEqual(quote.tax, eur(137))  # 5.5% of 24.99 = 137.445
        self.assertEqual(quote.rule, "bulk 6+ (-15%)")

    def test_price_line_rules_do_not_stack(self):
        quote = price_line(self.catalog, "COF-0310", 2, PriceRule("loyalty", percent=5), PriceRule("coffee week", percent=10))
        self.assertEqual(quote.discount, eur(370))
        self.assertEqual(quote.rule, "coffee week")

    def test_price_line_with_voucher_rule(self):
        voucher = PriceRule("tea voucher", percent=10, min_quantity=6, category="tea", amount_off=eur(200))
        quote = price_line(self.catalog, "TEA-0042", 6, voucher, include_tax=False)
        self.assertEqual(quote.net, eur(2446))
        self.assertEqual(quote.rule, "tea voucher")

    def test_price_line_tie_keeps_first_rule(self):
        first = PriceRule("first", percent=10)
        second = PriceRule("second", percent=10)
        self.assertEqual(price_line(self.catalog, "COF-0310", 1, first, second).rule, "first")

    def test_price_line_ignores_rules_that_do_not_apply(self):
        rule = PriceRule.bulk(10, 20)
        quote = price_line(self.catalog, "COF-0310", 9, rule)
        self.assertEqual(quote.discount, eur(0))
        self.assertIsNone(quote.rule)

    def test_price_line_without_tax(self):
        quote = price_line(self.catalog, "ACC-1001", 2, PriceRule.bulk(2, 10), include_tax=False)
        self.assertEqual(quote.tax, eur(0))
        self.assertEqual(quote.total, eur(4320))

    def test_price_line_errors(self):
        with self.assertRaises(UnknownProductError):
            price_line(self.catalog, "XYZ-0001", 1)
        with self.assertRaises(ValueError):
            price_line(self.catalog, "TEA-0042", 0)

    def test_price_line_other_currency(self):
        catalog = Catalog([Product("USA-001", "Imported mug", Money(1250, "USD"))])
        quote = price_line(catalog, "USA-001", 2)
        self.assertEqual(quote.total, Money(3000, "USD"))

    def test_quote_order_and_total(self):
        quotes = quote_order(self.catalog, [("TEA-0042", 3), ("ACC-1001", 1)], include_tax=True)
        self.assertEqual([q.sku for q in quotes], ["TEA-0042", "ACC-1001"])
        self.assertEqual(order_total(quotes), eur(1551 + 2880))
        self.assertEqual(order_total([]), eur(0))


if __name__ == "__main__":
    unittest.main()
