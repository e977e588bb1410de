import unittest
from decimal import Decimal

from inventory.errors import CurrencyMismatchError, InvalidAmountError, UnknownCurrencyError
from inventory.money import Money, _round_half_up, parse_money, total


class RoundHalfUpTests(unittest.TestCase):
    def test_halves_go_away_from_zero(self):
        self.assertEqual(_round_half_up(2.5), 3)
        self.assertEqual(_round_half_up(-2.5), -3)
        self.assertEqual(_round_half_up(Decimal("0.5")), 1)

    def test_non_halves_round_to_nearest(self):
        self.assertEqual(_round_half_up(2.49), 2)
        self.assertEqual(_round_half_up(-2.51), -3)
        self.assertEqual(_round_half_up(7), 7)

    def test_rejects_non_numbers(self):
        with self.assertRaises(InvalidAmountError):
            _round_half_up("abc")
        with self.assertRaises(InvalidAmountError):
            _round_half_up(float("nan"))


class MoneyConstructionTests(unittest.TestCase):
    def test_from_cents(self):
        amount = Money.from_cents(1250, "usd")
        self.assertEqual(amount.cents, 1250)
        self.assertEqual(amount.currency, "USD")

    def test_from_decimal_rounds_half_up(self):
        self.assertEqual(Money.from_decimal("12.345").cents, 1235)
        self.assertEqual(Money.from_decimal(0.125).cents, 13)
        self.assertEqual(Money.from_decimal(Decimal("-1.005")).cents, -101)

    def test_unknown_currency(self):
        with self.assertRaises(UnknownCurrencyError):
            Money(100, "XYZ")

    def test_cents_must_be_int(self):
        with self.assertRaises(TypeError):
            Money(1.5)
        with self.assertRaises(TypeError):
            Money(True)

    def test_amount_property(self):
        self.assertEqual(Money(1250).amount, Decimal("12.50"))
        self.assertEqual(Money(-5).amount, Decimal("-0.05"))

    def test_zero_and_flags(self):
        self.assertTrue(Money.zero("GBP").is_zero)
        self.assertTrue(Money(-1).is_negative)
        self.assertFalse(Money(0).is_negative)


class MoneyArithmeticTests(unittest.TestCase):
    def test_add_and_subtract(self):
        self.assertEqual(Money(150) + Money(275), Money(425))
        self.assertEqual(Money(150) - Money(275), Money(-125))
        self.assertEqual(-Money(150), Money(-150))

    def test_mixing_currencies_raises(self):
        with self.assertRaises(CurrencyMismatchError):
            Money(100, "EUR") + Money(100, "USD")
        with self.assertRaises(CurrencyMismatchError):
            Money(100, "EUR") < Money(100, "GBP")

    def test_comparisons(self):
        self.assertTrue(Money(1) < Money(2))
        self.assertTrue(Money(2) <= Money(2))
        self.assertFalse(Money(3) <= Money(2))

    def test_total(self):
        self.assertEqual(total([Money(100), Money(250), Money(-50)]), Money(300))
        self.assertEqual(total([], "USD"), Money(0, "USD"))


class MoneyMultiplyTests(unittest.TestCase):
    def test_multiply_by_quantity(self):
        self.assertEqual(Money(490).multiply(6), Money(2940))
        self.assertEqual(Money(1999).multiply(0), Money(0))

    def test_multiply_rounds_half_up(self):
        self.assertEqual(Money(101).multiply(Decimal("0.5")), Money(51))
        self.assertEqual(Money(333).multiply(Decimal("0.1")), Money(33))
        self.assertEqual(Money(-101).multiply(Decimal("0.5")), Money(-51))

    def test_multiply_rounds_to_nearest_cent(self):
        self.assertEqual(Money(199).multiply(Decimal("0.3")), Money(60))
        self.assertEqual(Money(25).multiply(Decimal("0.5")), Money(13))
        self.assertEqual(Money(10).multiply(0.25), Money(3))

    def test_multiply_float_factor_is_read_as_decimal(self):
        # 45 * 0.7 is 31.4999... in binary floating point but 31.5 exactly.
        self.assertEqual(Money(45).multiply(0.7), Money(32))
        self.assertEqual(Money(50).multiply(1.15), Money(58))

    def test_multiply_keeps_currency(self):
        result = Money(1000, "GBP").multiply(Decimal("1.5"))
        self.assertEqual(result, Money(1500, "GBP"))
        self.assertIsInstance(result.cents, int)

    def test_multiply_returns_new_object(self):
        original = Money(200)
        doubled = original.multiply(2)
        self.assertEqual(original, Money(200))
        self.assertEqual(doubled, Money(400))

    def test_multiply_rejects_non_numbers(self):
        with self.assertRaises(InvalidAmountError):
            Money(100).multiply("lots")


class MoneySplitTests(unittest.TestCase):
    def test_split_even(self):
        self.assertEqual(Money(900).split(3), [Money(300)] * 3)

    def test_split_distributes_remainder(self):
        parts = Money(1000).split(3)
        self.assertEqual([p.cents for p in parts], [334, 333, 333])
        self.assertEqual(total(parts), Money(1000))

    def test_split_negative_and_invalid(self):
        self.assertEqual([p.cents for p in Money(-5).split(2)], [-3, -2])
        with self.assertRaises(ValueError):
            Money(5).split(0)


class MoneyFormatTests(unittest.TestCase):
    def test_format_with_symbol(self):
        self.assertEqual(Money(129990).format(), "€1,299.90")
        self.assertEqual(str(Money(-1250, "USD")), "-$12.50")

    def test_format_with_code(self):
        self.assertEqual(Money(5, "GBP").format(symbol=False), "0.05 GBP")


class ParseMoneyTests(unittest.TestCase):
    def test_plain_number_uses_default_currency(self):
        self.assertEqual(parse_money("4.90"), Money(490, "EUR"))
        self.assertEqual(parse_money("4.90", "USD"), Money(490, "USD"))
        self.assertEqual(parse_money("  7 "), Money(700, "EUR"))

    def test_symbol_prefix_and_thousands(self):
        self.assertEqual(parse_money("€1,299.90"), Money(129990, "EUR"))
        self.assertEqual(parse_money("£3", "USD"), Money(300, "GBP"))

    def test_currency_code_before_or_after(self):
        self.assertEqual(parse_money("12.5 usd"), Money(1250, "USD"))
        self.assertEqual(parse_money("GBP 0.99"), Money(99, "GBP"))
        self.assertEqual(parse_money("EUR €2.00", "USD"), Money(200, "EUR"))

    def test_negative_amounts(self):
        self.assertEqual(parse_money("-$4.10"), Money(-410, "USD"))
        self.assertEqual(parse_money("-0.50 EUR"), Money(-50, "EUR"))

    def test_sub_cent_digits_round_half_up(self):
        self.assertEqual(parse_money("0.125"), Money(13))
        self.assertEqual(parse_money("-0.125"), Money(-13))
        self.assertEqual(parse_money("2.674"), Money(267))

    def test_invalid_text_raises(self):
        for text in ["", "   ", "abc", "12.3.4", "1 2 3", "€-5", "$5 EUR"]:
            with self.subTest(text=text):
                with self.assertRaises(InvalidAmountError):
                    parse_money(text)

    def test_unknown_currency_code(self):
        with self.assertRaises(UnknownCurrencyError):
            parse_money("12 XYZ")


if __name__ == "__main__":
    unittest.main()
