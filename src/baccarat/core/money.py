"""Exact money: integer minor units (cents) and one written rounding rule.

All amounts inside the package are ``int`` minor units; odds are
:class:`fractions.Fraction`.  Floats never take part in settlement.

Rounding rule (the only one): a win that is not a whole number of minor units
(the 5% Banker commission, Lucky Draw's 3 to 2) is **rounded down to a whole
minor unit**; the fraction of a cent stays with the house.  Equivalently the
Banker commission is 5% of the win rounded *up* to the next cent:
a 12.50 Banker win pays 11.87 (commission 0.63).

>>> parse_amount("12.50")
1250
>>> format_amount(1187)
'11.87'
>>> winnings(1250, Fraction(19, 20))
1187
"""

from __future__ import annotations

import re
from fractions import Fraction

from baccarat.core.errors import InvalidAmountError

# The words for an amount live with the other words (every refusal naming an amount uses them), below
# the errors that this module raises; they are this module's too.
from baccarat.core.messages import MINOR_UNITS as MINOR_UNITS  # minor units per currency unit
from baccarat.core.messages import format_amount as format_amount

#: Largest amount accepted anywhere (one trillion currency units): keeps every
#: figure far inside what a database BIGINT holds, and refuses absurd input.
MAX_AMOUNT = 10**12 * MINOR_UNITS

_AMOUNT_RE = re.compile(r"(?P<whole>[0-9]+)(?:\.(?P<frac>[0-9]{1,2}))?")


def parse_amount(text: str) -> int:
    """Parse a positive amount in currency units (``"10"``, ``"12.50"``) into minor units.

    Refuses anything that is not plain decimal notation with at most two
    decimals, zero, negative numbers and amounts above :data:`MAX_AMOUNT`.

    >>> parse_amount("10")
    1000
    >>> parse_amount("0.05")
    5
    """
    if not isinstance(text, str):
        raise InvalidAmountError.coded("amount.not_text", amount=text)
    stripped = text.strip()
    match = _AMOUNT_RE.fullmatch(stripped)
    if match is None:
        raise InvalidAmountError.coded("amount.not_decimal", amount=text)
    frac = (match.group("frac") or "").ljust(2, "0")
    minor = int(match.group("whole")) * MINOR_UNITS + int(frac or "0")
    return check_amount(minor)


def check_amount(minor: object) -> int:
    """Return ``minor`` if it is a positive whole number of minor units within bounds.

    >>> check_amount(500)
    500
    """
    # bool is an int subclass; True is not an amount.
    if not isinstance(minor, int) or isinstance(minor, bool):
        raise InvalidAmountError.coded("amount.not_whole", amount=minor)
    if minor <= 0:
        raise InvalidAmountError.coded("amount.not_positive", amount=minor)
    if minor > MAX_AMOUNT:
        raise InvalidAmountError.coded("amount.too_large", amount=minor)
    return minor


def winnings(stake: int, odds: Fraction) -> int:
    """Net amount won on ``stake`` at net ``odds`` (>= 0), rounded down to a minor unit.

    >>> winnings(1000, Fraction(3, 2))
    1500
    >>> winnings(1, Fraction(19, 20))
    0
    """
    if odds < 0:
        raise ValueError("winnings() takes the odds of a win; losses are the stake")
    return (stake * odds.numerator) // odds.denominator


def settle_net(stake: int, odds: Fraction) -> int:
    """Net result of ``stake`` at net ``odds``: -stake for -1, 0 for a push, rounded-down win.

    >>> settle_net(1000, Fraction(-1))
    -1000
    >>> settle_net(1000, Fraction(0))
    0
    """
    if odds == -1:
        return -stake
    if odds < 0:
        raise ValueError(f"net odds below zero must be -1 (a loss), got {odds}")
    return winnings(stake, odds)
