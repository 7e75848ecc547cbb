"""The squeeze: at a squeeze table the player with the largest stake on Player and the one with the largest
stake on Banker (a tie: the earlier bet) each peel their side's cards, face down, before they are turned.

The timeline of a squeezed round (the round is settled when dealt, as at every table; only what is shown
follows the squeeze)::

    the four first cards dealt face down, one every ``card`` seconds (each card's ``down``)
    each card in deal order: its squeezer has ``squeeze_seconds`` to peel and turn it, then the dealer
      turns it (its ``at``, the moment its face is shown); a side nobody bet is turned by the dealer
      after one ``card`` beat
    a third card is dealt face down one beat after the card before it is turned, and squeezed the same way
    the result one beat after the last card is turned

A squeezer who turns a card early (:func:`turn`, or a full peel) moves that card's ``at`` to now and every
later moment (the later cards, the result, the settlements shown, the next betting window) as much earlier:
the stored deal stays the one timeline every process and view reads, and a restart mid-squeeze needs no
repair (a deadline passed is a card turned).  Only the peel on show (which card, how far it is lifted and from
where: its corner, its short edge or its long edge) is stored besides, in ``rounds.squeeze``, for every watcher to
see it lift; a face never is.  The views send, with the lift, the part of the face a real card would show at it
(:mod:`baccarat.core.card_face`) and nothing more.

A squeezer's peels are taken at most one every :data:`PEEL_EVERY` seconds (the moment of the last one is stored
with it, so every process counts the same): one sooner is answered with the peel on show and changes nothing, so a
flood of peel frames costs no more than a squeeze (each peel taken is a write and a push to every watcher).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, TypedDict

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from baccarat.core.card_face import EDGES
from baccarat.core.errors import ConfigurationError, IllegalActionError, UnknownSeatError
from baccarat.core.events import CardDealt
from baccarat.server.playing.shapes import DealtCard
from baccarat.server.playing.tables import announce, table_row
from baccarat.server.playing.timeline import later, stamp
from baccarat.server.storage import notify
from baccarat.server.storage.models import Account, Bet, GameTable, Round, Settlement, aware

#: The sides squeezed, and the wager whose largest stake picks each side's squeezer.
SIDES = ("player", "banker")
#: Seconds between two peels taken from a squeezer (the page sends one every 0.15 s at most).
PEEL_EVERY = 0.1


class Squeezer(TypedDict):
    account: int
    name: str


class Peel(TypedDict):
    card: int  #: the index in deal order of the card being peeled
    lift: float  #: 0 (flat) to 1 (turned)
    edge: str  #: where it is lifted from: one of :data:`baccarat.core.card_face.EDGES`


#: ``rounds.squeeze``: each side's squeezer (``player``, ``banker``: a :class:`Squeezer`, or None: the dealer
#: turns that side) and the peel on show (``peel``: a :class:`Peel` or None).
Stored = dict[str, Any]


def squeezers(s: Session, bets: list[Bet]) -> Stored:
    """Each side's squeezer: the account with the largest total stake on that side's wager, the earlier
    first bet winning a tie; None where nobody bet the side."""
    chosen: Stored = {}
    for side in SIDES:
        stakes: dict[int, int] = {}
        first: dict[int, int] = {}
        for bet in bets:
            if bet.wager == side:
                stakes[bet.account_id] = stakes.get(bet.account_id, 0) + bet.amount
                first.setdefault(bet.account_id, bet.id)
        if not stakes:
            chosen[side] = None
            continue
        account = min(stakes, key=lambda a: (-stakes[a], first[a]))
        name = s.scalar(select(Account.username).where(Account.id == account)) or ""
        chosen[side] = {"account": account, "name": name}
    return chosen


def schedule(events: list[CardDealt], start: datetime, card_seconds: float, squeeze_seconds: float,
             chosen: Stored) -> list[DealtCard]:
    """Each card of a squeezed coup with the moment it is put down face down (``down``), its squeezer's name
    (``by``; None: the dealer) and the moment it is turned at the latest (``at``)."""
    deal: list[DealtCard] = []
    ready = later(start, 4 * card_seconds)  # the four cards are down: the first squeeze begins
    for index, event in enumerate(events):
        squeezer = chosen.get(event.to) if event.to in SIDES else None
        down = later(start, index * card_seconds) if index < 4 else later(ready, card_seconds)
        begins = max(down, ready)
        at = later(begins, squeeze_seconds if squeezer else card_seconds)
        deal.append({"to": event.to, "card": str(event.card), "reason": event.reason, "at": stamp(at),
                     "down": stamp(down), "by": None if squeezer is None else squeezer["name"]})
        ready = at
    return deal


def begin(s: Session, table_id: int, current: Round, chosen: Stored, start: datetime) -> None:
    """Store the squeezers and tell the table who squeezes (news from the first card down)."""
    current.squeeze = json.dumps({**chosen, "peel": None})
    for side in SIDES:
        squeezer = chosen.get(side)
        if squeezer:
            announce(s, table_id, start, f"squeeze_{side}", name=squeezer["name"])


def _squeezing(s: Session, table_id: int, now: datetime) -> Round | None:
    """The table's round being squeezed at ``now`` (dealt, its result not shown yet), locked."""
    # the dealer's lock order: the table, then the round (locked without telling its sockets: a peel or turn that
    # changes what the table shows says so itself, one passed over must push nothing)
    table = s.get(GameTable, table_id, with_for_update=True)
    if table is None:
        raise UnknownSeatError.coded("table.unknown", table=table_id)
    if not table.squeeze_seconds:
        return None
    return s.scalar(select(Round).where(Round.table_id == table_id, Round.status == "settled",
                                        Round.squeeze.is_not(None), Round.result_at > now)
                    .order_by(Round.number.desc()).limit(1).with_for_update())


def _current(s: Session, table_id: int, account_id: int, card: object, now: datetime
             ) -> tuple[Round, dict[str, Any], Stored, int]:
    """The round, its stored result and squeeze, and the index of the card ``account_id`` may peel now,
    which must be ``card``; else refused (nothing changes)."""
    if isinstance(card, bool) or not isinstance(card, int):
        raise ConfigurationError.coded("squeeze.card")
    current = _squeezing(s, table_id, now)
    if current is None:
        raise IllegalActionError.coded("squeeze.not_now")
    result: dict[str, Any] = json.loads(current.result or "{}")
    deal: list[DealtCard] = result.get("deal", [])
    index = next((i for i, c in enumerate(deal) if datetime.fromisoformat(c["at"]) > now), None)
    # a card is squeezed from when its squeeze time began (the four cards down, the card before it turned)
    if index is None or "down" not in deal[index] or datetime.fromisoformat(deal[index]["at"]) - timedelta(
            seconds=table_row(s, table_id).squeeze_seconds) > now:
        raise IllegalActionError.coded("squeeze.not_now")
    stored: Stored = json.loads(current.squeeze or "{}")
    side = deal[index]["to"]
    squeezer = stored.get(side) if side in SIDES else None
    if not squeezer or squeezer["account"] != account_id:
        raise IllegalActionError.coded("squeeze.not_yours")
    if card != index:
        raise IllegalActionError.coded("squeeze.not_now")
    return current, result, stored, index


def peel(s: Session, table_id: int, account_id: int, card: object, lift: object, now: datetime,
         edge: object = "corner") -> Peel:
    """The squeezer lifts the card being squeezed to ``lift`` (0 to 1) from ``edge`` (the corner, the short edge or
    the long edge: :mod:`baccarat.core.card_face`) for everyone to see; a full lift (1) turns it (:func:`turn`).
    Within :data:`PEEL_EVERY` of the last peel taken the peel on show is answered and nothing changes."""
    if isinstance(lift, bool) or not isinstance(lift, int | float) or not 0 <= lift <= 1:
        raise ConfigurationError.coded("squeeze.lift")
    if edge not in EDGES:
        raise ConfigurationError.coded("squeeze.edge")
    current, result, stored, index = _current(s, table_id, account_id, card, now)
    if lift >= 1:
        _turn(s, current, result, stored, index, now)
        return {"card": index, "lift": 1.0, "edge": str(edge)}
    on_show: Peel | None = stored.get("peel")
    last = stored.get("peeled_at")
    if on_show is not None and on_show["card"] == index and last is not None and (
            now - datetime.fromisoformat(last)).total_seconds() < PEEL_EVERY:
        return {"edge": "corner", **on_show}  # too soon after the last: nothing written, nobody pushed
    shown: Peel = {"card": index, "lift": round(float(lift), 3), "edge": str(edge)}
    current.squeeze = json.dumps({**stored, "peel": shown, "peeled_at": stamp(now)})
    notify.changed(s, table_id)
    return shown


def turn(s: Session, table_id: int, account_id: int, card: object, now: datetime) -> Peel:
    """The squeezer turns the card being squeezed now, before the dealer would."""
    current, result, stored, index = _current(s, table_id, account_id, card, now)
    peeled: Peel | None = stored.get("peel")
    _turn(s, current, result, stored, index, now)
    return {"card": index, "lift": 1.0, "edge": peeled["edge"] if peeled and peeled.get("edge") else "corner"}


def _turn(s: Session, current: Round, result: dict[str, Any], stored: Stored, index: int, now: datetime) -> None:
    """Card ``index`` is turned at ``now``: it and every later moment of the round move as much earlier."""
    deal: list[DealtCard] = result["deal"]
    early = datetime.fromisoformat(deal[index]["at"]) - now
    for later_index, card in enumerate(deal[index:], start=index):
        card["at"] = stamp(datetime.fromisoformat(card["at"]) - early)
        if later_index > index and later_index >= 4 and "down" in card:  # a third card is put down after a turn
            card["down"] = stamp(datetime.fromisoformat(card["down"]) - early)
    current.result = json.dumps(result)
    current.squeeze = json.dumps({**stored, "peel": None})
    assert current.result_at is not None  # a settled round
    current.result_at = aware(current.result_at) - early
    bets = select(Bet.id).where(Bet.round_id == current.id)
    s.execute(update(Settlement).where(Settlement.bet_id.in_(bets)).values(shown_at=current.result_at))
    upcoming = s.scalar(select(Round).where(Round.table_id == current.table_id, Round.number == current.number + 1,
                                            Round.status == "betting"))
    if upcoming is not None and upcoming.opens_at is not None and aware(upcoming.opens_at) > now:
        upcoming.opens_at = aware(upcoming.opens_at) - early
        upcoming.closes_at = aware(upcoming.closes_at) - early
    notify.changed(s, current.table_id)
