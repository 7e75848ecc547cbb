"""What players see, computed for a moment ``now``: the round on show and its phase (:func:`moment`), the
table view and each player's own state (the scoreboards and a player's history are
:mod:`baccarat.server.playing.scoreboards`; the games' wagers and limits :mod:`baccarat.server.playing.game_info`).

The database may be ahead of what is shown (a round is settled the moment it is dealt); every
function here shows only what the round's timeline (:mod:`baccarat.server.playing.timeline`) has revealed
by ``now``: no card before its moment, no result, settlement, payout, history row or road mark
before the round's ``result_at``, no bet taken before the next window's ``opens_at``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, or_, select
from sqlalchemy.engine import Row
from sqlalchemy.orm import Session

from baccarat.core import card_face
from baccarat.core.cards import Card, hand_total
from baccarat.core.errors import UnknownSeatError
from baccarat.core.games import Game
from baccarat.core.registry import get_game
from baccarat.server.house import wallet
from baccarat.server.playing import fairness, shapes
from baccarat.server.playing.game_info import limits_json, stored_limits, wagers_json
from baccarat.server.playing.timeline import hands, later, pace_of, shown, stamp
from baccarat.server.storage.models import (
    Account,
    Announcement,
    Bet,
    Decision,
    GameTable,
    Round,
    Seat,
    Settlement,
    ShoeRow,
    aware,
)
from baccarat.server.storage.models import now as _now

#: Announcements shown: the newest this many, of the last :data:`ANNOUNCED_FOR`.
ANNOUNCEMENTS = 10
ANNOUNCED_FOR = timedelta(minutes=10)

_TABLES = cast(SqlTable, GameTable.__table__)
_ROUNDS = cast(SqlTable, Round.__table__)
_SEATS = cast(SqlTable, Seat.__table__)
_BETS = cast(SqlTable, Bet.__table__)
_SETTLEMENTS = cast(SqlTable, Settlement.__table__)
_SHOES = cast(SqlTable, ShoeRow.__table__)
_ACCOUNTS = cast(SqlTable, Account.__table__)
_DECISIONS = cast(SqlTable, Decision.__table__)
_ANNOUNCEMENTS = cast(SqlTable, Announcement.__table__)

# The table view is read for every watched table several times a second: Core statements, each on an index.
_VIEW_TABLE = select(_TABLES).where(_TABLES.c.id == bindparam("table"))
_VIEW_LATEST = (select(_ROUNDS).where(_ROUNDS.c.table_id == bindparam("table"))
                .order_by(_ROUNDS.c.number.desc()).limit(2))
_VIEW_LAST = (select(_ROUNDS.c.number, _ROUNDS.c.result)
              .where(_ROUNDS.c.table_id == bindparam("table"), _ROUNDS.c.status == "settled",
                     or_(_ROUNDS.c.result_at.is_(None), _ROUNDS.c.result_at <= bindparam("now")))
              .order_by(_ROUNDS.c.number.desc()).limit(1))
_SHOE_COLUMNS = (_SHOES.c.id, _SHOES.c.number, _SHOES.c.algorithm, _SHOES.c.commitment, _SHOES.c.position,
                 _SHOES.c.decks, _SHOES.c.cut_card, _SHOES.c.last_coup, _SHOES.c.client_seeds,
                 _SHOES.c.server_seed)  # (only for the Merkle root: the seed itself is never in a view)
_VIEW_SHOE = select(*_SHOE_COLUMNS).where(_SHOES.c.id == bindparam("shoe"))
_VIEW_NEWEST_SHOE = (select(*_SHOE_COLUMNS).where(_SHOES.c.table_id == bindparam("table"))
                     .order_by(_SHOES.c.number.desc()).limit(1))
_VIEW_SEATS = (select(_SEATS.c.number, _SEATS.c.account_id, _SEATS.c.away_since, _ACCOUNTS.c.username)
               .join(_ACCOUNTS, _ACCOUNTS.c.id == _SEATS.c.account_id)
               .where(_SEATS.c.table_id == bindparam("table")).order_by(_SEATS.c.number))
_VIEW_BETS = (select(_BETS.c.id, _BETS.c.account_id, _BETS.c.seat, _BETS.c.wager, _BETS.c.amount)
              .where(_BETS.c.round_id == bindparam("round")).order_by(_BETS.c.id))
_VIEW_SETTLED = (select(_SETTLEMENTS.c.bet_id, _SETTLEMENTS.c.event, _SETTLEMENTS.c.net)
                 .join(_BETS, _BETS.c.id == _SETTLEMENTS.c.bet_id)
                 .where(_BETS.c.round_id == bindparam("round"),
                        or_(_SETTLEMENTS.c.shown_at.is_(None), _SETTLEMENTS.c.shown_at <= bindparam("now"))))
_VIEW_DECISIONS = select(_DECISIONS.c.account_id, _DECISIONS.c.seat, _DECISIONS.c.action).where(
    _DECISIONS.c.round_id == bindparam("round"))
_VIEW_ANNOUNCEMENTS = (select(_ANNOUNCEMENTS.c.at, _ANNOUNCEMENTS.c.kind, _ANNOUNCEMENTS.c.seat,
                              _ANNOUNCEMENTS.c.name, _ANNOUNCEMENTS.c.text, _ANNOUNCEMENTS.c.params)
                       .where(_ANNOUNCEMENTS.c.table_id == bindparam("table"),
                              _ANNOUNCEMENTS.c.at <= bindparam("now"), _ANNOUNCEMENTS.c.at > bindparam("since"))
                       .order_by(_ANNOUNCEMENTS.c.at.desc(), _ANNOUNCEMENTS.c.id.desc()).limit(ANNOUNCEMENTS))
#: News that ends a seat without its player leaving: the player is told why (their state's ``notice``).
FREED = ("stood_up", "seat_freed", "operator_stood")
_VIEW_SEAT_NEWS = (select(_ANNOUNCEMENTS.c.at, _ANNOUNCEMENTS.c.kind, _ANNOUNCEMENTS.c.name, _ANNOUNCEMENTS.c.params)
                   .where(_ANNOUNCEMENTS.c.table_id == bindparam("table"),
                          _ANNOUNCEMENTS.c.kind.in_(("seated", "left", *FREED)),
                          _ANNOUNCEMENTS.c.at <= bindparam("now"), _ANNOUNCEMENTS.c.at > bindparam("since"))
                   .order_by(_ANNOUNCEMENTS.c.at.desc(), _ANNOUNCEMENTS.c.id.desc()))



# --- the moment: which round is on show, in which phase -----------------------------------------------


@dataclass
class Moment:
    """The table at ``now``: the round on show (the one taking bets, being dealt or deciding, or the
    one whose result is on show during the results pause), its phase, what of it is shown."""

    table: Row[Any]
    now: datetime
    on_show: Row[Any] | None = None
    upcoming: Row[Any] | None = None  #: the next round, made but not taking bets yet
    phase: str = "closed"
    started: datetime | None = None
    ends: datetime | None = None
    stored: shapes.StoredResult = field(default_factory=shapes.StoredResult)
    cards: list[shapes.ShownCard] = field(default_factory=list)
    result_due: bool = False
    changes: list[datetime] = field(default_factory=list)  #: moments when the view will change
    seats: list[Row[Any]] | None = None  #: the table's seats (number, account_id, away_since, username), once read
    bets: list[Row[Any]] | None = None  #: the bets on the round on show, once read
    settled: dict[int, Row[Any]] | None = None  #: bet id -> its settlement shown by now, once read

    def read_seats(self, connection: Any) -> list[Row[Any]]:
        if self.seats is None:
            self.seats = list(connection.execute(_VIEW_SEATS, {"table": self.table.id}))
        return self.seats

    def read_bets(self, connection: Any) -> tuple[list[Row[Any]], dict[int, Row[Any]]]:
        """The bets on the round on show and their settlements shown by now (none when there is no round)."""
        if self.bets is None or self.settled is None:
            current = self.on_show
            if current is None or self.phase == "closed":
                self.bets, self.settled = [], {}
            else:
                self.bets = list(connection.execute(_VIEW_BETS, {"round": current.id}))
                self.settled = {row.bet_id: row for row in connection.execute(
                    _VIEW_SETTLED, {"round": current.id, "now": self.now})}
        return self.bets, self.settled

    def at(self, moment: datetime | None) -> None:
        if moment is not None and moment > self.now:
            self.changes.append(moment)


def _when(value: datetime | None) -> datetime | None:
    return None if value is None else aware(value)


def moment(s: Session, table_id: int, now: datetime) -> Moment:
    connection = s.connection()
    table = connection.execute(_VIEW_TABLE, {"table": table_id}).first()
    if table is None:
        raise UnknownSeatError.coded("table.unknown", table=table_id)
    latest = list(connection.execute(_VIEW_LATEST, {"table": table_id}))
    state = Moment(table, now)
    if not latest:
        return state
    newest, previous = latest[0], latest[1] if len(latest) > 1 else None
    on_show = newest
    opens = _when(newest.opens_at)
    if newest.status == "betting" and opens is not None and opens > now:
        state.upcoming = newest
        state.at(opens)
        if previous is not None and previous.status in ("settled", "void"):
            on_show = previous
    elif (newest.status == "no_action" and previous is not None and previous.status in ("settled", "void")
          and (previous.result_at is None or now < later(aware(previous.result_at), pace_of(table).results))):
        on_show = previous  # the table closed during a round's reveal or results pause: it plays out first
    state.on_show = on_show
    state.stored = json.loads(on_show.result or "{}")
    _phase(state, on_show, pace_of(table).results)
    return state


def _phase(state: Moment, current: Row[Any], results_seconds: float) -> None:
    now, stored = state.now, state.stored
    closes = aware(current.closes_at)
    deal = stored.get("deal", [])
    state.cards = shown(deal, now)
    for card in deal[len(state.cards):len(state.cards) + 1]:
        state.at(datetime.fromisoformat(card["at"]))
    first_at = datetime.fromisoformat(deal[0]["at"]) if deal else None
    opens = _when(current.opens_at)
    if current.status in ("no_action", "refunded"):  # an empty round the table closed on
        state.cards, state.phase = [], "closed"
        return
    if current.status == "betting" or now < closes:  # (or a dealt round sampled during its own window)
        state.cards = []
        if now < closes:
            state.phase, state.started, state.ends = "betting", opens, closes
        else:  # closed, and the dealer has not dealt it yet
            state.phase, state.started = "no_more_bets", closes
            state.ends = later(closes, state.table.no_more_bets_seconds)
        state.at(closes)
        return
    decisions_at = datetime.fromisoformat(stored["decisions_at"]) if "decisions_at" in stored else None
    result_at = _when(current.result_at)
    dealt_at = _when(current.dealt_at)
    if current.status == "void":
        state.cards = shown(deal, now)
        state.result_due = True
        state.phase, state.started = "result", result_at
        state.ends = _when(state.upcoming.opens_at) if state.upcoming is not None else None
        return
    if (result_at is not None and now >= result_at) or (current.status == "settled" and result_at is None):
        state.result_due = True
        pause_end = (_when(state.upcoming.opens_at) if state.upcoming is not None
                     else None if result_at is None else later(result_at, results_seconds))
        if state.upcoming is None and state.table.status == "closed" and (pause_end is None or now >= pause_end):
            state.phase, state.started = "closed", pause_end
            return
        state.phase, state.started, state.ends = "result", result_at, pause_end
        state.at(pause_end)
        return
    state.at(result_at)
    if not state.cards:
        state.phase, state.started, state.ends = "no_more_bets", closes, first_at
    elif decisions_at is not None and now >= decisions_at and (
            (current.status == "decision" and now < aware(current.decides_at or now))
            or (current.status == "settled" and dealt_at is not None and now < dealt_at)):
        state.phase, state.started = "decisions", decisions_at
        state.ends = _when(current.decides_at)
        state.at(state.ends)
        state.at(dealt_at)
    else:
        state.phase = "dealing"
        state.started = first_at if decisions_at is None or now < decisions_at else (
            dealt_at if dealt_at is not None and current.status == "settled" else _when(current.decides_at))
        # when the deal ends would tell how many cards are still to come: not shown (None) until it does
        state.ends = decisions_at if decisions_at is not None and now < decisions_at else None
        state.at(decisions_at)


# --- the table view ------------------------------------------------------------------------------------


def table_view(s: Session, table_id: int, now: datetime | None = None) -> shapes.TableView:
    """What anyone may see of a table at ``now``: never a seed before its shoe is over, never a card
    before its moment, never a result before the last card (docs/api.md describes the fields)."""
    return table_view_at(s, table_id, now or _now())[0]


def table_view_at(s: Session, table_id: int, now: datetime) -> tuple[shapes.TableView, Moment]:
    """The table view at ``now`` and the moment it was computed from (for :func:`yours`)."""
    state = moment(s, table_id, now)
    connection = s.connection()
    table, current = state.table, state.on_show
    game = get_game(table.game, paytable=table.paytable)
    view: shapes.TableView = {
        "squeeze": None,  # a squeeze table's, below
        "strike": None,  # a game with multipliers', below
        "id": table.id, "name": table.name, "game": table.game, "game_name": game.name, "status": table.status,
        "paytable": table.paytable, "betting_seconds": table.betting_seconds,
        "decision_seconds": table.decision_seconds,
        "pace": {"no_more_bets": table.no_more_bets_seconds, "card": table.card_seconds,
                 "results": table.results_seconds},
        "limits": limits_json(stored_limits(table.game, table.paytable, table.limits)),
        "pending_limits": None if table.pending_limits is None else json.loads(table.pending_limits),
        "server_time": stamp(now),
        "phase": state.phase,
        "phase_started_at": None if state.started is None else stamp(state.started),
        "phase_ends_at": None if state.ends is None else stamp(state.ends),
        "round_number": None if current is None else current.number,
        "round": None,
        # when the next window opens is shown with the result (before, it would tell how many cards are to come)
        "next_round": None if state.upcoming is None else {
            "number": state.upcoming.number,
            "opens_at": stamp(aware(state.upcoming.opens_at)) if state.result_due else None},
        "cards": state.cards,
        "hands": hands(state.cards),
        "result": None,
        "seats": {},
        "players": {},
        "bettors": 0,  #: players with bets on the round on show, seated or not
        "spots": {w.code: {"total": 0, "players": 0} for w in game.wagers},
        "announcements": [],
        "shoe": None,
        "last_result": None,
        "decision": None,
        "wagers": list(wagers_json(table.game, table.paytable, table.limits)),
    }
    if current is not None and current.status == "betting" and state.upcoming is None:  # taking bets (or closed
        # and not dealt yet: no_more_bets)
        opens = _when(current.opens_at)
        view["round"] = {"number": current.number, "opens_at": None if opens is None else stamp(opens),
                         "closes_at": stamp(aware(current.closes_at))}
    seats = state.read_seats(connection)
    view["seats"] = {str(row.number): row.username for row in seats}
    seat_of = {row.account_id: row.number for row in seats}
    players: dict[str, shapes.SeatedPlayer] = {
        str(row.number): {"name": row.username, "away": row.away_since is not None, "bets": {}, "results": None}
        for row in seats}
    if current is not None and state.phase != "closed":
        bets, settled = state.read_bets(connection)
        on_spot: dict[str, set[int]] = {}
        for bet in bets:
            spot = view["spots"].setdefault(bet.wager, {"total": 0, "players": 0})
            spot["total"] += bet.amount
            on_spot.setdefault(bet.wager, set()).add(bet.account_id)
            player = players.get(str(seat_of.get(bet.account_id)))
            if player is None:
                continue  # a player who left after the round was settled: counted on the spot only
            player["bets"][bet.wager] = bet.amount
            if bet.id in settled:
                results = player["results"] = player["results"] or {}
                results[bet.wager] = {"event": settled[bet.id].event, "net": settled[bet.id].net}
        for code, accounts in on_spot.items():
            view["spots"][code]["players"] = len(accounts)
        view["bettors"] = len({bet.account_id for bet in bets})
        if state.phase == "decisions":
            decided = {row.account_id for row in connection.execute(_VIEW_DECISIONS, {"round": current.id})}
            view["decision"] = {"round": current.number, "opens_at": state.stored.get("decisions_at"),
                                "decides_at": stamp(aware(current.decides_at)),
                                "first_deal": state.stored.get("first_deal", {}),
                                "decided": sorted(str(seat_of[a]) for a in decided if a in seat_of)}
        if state.result_due:
            view["result"] = _result(game, current.number, state.stored, state.started)
    view["players"] = players
    stored_strike = state.stored.get("strike")
    view["strike"] = stored_strike if stored_strike is not None and state.phase not in ("betting", "closed") else None
    view["squeeze"] = squeezed = _squeeze(state)
    if squeezed is not None and squeezed["cards"] and state.phase == "no_more_bets":  # the cards are down, face down
        state.phase = view["phase"] = "dealing"
        view["phase_started_at"], view["phase_ends_at"] = squeezed["cards"][0]["down_at"], None
    # the code and its params (news stored before params were is "news.other"), and the English words
    view["announcements"] = [{"at": stamp(aware(row.at)), "kind": row.kind, "seat": row.seat, "name": row.name,
                              "text": row.text, "code": f"news.{row.kind}" if row.params else "news.other",
                              "params": json.loads(row.params or "{}")} for row in reversed(list(connection.execute(
                                  _VIEW_ANNOUNCEMENTS, {"table": table_id, "now": now, "since": now - ANNOUNCED_FOR})))]
    view["shoe"] = _shoe(connection, table_id, state)
    last = (current if current is not None and current.status == "settled" and state.result_due
            else connection.execute(_VIEW_LAST, {"table": table_id, "now": now}).first())
    if last is not None and last.result:
        public = cast(shapes.ShownResult, {key: value for key, value in json.loads(last.result).items()
                                           if key not in ("balances", "deal", "names", "spots")})
        view["last_result"] = {"round": last.number, **public}
    return view, state


def _squeeze(state: Moment) -> shapes.SqueezeView | None:
    """A squeeze table's squeeze at ``now`` (:mod:`baccarat.server.playing.squeeze`): who squeezes, and the cards
    down but not yet turned, with how far the one being squeezed is lifted; never a face (a card's face is in
    ``cards`` from its ``at``, when it is turned, like every card).  None at a table without the squeeze."""
    table, current, now = state.table, state.on_show, state.now
    if not table.squeeze_seconds:
        return None
    view: shapes.SqueezeView = {"seconds": table.squeeze_seconds, "squeezers": {"player": None, "banker": None},
                                "cards": []}
    deal = state.stored.get("deal", [])
    if current is None or current.squeeze is None or current.status != "settled" or state.result_due or not deal:
        return view
    downs = [datetime.fromisoformat(card.get("down") or card["at"]) for card in deal]
    for down in downs:
        state.at(down)  # a card put down face down is pushed at its moment
    if downs[0] > now:
        return view
    stored = json.loads(current.squeeze)
    view["squeezers"] = {side: (stored.get(side) or {}).get("name") for side in ("player", "banker")}
    peel = stored.get("peel") or {}
    turning = len(state.cards)  # the card being squeezed: the first not turned (cards turn in deal order)
    for index, card in enumerate(deal[turning:], start=turning):
        if downs[index] > now:
            break
        view["cards"].append({"index": index, "to": card["to"], "by": card.get("by"), "down_at": stamp(downs[index]),
                              "turns_at": card["at"] if index == turning else None,
                              # its squeezer may peel it from then (the four cards down, the card before turned)
                              "squeezed_from": stamp(datetime.fromisoformat(card["at"]) - timedelta(
                                  seconds=table.squeeze_seconds)) if index == turning and card.get("by") else None,
                              **_peeled(card["card"], peel if peel.get("card") == index else {})})
    return view


def _peeled(card: str, peel: dict[str, Any]) -> shapes.Peeled:
    """How far a card face down is lifted, from where, and the part of its face that lift uncovers (all a real card
    would show a watcher at it: :mod:`baccarat.core.card_face`); a card not being peeled shows nothing."""
    lift, edge = float(peel.get("lift", 0)), str(peel.get("edge") or "corner")
    return {"lift": lift, "edge": edge, "shows": card_face.shows(Card.parse(card), edge, lift)}


def _shoe(connection: Any, table_id: int, state: Moment) -> shapes.ShoeInPlay | None:
    """The shoe of the round on show, its cards dealt counting only the cards shown."""
    current = state.on_show
    if current is not None:
        shoe = connection.execute(_VIEW_SHOE, {"shoe": current.shoe_id}).first()
    else:
        shoe = connection.execute(_VIEW_NEWEST_SHOE, {"table": table_id}).first()
    if shoe is None:
        return None
    dealt = shoe.position
    if current is not None and current.status == "decision":
        dealt += len(state.cards)  # the first deal moves the stored cursor only when the round is finished
    elif current is not None and current.status in ("settled", "void") and current.status != "void":
        dealt -= len(state.stored.get("deal", [])) - len(state.cards)
    return {"number": shoe.number, "algorithm": shoe.algorithm, "commitment": shoe.commitment,
            "cards_dealt": dealt, "cards": 52 * shoe.decks, "cut_card": shoe.cut_card, "last_hand": shoe.last_coup,
            # until its first deal the shoe takes the seeds of those who bet; then they are public
            # (the server seed stays secret)
            "taking_client_seeds": fairness.takes_seeds(shoe.algorithm, shoe.client_seeds),
            "client_seeds": None if shoe.client_seeds is None else json.loads(shoe.client_seeds),
            # algorithm 3: the root every card is proven against, from the first deal on (before any card is shown)
            "merkle_root": fairness.published_root(shoe.algorithm, shoe.server_seed, shoe.commitment,
                                                   shoe.client_seeds, shoe.decks)}


def _result(game: Game, number: int, stored: shapes.StoredResult, at: datetime | None) -> shapes.RoundResult:
    """The round's result in a player's words (only once it is due)."""
    when = None if at is None else stamp(at)
    if "void" in stored:
        return {"round": number, "void": stored["void"], "at": when,
                "message": f"Round {number} void: every stake refunded"}
    if "winner" in stored:
        player, banker, winner = stored["player_total"], stored["banker_total"], stored["winner"]
        hand = stored.get("hand", {})
        callouts = ["Natural"] if hand.get("natural") else []
        codes = {w.code for w in game.wagers}
        if hand.get("dragon_7") and "dragon_7" in codes:
            callouts.append("Dragon 7")
        if hand.get("panda_8") and "panda_8" in codes:
            callouts.append("Panda 8")
        spots = stored.get("spots", {})
        message = (f"Tie {player} : {player}" if winner == "tie" else
                   f"Banker wins {banker} : {player}" if winner == "banker" else f"Player wins {player} : {banker}")
        return {"round": number, "winner": winner, "player_total": player, "banker_total": banker,
                "natural": bool(hand.get("natural")), "callouts": callouts, "message": message,
                "winning_spots": [code for code, spot in spots.items() if Fraction(spot["odds"]) > 0],
                "pushed_spots": [code for code, spot in spots.items() if Fraction(spot["odds"]) == 0],
                "at": when}
    hands_ = stored.get("hands", {})
    dealer = hand_total(Card.parse(c) for c in hands_.get("dealer", []))
    names = stored.get("names", {})
    seats: dict[str, shapes.SeatResult] = {}
    for to, cards in sorted(hands_.items()):
        if not to.startswith("seat:"):
            continue
        total = hand_total(Card.parse(c) for c in cards)
        name = names.get(to) or f"Seat {to[5:]}"
        winner = "player" if total > dealer else "dealer" if total < dealer else "tie"
        words = {"player": f"{name} wins {total} : {dealer}", "dealer": f"Dealer wins {dealer} : {total}",
                 "tie": f"Push {total} : {dealer}"}[winner]
        seats[to[5:]] = {"name": name, "total": total, "winner": winner, "message": words}
    return {"round": number, "dealer_total": dealer, "seats": seats, "at": when,
            "message": "; ".join(f"{seat['name']}: {seat['message']}" if seat["winner"] != "player"
                                 else seat["message"] for seat in seats.values())}


# --- each player's own state ------------------------------------------------------------------------------


def yours(s: Session, state: Moment, account_ids: list[int]) -> dict[int, shapes.YourState]:
    """Each account's seat, shown balance, bets on the round on show and (once shown) their settlement."""
    connection = s.connection()
    now, current = state.now, state.on_show
    seats = {row.account_id: row for row in state.read_seats(connection)}
    balances = wallet.shown_balances(s, account_ids, now)
    bets: dict[int, dict[str, int]] = {}
    settled: dict[int, dict[str, shapes.SettledBet]] = {}
    decided: dict[int, str] = {}
    if current is not None and state.phase != "closed":
        bets_on_show, paid = state.read_bets(connection)
        wanted = set(account_ids)  # a set: thousands of bettors watch one table
        for bet in bets_on_show:
            if bet.account_id in wanted:
                bets.setdefault(bet.account_id, {})[bet.wager] = bet.amount
                if bet.id in paid:
                    settled.setdefault(bet.account_id, {})[bet.wager] = {
                        "amount": bet.amount, "event": paid[bet.id].event, "net": paid[bet.id].net}
        if get_game(state.table.game, paytable=state.table.paytable).kind == "lucky_draw":
            decided = {row.account_id: row.action
                       for row in connection.execute(_VIEW_DECISIONS, {"round": current.id})}
    notices = _notices(connection, state.table.id, now) if set(account_ids) - set(seats) else {}
    answer: dict[int, shapes.YourState] = {}
    for account_id in account_ids:
        seat = seats.get(account_id)
        mine = settled.get(account_id)
        answer[account_id] = {
            "seat": None if seat is None else seat.number, "name": None if seat is None else seat.username,
            "balance": balances.get(account_id), "round": None if current is None else current.number,
            "bets": bets.get(account_id, {}),
            "settlement": None if mine is None else {"bets": mine, "net": sum(b["net"] for b in mine.values())},
            "decision": decided.get(account_id), "notice": None if seat is not None else notices.get(account_id)}
    return answer


def _notices(connection: Any, table_id: int, now: datetime) -> dict[int, shapes.SeatNotice]:
    """Account -> why their seat at the table was freed, for players whose latest seat news of the last
    :data:`ANNOUNCED_FOR` says it was (stood up, away too long, stood up by the house) rather than that
    they sat down or left.  A REST client that never opened a socket learns it from ``GET .../you``."""
    latest: dict[str, Row[Any]] = {}
    for row in connection.execute(_VIEW_SEAT_NEWS, {"table": table_id, "now": now, "since": now - ANNOUNCED_FOR}):
        if row.name is not None:
            latest.setdefault(row.name, row)  # newest first: the first row of a name is its latest news
    # (news stored before it had params cannot be worded as a notice: it is left out)
    freed = {name: row for name, row in latest.items() if row.kind in FREED and row.params}
    if not freed:
        return {}
    accounts = connection.execute(select(_ACCOUNTS.c.id, _ACCOUNTS.c.username)
                                  .where(_ACCOUNTS.c.username.in_(list(freed))))
    notices: dict[int, shapes.SeatNotice] = {}
    for account_id, username in accounts:
        row = freed[username]
        params = {key: value for key, value in json.loads(row.params).items() if key != "name"}
        notices[account_id] = {"code": f"notice.{row.kind}", "params": params, "at": stamp(aware(row.at))}
    return notices


def you(s: Session, table_id: int, account_id: int, now: datetime | None = None) -> shapes.YourState:
    """One player's own state at a table (``GET /api/tables/{id}/you``)."""
    return yours(s, moment(s, table_id, now or _now()), [account_id])[account_id]
