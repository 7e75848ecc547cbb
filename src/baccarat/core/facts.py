"""The facts of a punto banco coup that a wager may be declared on, and what each needs to be priced.

A wager declared in a rules file (:mod:`baccarat.core.rulesfile`) reads a coup only through these facts.
Each fact has a *level*, what the exact analysis must know about the cards to price it:

* ``values``: point values only (winner, totals, margin, naturals, card counts);
* ``ranks``: the ranks of each hand's first two cards too (pairs: a Ten and a King are not a pair);
* ``suits``: their suits as well (suited pairs).

A wager's level is the highest level of the facts it reads.  The analysis prices a ``values`` wager
from the coup's point values and a ``ranks`` or ``suits`` wager from the rank and suit pattern of the
first four cards (:func:`pattern_of`), which with the point values decides every fact below.

>>> from baccarat.core.cards import parse_cards
>>> from baccarat.core.coup import deal_coup
>>> coup = deal_coup(iter(parse_cards(["7h", "3c", "7h", "Kc", "5s", "7d"])).__next__)
>>> f = coup_facts(coup)
>>> f.player_pair, f.player_perfect_pair, f.banker_pair, f.winner, f.banker_total
(True, True, False, 'player', 0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Literal

from baccarat.core.coup import Coup, Winner

Level = Literal["values", "ranks", "suits", "cards"]
#: ``cards``: a wager that reads the facts of :mod:`baccarat.core.cardfacts` (any card's rank, suit or colour,
#: counts, combinations), priced by :mod:`baccarat.analysis.cards`.
LEVELS: tuple[Level, ...] = ("values", "ranks", "suits", "cards")
#: What a wager of each level reads, in words (for refusals).
LEVEL_WORDS = {"values": "the cards' point values", "ranks": "the cards' ranks", "suits": "the cards' suits",
               "cards": "the cards themselves (ranks, suits or colours by position)"}


@dataclass(frozen=True, slots=True)
class CoupFacts:
    """Everything a declared wager may read about a coup."""

    winner: Winner
    player_total: int
    banker_total: int
    margin: int  #: points between the hands (0 on a tie)
    player_natural: bool
    banker_natural: bool
    natural: bool  #: either hand has a natural
    player_cards: int  #: 2 or 3
    banker_cards: int
    cards: int  #: 4, 5 or 6
    winning_total: int  #: the total of the winning hand (of both hands on a tie)
    totals_sum: int  #: the Player's total plus the Banker's (0-18)
    player_pair: bool  #: the Player's first two cards are the same rank
    banker_pair: bool
    pairs: int  #: how many hands have a pair (0, 1, 2)
    twin_pairs: bool  #: both hands have a pair, of the same rank
    player_suited: bool  #: the Player's first two cards are the same suit
    banker_suited: bool
    player_perfect_pair: bool  #: the Player's first two cards are the same rank and suit
    banker_perfect_pair: bool
    perfect_pairs: int  #: how many hands have a perfect pair (0, 1, 2)


#: Each fact's level, and its type as a rules file writes it.
FACTS: dict[str, tuple[Level, type]] = {
    "winner": ("values", str), "player_total": ("values", int), "banker_total": ("values", int),
    "margin": ("values", int), "player_natural": ("values", bool), "banker_natural": ("values", bool),
    "natural": ("values", bool), "player_cards": ("values", int), "banker_cards": ("values", int),
    "cards": ("values", int), "winning_total": ("values", int), "totals_sum": ("values", int),
    "player_pair": ("ranks", bool), "banker_pair": ("ranks", bool), "pairs": ("ranks", int),
    "twin_pairs": ("ranks", bool),
    "player_suited": ("suits", bool), "banker_suited": ("suits", bool),
    "player_perfect_pair": ("suits", bool), "banker_perfect_pair": ("suits", bool),
    "perfect_pairs": ("suits", int),
}
assert set(FACTS) == {f.name for f in fields(CoupFacts)}  # said once: the record and the table agree

#: The values a fact can take (for checking a rules file's conditions).
FACT_VALUES: dict[str, tuple[object, ...]] = {
    "winner": ("player", "banker", "tie"),
    **{name: tuple(range(10)) for name in ("player_total", "banker_total", "margin", "winning_total")},
    "player_cards": (2, 3), "banker_cards": (2, 3), "cards": (4, 5, 6), "totals_sum": tuple(range(19)),
    "pairs": (0, 1, 2), "perfect_pairs": (0, 1, 2),
    **{name: (False, True) for name, (_, kind) in FACTS.items() if kind is bool},
}


def level_of(names: Iterable[str]) -> Level:
    """The highest level among these facts."""
    found = {FACTS[name][0] for name in names}
    return max(found, key=LEVELS.index, default="values")


@dataclass(frozen=True, slots=True)
class Pattern:
    """How the first four cards (Player 1, Player 2, Banker 1, Banker 2) relate by rank and suit."""

    player_pair: bool
    banker_pair: bool
    twin: bool  #: both pairs, of the same rank
    player_suited: bool
    banker_suited: bool


def pattern_of(coup: Coup) -> Pattern:
    """The rank and suit pattern of a real coup's first two cards per hand."""
    p1, p2 = coup.player_cards[:2]
    b1, b2 = coup.banker_cards[:2]
    player_pair, banker_pair = p1.rank == p2.rank, b1.rank == b2.rank
    return Pattern(player_pair, banker_pair, player_pair and banker_pair and p1.rank == b1.rank,
                   p1.suit == p2.suit, b1.suit == b2.suit)


def facts_from(coup: Coup, pattern: Pattern) -> CoupFacts:
    """The facts of a coup whose point values are ``coup``'s and whose first cards follow ``pattern``.

    The analysis calls it with a coup standing for many (dealt from one card of each value) and a
    pattern; a real coup's facts are ``facts_from(coup, pattern_of(coup))``.
    """
    player_perfect = pattern.player_pair and pattern.player_suited
    banker_perfect = pattern.banker_pair and pattern.banker_suited
    winning = coup.banker_total if coup.winner == "banker" else coup.player_total
    return CoupFacts(
        winner=coup.winner, player_total=coup.player_total, banker_total=coup.banker_total, margin=coup.margin,
        player_natural=coup.player_natural, banker_natural=coup.banker_natural, natural=coup.natural,
        player_cards=len(coup.player_cards), banker_cards=len(coup.banker_cards), cards=len(coup.deal_order),
        winning_total=winning, totals_sum=coup.player_total + coup.banker_total,
        player_pair=pattern.player_pair, banker_pair=pattern.banker_pair,
        pairs=int(pattern.player_pair) + int(pattern.banker_pair), twin_pairs=pattern.twin,
        player_suited=pattern.player_suited, banker_suited=pattern.banker_suited,
        player_perfect_pair=player_perfect, banker_perfect_pair=banker_perfect,
        perfect_pairs=int(player_perfect) + int(banker_perfect),
    )


def coup_facts(coup: Coup) -> CoupFacts:
    """The facts of a dealt coup."""
    return facts_from(coup, pattern_of(coup))


def all_patterns() -> tuple[Pattern, ...]:
    """Every pattern the analysis distinguishes (a twin needs both pairs)."""
    out = []
    for pp in (False, True):
        for bp in (False, True):
            for twin in ((False, True) if pp and bp else (False,)):
                for ps in (False, True):
                    for bs in (False, True):
                        out.append(Pattern(pp, bp, twin, ps, bs))
    return tuple(out)
