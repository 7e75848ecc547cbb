"""Dealing a round from its stored provably fair shoe and settling it in one transaction; Lucky Draw's
decisions; voiding a round; pulling deadlines back after the clock stepped."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.coup import Coup, reasons
from baccarat.core.errors import (
    ConfigurationError,
    ConflictError,
    IllegalActionError,
    ShoeError,
    UnknownSeatError,
)
from baccarat.core.events import BetSettled, CardDealt, CoupResolved
from baccarat.core.games import Game, fee_of, paid_odds, settle
from baccarat.core.roads import hand_json, hand_of
from baccarat.core.shoe import Shoe
from baccarat.core.strikes import Strike, coup_factor, strike_json
from baccarat.core.table import Table
from baccarat.server.house import protection, wallet
from baccarat.server.playing import fairness, squeeze
from baccarat.server.playing.betting import hold_round
from baccarat.server.playing.scoreboards import core_seats
from baccarat.server.playing.seating import SIT_OUT_ROUNDS, count_idle
from baccarat.server.playing.shapes import DealtCard, StoredResult, StruckCard
from baccarat.server.playing.tables import game_of, limits_of, next_round, open_again, table_row
from baccarat.server.playing.timeline import later, pace_of, schedule, stamp
from baccarat.server.storage import metrics, notify
from baccarat.server.storage.db import insert_rows
from baccarat.server.storage.models import (
    Account,
    Bet,
    Decision,
    GameTable,
    Round,
    Settlement,
    ShoeRow,
    SocketLease,
    aware,
)
from baccarat.server.storage.models import now as _now

_SETTLEMENTS = cast(SqlTable, Settlement.__table__)


class DecisionAnswer(TypedDict):
    """Lucky Draw: a decision taken (a draw stakes the Draw wager, equal to Enter), its answer over REST and
    the WebSocket."""

    table: int
    round: int
    action: str
    """draw or stand"""
    balance: int
    """shown balance"""


class VoidedRound(TypedDict):
    """A round voided and what was refunded."""

    table: int
    round: int
    status: str
    """void"""
    refunded: int
    """minor units refunded in all"""
    bets_refunded: int
    movement: int | None
    """the refund's ledger movement (None: nothing to refund), linked with the void's audit entry"""


def due_rounds(s: Session, now: datetime, *, late: float = 0.0) -> list[int]:
    """Rounds to move on: betting windows that closed (``late`` seconds ago: bets that arrived before the
    close are still being written), and Lucky Draw decisions that are all in or timed out."""
    closed = s.scalars(select(Round.id).where(Round.status == "betting",
                                              Round.closes_at <= now - timedelta(seconds=late)))
    deciding = s.scalars(select(Round).where(Round.status == "decision"))
    ready = [r.id for r in deciding if r.decides_at is not None and (aware(r.decides_at) <= now
                                                                     or _all_decided(s, r.id))]
    return sorted([*closed, *ready])


def _all_decided(s: Session, round_id: int) -> bool:
    players = set(s.scalars(select(Bet.account_id).where(Bet.round_id == round_id, Bet.wager == "enter")))
    decided = set(s.scalars(select(Decision.account_id).where(Decision.round_id == round_id)))
    return players <= decided


def _replay(s: Session, table: GameTable, current: Round, bets: list[Bet]
            ) -> tuple[Table, Shoe, list[Any], dict[int, int]]:
    """The round rebuilt in the core from the stored shoe and bets, dealt up to the decisions;
    also the account playing each core seat.

    Deterministic: the same seed, cursor and bets always give the same cards, so a round can be
    dealt again after a crash, or finished after its decision window.
    """
    shoe_row = round_shoe(s, current)
    fairness.seal(s, shoe_row)  # the shoe's first deal fixes its client seeds, its cards and its burn
    stored = Shoe(list(fairness.shoe_cards(shoe_row)), cut_card=shoe_row.cut_card, burn=True)
    given = [stored]

    def factory() -> Shoe:
        if not given:
            raise ShoeError("a round never needs a second shoe: it is changed before betting opens")
        return given.pop()

    game = game_of(table)
    core = Table(game, limits=limits_of(table), shoe_factory=factory)
    if game.kind == "punto_banco":
        return _replay_coup(core, shoe_row, current, bets)
    seat_of = core_seats(bets, game.max_seats)
    by_seat: dict[int, dict[str, int]] = {}
    for bet in bets:
        by_seat.setdefault(seat_of[bet.account_id], {})[bet.wager] = bet.amount
    for seat, stakes in sorted(by_seat.items()):
        core.sit(seat, f"seat {seat}", sum(stakes.values()))  # Draw stakes are in the sum: they are escrowed
    core.open_betting()
    shoe = core.shoe
    assert shoe is not None
    start = current.first_card if current.first_card is not None else shoe_row.position
    shoe.resume(start, last_coup=shoe_row.last_coup)  # the table's shoe, at the stored cursor
    for seat, stakes in sorted(by_seat.items()):
        core.place_bets(seat, {code: amount for code, amount in stakes.items() if code != "draw"})
    core.close_betting()
    current.first_card = start
    return core, shoe, core.deal(), {seat: account for account, seat in seat_of.items()}


def _replay_coup(core: Table, shoe_row: ShoeRow, current: Round, bets: list[Bet]
                 ) -> tuple[Table, Shoe, list[Any], dict[int, int]]:
    """Punto banco: one coup for every bettor, however many (seated or not).  The core deals it with
    no seat at all; each account's bets are then settled on it, the account's id standing for the
    seat in the settlement events (so :func:`_settle` reads them as it reads Lucky Draw's)."""
    core.open_betting()
    shoe = core.shoe
    assert shoe is not None
    start = current.first_card if current.first_card is not None else shoe_row.position
    shoe.resume(start, last_coup=shoe_row.last_coup)
    core.close_betting()
    current.first_card = start
    events = core.deal()
    coup = next(e.coup for e in events if isinstance(e, CoupResolved))
    game = core.game
    wagers = {w.code: w for w in game.wagers}
    _, factor = _struck(shoe_row, game, start, coup)
    for bet in bets:
        done = settle(wagers[bet.wager], coup, bet.amount, factor=factor if game.multiplies(bet.wager) else 1)
        events.append(BetSettled(core.round_no, seat=bet.account_id, wager=done.wager, stake=bet.amount,
                                 event=done.event, odds=done.odds, net=done.net))
    return core, shoe, events, {bet.account_id: bet.account_id for bet in bets}


def _settle(s: Session, table: GameTable, current: Round, bets: list[Bet], events: list[Any],
            account_of: dict[int, int], shown_at: datetime) -> None:
    """Pay out every settled bet not yet paid (Block Bonus is paid at the first deal), as one
    ledger movement: the stakes leave escrow, each player's returns go to their wallet, the
    difference to or from the house; each bet's settlement row points at that movement.  The
    players are shown it at ``shown_at`` (their shown balance leaves it out until then)."""
    bet_of = {(b.account_id, b.wager): b for b in bets}
    paid = set(s.scalars(select(Settlement.bet_id).where(Settlement.bet_id.in_([b.id for b in bets]))))
    settled = [(bet_of[(account_of[e.seat], e.wager)], e) for e in events if isinstance(e, BetSettled)]
    settled = [(bet, event) for bet, event in settled if bet.id not in paid]
    if not settled:
        return
    escrow = wallet.escrow_account(current.id)
    postings: dict[str, int] = {escrow: 0, wallet.HOUSE: 0}
    game = game_of(table)
    for bet, event in settled:
        fee = fee_of(game.wager(bet.wager), bet.amount)  # escrowed with the stake, the house's whatever the coup
        postings[escrow] -= bet.amount + fee
        postings[wallet.HOUSE] += fee - event.net
        owner = wallet.wallet_account(bet.account_id)
        postings[owner] = postings.get(owner, 0) + bet.amount + event.net
    entry = wallet.transfer(s, "settle", {account: amount for account, amount in postings.items() if amount},
                            memo=f"table {table.name} round {current.number}")
    paid_out = sum(bet.amount + event.net for bet, event in settled)
    # counted when the table shows the result: the figure moving at the deal would tell it sooner
    metrics.after_commit(s, metrics.when_shown(shown_at, metrics.count_money(metrics.PAYOUTS, {table.id: paid_out})))
    insert_rows(s.connection(), _SETTLEMENTS, [{"bet_id": bet.id, "event": event.event, "net": event.net,
                                                "transaction_id": entry, "shown_at": shown_at}
                                               for bet, event in settled])


def watched(s: Session, table_id: int, since: float | None) -> bool:
    """Does anyone watch the table: a table socket open in any process, its lease
    (:class:`~baccarat.server.storage.models.SocketLease`) renewed after ``since`` (seconds since the epoch)?
    ``since`` None: who watches is not known here (a tool dealing without a server), taken as nobody."""
    if since is None:
        return False
    return s.scalar(select(SocketLease.id).where(SocketLease.table_id == table_id, SocketLease.heartbeat > since)
                    .limit(1)) is not None


def deal_round(s: Session, round_id: int, now: datetime, *, sit_out_rounds: int = SIT_OUT_ROUNDS,
               watched_since: float | None = None) -> None:
    """Move one round on, in one transaction (idempotent): deal and settle it, or for Lucky Draw
    deal the first cards and open the decisions, then finish it once they are in.

    A punto banco window nobody bet in is dealt all the same while anyone watches the table
    (:func:`watched`, leases renewed after ``watched_since``), as at a live table: the coup is a hand
    of the shoe like any other (shown, recorded, on the roads, with the next round number), with no
    bet, so no ledger entry.  At a table nobody watches (and at Lucky Draw, where every hand is a
    seat's) the same round takes bets again for another window and keeps its number, so round numbers
    count hands dealt, without gaps.

    Settlement is immediate; what players see follows the timeline (:mod:`baccarat.server.playing.timeline`):
    each card is stored with the moment it is shown, the result with ``result_at``, and the next
    round takes bets from ``opens_at``, after the results pause."""
    current = s.get(Round, round_id)
    if current is None:
        return
    table = table_row(s, current.table_id, lock=True)  # locks in one order everywhere: the table, then the round
    s.refresh(current, with_for_update=True)
    pace = pace_of(table)
    if current.status == "betting" and aware(current.closes_at) <= now:
        bets = list(s.scalars(select(Bet).where(Bet.round_id == round_id).order_by(Bet.id)))
        dealt_empty = not bets and game_of(table).kind == "punto_banco" and watched(s, table.id, watched_since)
        _count_round(s, table.id, "no_action" if not bets and not dealt_empty else None, aware(current.closes_at),
                     now)
        # every window counts toward the sit-out rule, dealt or not; a window nobody bet in was sat out by every seat
        count_idle(s, table.id, {bet.account_id for bet in bets}, now, sit_out_rounds)
        if not bets and not dealt_empty:
            open_again(s, table, current, now)
            return
        core, shoe, events, account_of = _replay(s, table, current, bets)
        # NO MORE BETS lasts its pause from the close of betting (longer only if the deal is late)
        start = max(later(aware(current.closes_at), pace.no_more_bets), now)
        deal = schedule([e for e in events if isinstance(e, CardDealt)], start, pace.card)
        if table.squeeze_seconds and core.seat_to_act is None:  # a squeeze table: face down, each side squeezed
            chosen = squeeze.squeezers(s, bets)
            deal = squeeze.schedule([e for e in events if isinstance(e, CardDealt)], start, pace.card,
                                    table.squeeze_seconds, chosen)
            squeeze.begin(s, table.id, current, chosen, start)
        current.dealt_at = now
        if core.seat_to_act is not None:  # Lucky Draw: the decisions open once the first deal is shown
            decisions_at = later(datetime.fromisoformat(deal[-1]["at"]), pace.card)
            _settle(s, table, current, bets, events, account_of, decisions_at)  # Block Bonus
            current.status = "decision"
            current.decides_at = later(decisions_at, table.decision_seconds)
            dealt_first: StoredResult = {"cards": [c["card"] for c in deal], "first_deal": _first_deal(events),
                                         "deal": deal, "decisions_at": stamp(decisions_at),
                                         "names": _names(s, account_of)}
            current.result = json.dumps(dealt_first)
            return
        result_at = later(datetime.fromisoformat(deal[-1]["at"]), pace.card)
        _settle(s, table, current, bets, events, account_of, result_at)
        _close(s, table, current, bets, shoe, events, now, deal, result_at)
        _count_round(s, table.id, "dealt")
    elif current.status == "decision" and (aware(current.decides_at or now) <= now or _all_decided(s, round_id)):
        bets = list(s.scalars(select(Bet).where(Bet.round_id == round_id).order_by(Bet.id)))
        core, shoe, events, account_of = _replay(s, table, current, bets)
        actions = {d.account_id: d.action for d in s.scalars(select(Decision).where(Decision.round_id == round_id))}
        while core.seat_to_act is not None:
            seat = core.seat_to_act
            account = account_of[seat]
            events += core.decide(seat, actions.get(account, "stand"), timed_out=account not in actions)
        stored: StoredResult = json.loads(current.result or "{}")
        first = stored.get("deal", [])
        dealt = [e for e in events if isinstance(e, CardDealt)]
        opened = datetime.fromisoformat(stored["decisions_at"]) if "decisions_at" in stored else now
        deal = first + schedule(dealt[len(first):], later(max(opened, now), pace.card), pace.card)
        result_at = later(datetime.fromisoformat(deal[-1]["at"]), pace.card)
        current.dealt_at = now
        _settle(s, table, current, bets, events, account_of, result_at)
        _close(s, table, current, bets, shoe, events, now, deal, result_at, decided=stored)
        _count_round(s, table.id, "dealt")


def _count_round(s: Session, table_id: int, outcome: str | None, closed: datetime | None = None,
                 dealt: datetime | None = None) -> None:
    """Once committed: a round finished with ``outcome`` (dealt, no_action, void; None: not yet), and the lag of
    a deal at ``dealt`` behind the close of betting ``closed``."""
    table = str(table_id)

    def count() -> None:
        if outcome is not None:
            metrics.ROUNDS.labels(table, outcome).inc()
        if closed is not None and dealt is not None:
            metrics.DEAL_LAG.observe(max(0.0, (dealt - closed).total_seconds()))
    metrics.after_commit(s, count)


def _names(s: Session, account_of: dict[int, int]) -> dict[str, str]:
    """``seat:N`` -> the name of the player whose hand it is (Lucky Draw's hands are the players')."""
    names = dict(s.execute(select(Account.id, Account.username).where(Account.id.in_(set(account_of.values())))).all())
    return {f"seat:{seat}": names.get(account, "") for seat, account in sorted(account_of.items())}


def _first_deal(events: list[Any]) -> dict[str, list[str]]:
    """The face-up cards of Lucky Draw's first deal: each seat's two cards and the dealer's up card."""
    shown: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, CardDealt):
            shown.setdefault(event.to, []).append(str(event.card))
    return shown


def _struck(shoe_row: ShoeRow, game: Game, start: int, coup: Coup) -> tuple[Strike, int]:
    """The coup's struck cards (none for a game without multipliers) and what they multiply a win by."""
    if game.multipliers is None:
        return (), 1
    strike = fairness.strike_of(shoe_row, game, start)
    return strike, coup_factor(strike, coup, game.multipliers)


def round_shoe(s: Session, current: Round) -> ShoeRow:
    shoe = s.get(ShoeRow, current.shoe_id)
    assert shoe is not None  # a foreign key
    return shoe


def _close(s: Session, table: GameTable, current: Round, bets: list[Bet], shoe: Shoe, events: list[Any],
           now: datetime, deal: list[DealtCard], result_at: datetime, *, decided: StoredResult | None = None
           ) -> None:
    """The round is settled: its result (shown from ``result_at``) is stored, and the next round
    opens after the results pause.  ``decided``: Lucky Draw's result as stored at its decisions."""
    shoe_row = round_shoe(s, current)
    shoe_row.position, shoe_row.last_coup, shoe_row.finished = shoe.position, shoe.last_coup, shoe.finished
    result: StoredResult = {"cards": [str(e.card) for e in events if isinstance(e, CardDealt)], "deal": deal}
    coup = next((e.coup for e in events if isinstance(e, CoupResolved)), None)
    game = game_of(table)
    if coup is not None:
        # the struck cards of a game with multipliers: shown from the close of betting, before the first card
        strike, factor = (_struck(shoe_row, game, current.first_card, coup) if current.first_card is not None
                          else ((), 1))
        if game.multipliers is not None:
            result.update({"strike": cast(list[StruckCard], strike_json(strike)), "factor": factor})
        result.update({"player_cards": [str(c) for c in coup.player_cards],
                       "banker_cards": [str(c) for c in coup.banker_cards],
                       "player_total": coup.player_total, "banker_total": coup.banker_total, "winner": coup.winner,
                       "reasons": {"player": coup.player_reason, "banker": coup.banker_reason},
                       "reason_codes": {side: {"code": code, "params": params}
                                        for side, (code, params) in reasons(coup).items()},
                       "hand": hand_json(hand_of(coup)),
                       "spots": {w.code: {"event": w.event(coup),
                                          "odds": str(paid_odds(w, w.event(coup),
                                                                factor if game.multiplies(w.code) else 1))}
                                 for w in game.wagers}})
    else:
        result["hands"] = _first_deal(events)
        decided = decided or {}  # Lucky Draw: whose hands, and when the decisions opened
        result["names"] = decided.get("names", {})
        if "decisions_at" in decided:
            result["decisions_at"] = decided["decisions_at"]
    result["balances"] = {str(a): balance for a, balance in sorted(wallet.balances(s, {b.account_id for b in bets}))}
    current.result = json.dumps(result)
    current.status = "settled"
    current.result_at = result_at
    next_round(s, table, current.number + 1, now, shoe_row, later(result_at, pace_of(table).results))


def decide(s: Session, table_id: int, account_id: int, action: str, now: datetime | None = None,
           *, round_number: int | None = None) -> DecisionAnswer:
    """Lucky Draw: stand, or draw one card with a Draw wager equal to Enter (staked now).

    ``round_number`` names the round the decision is meant for: a decision resent after that round's
    decisions ended is refused, never taken for the next round's hand (which the player has not seen)."""
    now = now or _now()
    if action not in ("draw", "stand"):
        raise ConfigurationError.coded("decision.action")
    current = s.scalar(select(Round).where(Round.table_id == table_id, Round.status == "decision"))
    if current is None or aware(current.decides_at or now) <= now or not hold_round(s, current.id, "decision"):
        if round_number is None:
            raise IllegalActionError.coded("decision.not_awaited")
        raise IllegalActionError.coded("decision.round_over", round=round_number)
    if round_number is not None and round_number != current.number:
        raise IllegalActionError.coded("decision.other_round", round=round_number, current=current.number)
    opens = json.loads(current.result or "{}").get("decisions_at")
    if opens is not None and datetime.fromisoformat(opens) > now:
        wait = math.ceil((datetime.fromisoformat(opens) - now).total_seconds())
        raise IllegalActionError.coded("decision.still_dealing", seconds=wait)
    enter = s.scalar(select(Bet).where(Bet.round_id == current.id, Bet.account_id == account_id,
                                       Bet.wager == "enter"))
    if enter is None:
        raise IllegalActionError.coded("decision.no_enter")
    if s.scalar(select(Decision.id).where(Decision.round_id == current.id, Decision.account_id == account_id)):
        raise ConflictError.coded("decision.already_made")
    if action == "draw":
        protection.check_stake(s, account_id, enter.amount, now)  # standing stays possible
        _, shown = wallet.stake(s, account_id, wallet.escrow_account(current.id), enter.amount,
                                memo=f"round {current.number} Draw wager", now=now)
        s.add(Bet(round_id=current.id, account_id=account_id, seat=enter.seat, wager="draw", amount=enter.amount,
                  balance_before=enter.balance_before))
    else:
        shown = wallet.shown_balance(s, account_id, now)
    s.add(Decision(round_id=current.id, account_id=account_id, seat=enter.seat, action=action))
    notify.changed(s, table_id)
    s.flush()
    return {"table": table_id, "round": current.number, "action": action, "balance": shown}


def void_round(s: Session, table_id: int, number: int, *, reason: str, now: datetime | None = None
               ) -> VoidedRound:
    """Void a round that cannot be dealt: every stake not yet settled goes back to its player in one
    ledger movement (a Lucky Draw Block Bonus settled at the first deal stands), the round is
    marked ``void`` with the reason, and the table moves on to its next round.

    Cards already shown (a Lucky Draw first deal) are taken out of the shoe, so the next round
    never deals them again; a round voided before its deal leaves the shoe untouched.
    """
    now = now or _now()
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigurationError.coded("round.void_reason")
    table = table_row(s, table_id, lock=True)  # the table, then the round: the dealer's lock order
    current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == number))
    if current is None:
        raise UnknownSeatError.coded("round.unknown", round=number, table=table.name)
    s.refresh(current, with_for_update=True)
    if current.status not in ("betting", "decision"):
        raise IllegalActionError.coded("round.not_in_play", round=number, status=current.status)
    bets = list(s.scalars(select(Bet).where(Bet.round_id == current.id).order_by(Bet.id)))
    paid = set(s.scalars(select(Settlement.bet_id).where(Settlement.bet_id.in_([b.id for b in bets]))))
    open_bets = [bet for bet in bets if bet.id not in paid]
    refunds: dict[str, int] = {}
    entry = None
    wagers = {w.code: w for w in game_of(table).wagers}  # (a round is voided whatever its rows hold)
    for bet in open_bets:
        owner = wallet.wallet_account(bet.account_id)
        fee = fee_of(wagers[bet.wager], bet.amount) if bet.wager in wagers else 0
        refunds[owner] = refunds.get(owner, 0) + bet.amount + fee  # the stake, and its fee back too
    if refunds:
        entry = wallet.transfer(s, "refund", {wallet.escrow_account(current.id): -sum(refunds.values()), **refunds},
                                memo=f"table {table.name} round {number} void: {reason.strip()[:120]}")
        insert_rows(s.connection(), _SETTLEMENTS, [{"bet_id": bet.id, "event": "Void", "net": 0,
                                                    "transaction_id": entry, "shown_at": now} for bet in open_bets])
    shoe_row = round_shoe(s, current)
    shown = json.loads(current.result or "{}").get("cards", []) if current.status == "decision" else []
    if shown and current.first_card is not None:
        shoe = Shoe(list(fairness.shoe_cards(shoe_row)), cut_card=shoe_row.cut_card, burn=True)
        shoe.resume(current.first_card, last_coup=shoe_row.last_coup)
        shoe.start_coup(len(shown))
        for _ in shown:
            shoe.draw()
        shoe.end_coup()  # the voided coup counts as the shoe's coup after the cut card, as at a live table
        shoe_row.position, shoe_row.last_coup, shoe_row.finished = shoe.position, shoe.last_coup, shoe.finished
    # the cards already shown stay on the record; those dealt but not yet shown are never shown
    seen = [card for card in json.loads(current.result or "{}").get("deal", [])
            if datetime.fromisoformat(card["at"]) <= now] if current.status == "decision" else []
    current.result = json.dumps({"cards": shown, "void": reason.strip()[:200], "deal": seen,
                                 "balances": {str(a): b for a, b in
                                              sorted(wallet.balances(s, {b.account_id for b in bets}))}})
    current.status = "void"
    current.result_at = current.dealt_at = now
    _count_round(s, table_id, "void")
    metrics.after_commit(s, metrics.count_money(metrics.REFUNDS, {table_id: sum(refunds.values())}))
    # the Block Bonus already paid at the first deal counts from now if it was not shown yet
    s.execute(update(Settlement).where(Settlement.bet_id.in_([b.id for b in bets]), Settlement.shown_at > now)
              .values(shown_at=now))
    next_round(s, table, current.number + 1, now, shoe_row)
    return {"table": table_id, "round": number, "status": "void", "refunded": sum(refunds.values()),
            "bets_refunded": len(open_bets), "movement": entry}


def repair_deadlines(s: Session, now: datetime | None = None) -> int:
    """At start-up: pull back deadlines stored further ahead than one window (and a whole paced
    deal) from ``now`` (the wall clock stepped back since they were written), so no table waits
    hours for its next deal.  Returns how many were changed."""
    now = now or _now()
    changed = 0
    for current, table in s.execute(select(Round, GameTable).join(GameTable, GameTable.id == Round.table_id)
                                    .where(Round.status.in_(("betting", "decision")))).all():
        pace = pace_of(table)
        # the longest a window can wait to open: a whole deal (3 cards a seat plus 3) and the results pause
        # (a squeeze table: and the squeeze of each of a coup's six cards at most)
        wait = timedelta(seconds=pace.no_more_bets + pace.card * (3 * 7 + 5) + pace.results
                         + 6 * (table.squeeze_seconds or 0))
        if current.status == "betting":
            opens = aware(current.opens_at) if current.opens_at is not None else now
            betting_end = max(opens, now) + timedelta(seconds=table.betting_seconds)
            if opens > now + wait:
                current.opens_at, betting_end = now, now + timedelta(seconds=table.betting_seconds)
            if opens > now + wait or aware(current.closes_at) > betting_end:
                current.closes_at, changed = betting_end, changed + 1
        deciding_end = now + wait + timedelta(seconds=table.decision_seconds)
        if current.status == "decision" and current.decides_at is not None and aware(current.decides_at) > deciding_end:
            current.decides_at, changed = deciding_end, changed + 1
    return changed
