"""The punto banco drawing rules as one table, and Lucky Draw's dealer rule.

Every component (the dealing engine, the exact analyzer, the simulator) reads
these tables; nothing else restates the drawing rules.

Banker chart: one row per Banker two-card total, one column per value of the
Player's third card (0 = ten or picture), plus a last column ``-`` for "the
Player stood".  ``D`` draws, ``S`` stands.  Rows 8 and 9 are naturals, where
neither hand draws; :func:`banker_draws` is only asked when there is none.

>>> player_draws(5), player_draws(6)
(True, False)
>>> banker_draws(3, 8), banker_draws(3, 9), banker_draws(6, None)
(False, True, False)
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType

from baccarat.core.messages import render

#: Why a hand drew or stood: a code of :data:`baccarat.core.messages.CATALOGUE` and its params.
Why = tuple[str, dict[str, int | list[int]]]

#: Neither hand draws when either has a natural.
NATURAL: Why = ("reason.natural", {})

#: Player two-card total -> draws a third card (8 and 9 are naturals: no draw).
PLAYER_CHART: tuple[bool, ...] = (True, True, True, True, True, True, False, False, False, False)

#: Column index used for "the Player stood" in :data:`BANKER_CHART`.
PLAYER_STOOD = 10

#                        Player's third card:  0123456789 -
_BANKER_ROWS = {
    0: "DDDDDDDDDDD",
    1: "DDDDDDDDDDD",
    2: "DDDDDDDDDDD",
    3: "DDDDDDDDSDD",
    4: "SSDDDDDDSSD",
    5: "SSSSDDDDSSD",
    6: "SSSSSSDDSSS",
    7: "SSSSSSSSSSS",
}
#: Banker two-card total (0-7) -> 11 booleans (Player third card 0-9, Player stood).
BANKER_CHART = MappingProxyType({total: tuple(cell == "D" for cell in row) for total, row in _BANKER_ROWS.items()})

#: Lucky Draw: the dealer draws a third card on two-card totals 0-4 and stands on 5-9.
DEALER_CHART: tuple[bool, ...] = (True, True, True, True, True, False, False, False, False, False)

NATURALS = frozenset({8, 9})


def is_natural(two_card_total: int) -> bool:
    """A two-card total of 8 or 9."""
    return two_card_total in NATURALS


def player_draws(player_total: int) -> bool:
    """Whether the Player draws on this two-card total (no natural on either side)."""
    return PLAYER_CHART[player_total]


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """Whether the Banker draws on ``banker_total`` given the Player's third card value.

    ``player_third`` is ``None`` when the Player stood.  Only meaningful when
    neither hand has a natural.
    """
    column = PLAYER_STOOD if player_third is None else player_third
    return BANKER_CHART[banker_total][column]


def dealer_draws(dealer_total: int) -> bool:
    """Lucky Draw: whether the dealer draws on this two-card total."""
    return DEALER_CHART[dealer_total]


def player_why(player_total: int) -> Why:
    """Why the Player drew or stood, as a code and its params.

    >>> player_why(5)
    ('reason.player_draws', {'total': 5})
    """
    return ("reason.player_draws" if player_draws(player_total) else "reason.player_stands", {"total": player_total})


def banker_why(banker_total: int, player_third: int | None) -> Why:
    """Why the Banker drew or stood, as a code and its params citing the chart cell: the Player's
    third card and the third cards the Banker draws on with this total.

    >>> banker_why(4, 1)
    ('reason.banker_stands_third', {'total': 4, 'third': 1, 'draws_on': [2, 3, 4, 5, 6, 7]})
    """
    verb = "draws" if banker_draws(banker_total, player_third) else "stands"
    if player_third is None:
        return f"reason.banker_{verb}_player_stood", {"total": banker_total}
    drawing = [v for v in range(10) if BANKER_CHART[banker_total][v]]
    if len(drawing) in (0, 10):  # whatever the third card: the sentence names no list
        return f"reason.banker_{verb}_third_always", {"total": banker_total, "third": player_third}
    return f"reason.banker_{verb}_third", {"total": banker_total, "third": player_third, "draws_on": drawing}


@cache  # pure; every coup asks, and the analyzer and the simulator deal very many coups
def player_reason(player_total: int) -> str:
    """Why the Player drew or stood, in the rule card's words."""
    return render(*player_why(player_total))


@cache
def banker_reason(banker_total: int, player_third: int | None) -> str:
    """Why the Banker drew or stood, citing the chart cell."""
    return render(*banker_why(banker_total, player_third))
