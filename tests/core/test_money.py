"""Exact money: parsing amounts, the one rounding rule."""

from __future__ import annotations

from fractions import Fraction

import pytest

from baccarat.core.errors import InvalidAmountError
from baccarat.core.money import MAX_AMOUNT, check_amount, format_amount, parse_amount, settle_net, winnings


@pytest.mark.parametrize(("text", "minor"), [("10", 1000), ("12.50", 1250), ("12.5", 1250), ("0.01", 1),
                                             (" 7 ", 700), ("007", 700)])
def test_parse_amount(text: str, minor: int) -> None:
    assert parse_amount(text) == minor


@pytest.mark.parametrize("text", ["", "0", "0.00", "-5", "+5", "12.505", "1e3", "nan", "inf", "abc", "1,000",
                                  "10.", ".5", "١٠", "99999999999999999"])
def test_parse_amount_refuses_bad_text(text: str) -> None:
    with pytest.raises(InvalidAmountError):
        parse_amount(text)


@pytest.mark.parametrize("value", [0, -1, 1.5, "10", None, True, MAX_AMOUNT + 1])
def test_check_amount_refuses_non_positive_non_integer_and_huge(value: object) -> None:
    with pytest.raises(InvalidAmountError):
        check_amount(value)


def test_format_amount() -> None:
    assert [format_amount(v) for v in (0, 5, 1250, -1999)] == ["0.00", "0.05", "12.50", "-19.99"]


def test_winnings_round_down_to_a_whole_minor_unit() -> None:
    assert winnings(1250, Fraction(19, 20)) == 1187
    assert winnings(3, Fraction(3, 2)) == 4
    assert settle_net(500, Fraction(-1)) == -500
    with pytest.raises(ValueError):
        settle_net(500, Fraction(-1, 2))
