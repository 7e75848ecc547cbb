"""The round as players see it: a timeline the server owns.

The ledger settles a round the moment the dealer deals it, but players are shown it at the pace of
a live table::

    BETTING (opens_at .. closes_at)
    NO MORE BETS (about 1 s)
    DEALING: one card every 0.6 s, in deal order
      (Lucky Draw: the first deal, then DECISIONS, then the Draw cards and the dealer's cards)
    RESULT at result_at, one beat after the last card
    a results pause (about 4 s), then the next round's BETTING window opens

Each card's moment is fixed when it is dealt and stored with the round, so every view (REST,
WebSocket, history, roads, the balance) is a function of the stored rows and a moment ``now``:
nothing is shown before its time, whoever asks and however often.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from baccarat.core.cards import SUIT_NAMES, SUIT_SYMBOLS, Card
from baccarat.core.events import CardDealt
from baccarat.server.playing.shapes import DealtCard, Hand, ShownCard

#: Ranks as a player reads them.
RANK_NAMES = {"A": "Ace", "T": "10", "J": "Jack", "Q": "Queen", "K": "King"}


@dataclass(frozen=True)
class Pace:
    """A table's pace, in seconds."""

    no_more_bets: float = 1.0  #: from the close of betting to the first card
    card: float = 0.6  #: between two cards, and from the last card to the result
    results: float = 4.0  #: from the result to the next betting window

    def check(self) -> Pace:
        from baccarat.core.errors import ConfigurationError

        for label, seconds, most in (("no_more_bets", self.no_more_bets, 10), ("card", self.card, 5),
                                     ("results", self.results, 60)):
            if not 0 <= seconds <= most:
                raise ConfigurationError.coded("table.pause", pause=label, most=most)
        return self


def pace_of(table: Any) -> Pace:
    """The pace stored with a table row (ORM object or Core row)."""
    return Pace(table.no_more_bets_seconds, table.card_seconds, table.results_seconds)


def later(moment: datetime, seconds: float) -> datetime:
    return moment + timedelta(seconds=seconds)


def stamp(moment: datetime) -> str:
    return moment.isoformat()


def schedule(events: list[CardDealt], start: datetime, card_seconds: float) -> list[DealtCard]:
    """Each dealt card with the moment it is shown: ``start``, then one every ``card_seconds``."""
    return [{"to": e.to, "card": str(e.card), "reason": e.reason, "at": stamp(later(start, i * card_seconds))}
            for i, e in enumerate(events)]


def card_view(stored: DealtCard, index: int, hand_index: int) -> ShownCard:
    """A shown card for the page: its code, rank and suit, a label (``K♥``) and a name in words."""
    card = Card.parse(stored["card"])
    rank = RANK_NAMES.get(card.rank, card.rank)
    return {"index": index, "to": stored["to"], "card": str(card), "rank": card.rank, "suit": card.suit,
            "label": ("10" if card.rank == "T" else card.rank) + SUIT_SYMBOLS[card.suit],
            "name": f"{rank} of {SUIT_NAMES[card.suit]}", "value": card.value, "hand_index": hand_index,
            "reason": stored["reason"], "at": stored["at"]}


def card_label(code: str) -> str:
    """``Kh`` -> ``K♥``; ``Td`` -> ``10♦``."""
    card = Card.parse(code)
    return ("10" if card.rank == "T" else card.rank) + SUIT_SYMBOLS[card.suit]


def shown(deal: list[DealtCard], now: datetime) -> list[ShownCard]:
    """The cards of ``deal`` (stored, in deal order) shown by ``now``, for the page."""
    cards: list[ShownCard] = []
    per_hand: dict[str, int] = {}
    for index, stored in enumerate(deal):
        if datetime.fromisoformat(stored["at"]) > now:
            break  # in deal order: a later card is never shown before an earlier one
        cards.append(card_view(stored, index, per_hand.get(stored["to"], 0)))
        per_hand[stored["to"]] = per_hand.get(stored["to"], 0) + 1
    return cards


def hands(cards: list[ShownCard]) -> dict[str, Hand]:
    """The hands of the shown cards with their running totals."""
    result: dict[str, Hand] = {}
    for card in cards:
        hand = result.setdefault(card["to"], {"cards": [], "total": 0})
        hand["cards"].append(card["card"])
        hand["total"] = (hand["total"] + card["value"]) % 10
    return result
