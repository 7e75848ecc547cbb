"""Lucky Draw Baccarat hands: a seat's own hand against the one dealer hand.

How the rule card is read (written down because the card is terse):

* The seat's hand has two cards; with a Draw wager it gets **exactly one**
  more.  A seat may draw on any total (the card sets no restriction) and
  there are no naturals: hands are compared on totals only.
* The dealer's up card is the dealer's first card; after every seat has
  acted the dealer takes a second card and draws a third on 0-4
  (:data:`baccarat.core.tableau.DEALER_CHART`).
* Block Bonus compares the seat's **first two** cards with the dealer's
  **first** card, by rank with Ace high (2 < ... < 10 < J < Q < K < A) and by
  suit.  A "winning card" is one of the seat's two cards that is in the
  dealer's suit and ranks higher.  With at least one winning card, the
  highest category that applies pays:

  - *Ultimate Block*: a pair (same rank) with both cards in the dealer's suit;
  - *Pair Block*: a pair with exactly one card in the dealer's suit;
  - *Flush Block*: two cards of the dealer's suit, not a pair;
  - *Normal Block*: otherwise (one winning card, the other off-suit).

  No winning card loses, even with a pair (the card: "the player wins if one
  of their first two dealt cards is of the same suit and of higher rank than
  the dealer's first card").  "Pair" means the same rank, not the same
  point value: a Ten and a King are not a pair.

>>> from baccarat.core.cards import parse_cards
>>> block_bonus_event(*parse_cards(["Qh", "Qh", "5h"]))
'Ultimate Block'
>>> block_bonus_event(*parse_cards(["Ah", "Ks", "Kh"]))
'Normal Block'
>>> block_bonus_event(*parse_cards(["Qs", "Qd", "5h"]))
'No Block'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from baccarat.core.cards import Card, hand_total
from baccarat.core.tableau import dealer_draws

LuckyWinner = Literal["player", "dealer", "tie"]

BLOCK_EVENTS = ("Ultimate Block", "Pair Block", "Flush Block", "Normal Block", "No Block")


def block_bonus_event(first: Card, second: Card, dealer_up: Card) -> str:
    """Classify a seat's first two cards against the dealer's up card (see module doc)."""
    winning = [
        card
        for card in (first, second)
        if card.suit == dealer_up.suit and card.ace_high_rank > dealer_up.ace_high_rank
    ]
    if not winning:
        return "No Block"
    if first.rank == second.rank:
        return "Ultimate Block" if first.suit == second.suit == dealer_up.suit else "Pair Block"
    if first.suit == second.suit:
        return "Flush Block"
    return "Normal Block"


@dataclass(frozen=True, slots=True)
class LuckyDrawHand:
    """One seat's hand and the dealer's hand, as far as they have been dealt."""

    seat_cards: tuple[Card, ...]
    dealer_cards: tuple[Card, ...]

    @property
    def drew(self) -> bool:
        """The seat took the Draw card."""
        return len(self.seat_cards) == 3

    @property
    def seat_total(self) -> int:
        return hand_total(self.seat_cards)

    @property
    def dealer_total(self) -> int:
        return hand_total(self.dealer_cards)

    @property
    def complete(self) -> bool:
        """The dealer has finished drawing, so Enter and Draw can be settled."""
        if len(self.dealer_cards) == 3:
            return True
        return len(self.dealer_cards) == 2 and not dealer_draws(hand_total(self.dealer_cards))

    @property
    def winner(self) -> LuckyWinner:
        """``"player"`` (the seat), ``"dealer"`` or ``"tie"``, on totals."""
        if self.seat_total > self.dealer_total:
            return "player"
        if self.dealer_total > self.seat_total:
            return "dealer"
        return "tie"

    @property
    def block_bonus(self) -> str:
        """The Block Bonus category of this seat (needs two seat cards and the up card)."""
        return block_bonus_event(self.seat_cards[0], self.seat_cards[1], self.dealer_cards[0])
