"""Frozen events: one for each state change of a table.

The table's state is changed only by applying events, so the event log is
complete: replaying it rebuilds the table exactly (an audit tool and a test),
and the ledger, storage, broadcasts and scoreboards all read the same stream.

Events carry everything needed to re-apply them, including a new shoe's full
card order in :class:`ShoeStarted`.  That event is therefore private to the
table and its store: the edges must never show it to players.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from baccarat.core.cards import Card
from baccarat.core.coup import Coup

#: Where a card goes: ``"player"``/``"banker"`` (punto banco), ``"dealer"``, or ``"seat:N"``.
Recipient = str


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all table events; ``round_no`` is 0 before the first round."""

    round_no: int


@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    seat: int
    player: str
    balance: int  #: bankroll brought to the table, minor units


@dataclass(frozen=True, slots=True)
class SeatLeft(Event):
    seat: int
    balance: int  #: balance taken away


@dataclass(frozen=True, slots=True)
class ShoeStarted(Event):
    shoe_no: int
    cards: tuple[Card, ...]  #: the whole order, burn cards first: never broadcast
    cut_card: int
    burn: bool
    burned: int  #: how many cards the burn took


@dataclass(frozen=True, slots=True)
class ShoeEnded(Event):
    shoe_no: int
    cards_dealt: int
    cards_left: int


@dataclass(frozen=True, slots=True)
class BettingOpened(Event):
    shoe_no: int


@dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    seat: int
    wager: str
    amount: int


@dataclass(frozen=True, slots=True)
class BetRemoved(Event):
    seat: int
    wager: str
    amount: int


@dataclass(frozen=True, slots=True)
class BettingClosed(Event):
    pass


@dataclass(frozen=True, slots=True)
class DealStarted(Event):
    cards_needed: int  #: the most cards this coup can take from the shoe


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    to: Recipient
    card: Card
    reason: str


@dataclass(frozen=True, slots=True)
class DecisionMade(Event):
    """A Lucky Draw seat stood or drew (placing the Draw wager, equal to Enter)."""

    seat: int
    action: Literal["draw", "stand"]
    draw_stake: int  #: 0 when standing
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class CoupResolved(Event):
    """A punto banco coup is complete."""

    coup: Coup


@dataclass(frozen=True, slots=True)
class DealerResolved(Event):
    """Lucky Draw: the dealer's hand is complete."""

    dealer_cards: tuple[Card, ...]
    dealer_total: int


@dataclass(frozen=True, slots=True)
class BetSettled(Event):
    seat: int
    wager: str
    stake: int
    event: str
    odds: Fraction
    net: int  #: minor units won (>0), lost (<0) or 0 for a push


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    pass
