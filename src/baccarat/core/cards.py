"""Cards, baccarat point values, and hand totals.

Cards are written as rank then suit: ``"As"``, ``"9h"``, ``"Td"``, ``"Kc"``.
Tens and pictures count zero, Aces one, everything else its face value;
a hand's total is the right-hand digit of the sum.

>>> Card.parse("Kh").value
0
>>> hand_total([Card.parse("7c"), Card.parse("4d")])
1
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from baccarat.core.errors import InvalidCardError

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS = ("c", "d", "h", "s")
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}

#: Baccarat point value of each rank.
POINT_VALUES = {rank: (index + 1 if index < 9 else 0) for index, rank in enumerate(RANKS)}
#: Rank order with Ace high (2 < ... < 10 < J < Q < K < A), used by Block Bonus.
ACE_HIGH_ORDER = {rank: order for order, rank in enumerate(RANKS[1:] + RANKS[:1], start=2)}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card: a rank from :data:`RANKS` and a suit from :data:`SUITS`."""

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in POINT_VALUES:
            raise InvalidCardError(f"unknown rank {self.rank!r}; ranks are {' '.join(RANKS)}")
        if self.suit not in SUIT_NAMES:
            raise InvalidCardError(f"unknown suit {self.suit!r}; suits are {' '.join(SUITS)}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"9h"``, ``"Td"`` (or ``"10d"``), ``"Ks"``, ``"As"``.

        >>> Card.parse("10d")
        Card(rank='T', suit='d')
        """
        if not isinstance(text, str) or len(text) not in (2, 3):
            raise InvalidCardError(f"card must look like '9h', 'Td' or 'As', got {text!r}")
        rank, suit = text[:-1].upper(), text[-1].lower()
        return cls("T" if rank == "10" else rank, suit)

    @property
    def value(self) -> int:
        """Baccarat point value: 0 for tens and pictures, 1 for an Ace."""
        return POINT_VALUES[self.rank]

    @property
    def ace_high_rank(self) -> int:
        """Rank order with Ace high: 2..10, J=11, Q=12, K=13, A=14."""
        return ACE_HIGH_ORDER[self.rank]

    def __str__(self) -> str:
        return self.rank + self.suit


def hand_total(cards: Iterable[Card]) -> int:
    """Baccarat total of a hand: the right-hand digit of the sum of point values."""
    return sum(card.value for card in cards) % 10


def standard_deck() -> tuple[Card, ...]:
    """One 52-card deck in a fixed order (suits, then ranks)."""
    return tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse many card strings at once.

    >>> [str(c) for c in parse_cards(["As", "10h"])]
    ['As', 'Th']
    """
    return tuple(Card.parse(text) for text in texts)
