"""Double-entry postings derived from table events.

Accounts: ``wallet:N`` (seat N's balance), ``in_play`` (stakes on the layout),
``house`` (the casino's win or loss) and ``cashier`` (money brought to or taken
from the table).  Every event's postings sum to zero, so every round's do.

>>> from baccarat.core.events import BetPlaced
>>> [(p.account, p.amount) for p in postings(BetPlaced(1, seat=2, wager="player", amount=500))]
[('wallet:2', -500), ('in_play', 500)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from baccarat.core.events import BetPlaced, BetRemoved, BetSettled, DecisionMade, Event, SeatLeft, SeatTaken


@dataclass(frozen=True, slots=True)
class Posting:
    """One line of the ledger: an amount (minor units) moved into ``account`` (negative: out)."""

    round_no: int
    account: str
    amount: int
    memo: str


def wallet(seat: int) -> str:
    """Account name of a seat's wallet."""
    return f"wallet:{seat}"


def postings(event: Event) -> list[Posting]:
    """The postings one event makes (empty for events that move no money)."""
    r = event.round_no
    match event:
        case SeatTaken(seat=seat, balance=balance):
            return [Posting(r, "cashier", -balance, "buy-in"), Posting(r, wallet(seat), balance, "buy-in")]
        case SeatLeft(seat=seat, balance=balance):
            return [Posting(r, wallet(seat), -balance, "cash-out"), Posting(r, "cashier", balance, "cash-out")]
        case BetPlaced(seat=seat, wager=code, amount=amount):
            return [Posting(r, wallet(seat), -amount, f"bet {code}"), Posting(r, "in_play", amount, f"bet {code}")]
        case BetRemoved(seat=seat, wager=code, amount=amount):
            return [Posting(r, "in_play", -amount, f"undo {code}"), Posting(r, wallet(seat), amount, f"undo {code}")]
        case DecisionMade(seat=seat, draw_stake=stake) if stake:
            return [Posting(r, wallet(seat), -stake, "bet draw"), Posting(r, "in_play", stake, "bet draw")]
        case BetSettled(seat=seat, wager=code, stake=stake, net=net):
            memo = f"settle {code}"
            lines = [Posting(r, "in_play", -stake, memo), Posting(r, "house", -net, memo)]
            if stake + net:
                lines.append(Posting(r, wallet(seat), stake + net, memo))
            return lines
    return []


def ledger(events: Iterable[Event]) -> list[Posting]:
    """All postings of an event stream, in order."""
    return [posting for event in events for posting in postings(event)]


def balances(entries: Iterable[Posting]) -> dict[str, int]:
    """Sum of postings per account."""
    totals: dict[str, int] = {}
    for entry in entries:
        totals[entry.account] = totals.get(entry.account, 0) + entry.amount
    return totals
