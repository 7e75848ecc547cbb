"""Round orders: the script-file line format shared by terminal play and its tests.

One round per non-empty line; ``#`` starts a comment.  Tokens are
``WAGER=AMOUNT`` (amount in currency units, ``10`` or ``12.50``) and, in Lucky
Draw, ``draw`` or ``stand`` (the decision taken after seeing the cards;
absent means stand, as when a seat's time runs out).

>>> parse_line("player=10 dragon_bonus_player=2.50  # a comment")
RoundOrder(bets={'player': 1000, 'dragon_bonus_player': 250}, decision=None)
>>> parse_line("enter=5 draw")
RoundOrder(bets={'enter': 500}, decision='draw')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from baccarat.core.errors import BaccaratError
from baccarat.core.money import parse_amount

Decision = Literal["draw", "stand"]


class ScriptError(BaccaratError, ValueError):
    """A script line cannot be read."""

    family = "script.invalid"


@dataclass(frozen=True)
class RoundOrder:
    """What one line asks for: bets (wager code -> minor units) and an optional decision."""

    bets: dict[str, int]
    decision: Decision | None = None


def strip_comment(line: str) -> str:
    """The line without its ``#`` comment and surrounding blanks."""
    return line.split("#", 1)[0].strip()


def parse_line(line: str) -> RoundOrder:
    """Parse one script line; raises :class:`ScriptError` or an amount error saying which token."""
    bets: dict[str, int] = {}
    decision: Decision | None = None
    for token in strip_comment(line).split():
        word = token.lower()
        if word in ("draw", "stand"):
            if decision is not None:
                raise ScriptError(f"The line says both '{decision}' and '{word}': keep one." if decision != word
                                  else f"'{word}' appears twice on the line: keep one.")
            decision = "draw" if word == "draw" else "stand"
            continue
        code, sep, amount = word.partition("=")
        if not sep or not code:
            raise ScriptError(f"Cannot read {token!r}: write WAGER=AMOUNT, 'draw' or 'stand'.")
        if code in bets:
            raise ScriptError(f"The wager {code!r} appears twice on the line: bet on it once.")
        bets[code] = parse_amount(amount)
    if not bets:
        raise ScriptError("The line places no wager: write WAGER=AMOUNT.")
    return RoundOrder(bets, decision)
