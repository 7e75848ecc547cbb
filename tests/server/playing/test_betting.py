"""The pieces of a bet that a bet alone (:func:`betting.place_bets`) and the bets of a batch
(:mod:`baccarat.server.playing.bulk_bets`) share: the round's window (:func:`betting.check_window`) and the rows
accepted bets become (:func:`betting.bet_rows`).  The stake rule is ``tests/core/test_stakes.py``'s; the whole
pipeline on both databases is ``test_bulk_bets.py``'s.  On a database: a bet racing its player's departure from
the seat never both succeed, and a bet that names its round is refused once that round's betting has closed
(after the allowance for bets on their way), never moved to the next."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import select

from baccarat.core.errors import BaccaratError, IllegalActionError
from baccarat.server.house import accounts, protection, wallet
from baccarat.server.playing import betting, seating, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, Seat

from ...conftest import ON_BOTH, api_client, signed_in

OPENED = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
CLOSES = OPENED + timedelta(seconds=15)


class _LastRound:
    """A connection that knows only the table's last round number (read when no round is open), or when the round
    before the one opening shows its result (read when its window is not open yet)."""

    def __init__(self, last: int | datetime | None) -> None:
        self.last, self.asked = last, 0

    def execute(self, statement: Any, params: Any) -> Any:
        self.asked += 1
        return SimpleNamespace(scalar=lambda: self.last)


def _row(number: int | None = 5, *, opens_at: datetime | None = OPENED) -> Any:
    """:func:`betting.betting_row`'s row: a round taking bets (or, ``number`` None, none)."""
    return SimpleNamespace(id=None if number is None else 40 + number, number=number, opens_at=opens_at,
                           closes_at=CLOSES)


def _refusal(row: Any, now: datetime, named: int | None = None, last: int | datetime | None = None) -> tuple[str, dict]:
    with pytest.raises(BaccaratError) as refused:
        betting.check_window(_LastRound(last), row, 1, now, named)
    return refused.value.code, refused.value.params


@pytest.mark.parametrize(("named", "code"), [(6, "bet.round_not_open_other"), (4, "bet.round_closed_other")])
def test_a_bet_named_for_another_round_says_which_is_open(named: int, code: str) -> None:
    assert _refusal(_row(5), OPENED, named) == (code, {"round": named, "open": 5})


@pytest.mark.parametrize(("named", "code"), [(7, "bet.round_not_open"), (6, "bet.round_closed")])
def test_with_no_round_open_a_named_round_is_told_from_the_last_one(named: int, code: str) -> None:
    assert _refusal(_row(None), OPENED, named, last=6) == (code, {"round": named})


def test_a_bet_for_the_open_round_reads_nothing_and_passes_until_its_allowance_ends() -> None:
    connection = _LastRound(None)
    for now in (OPENED, CLOSES, CLOSES + betting.ON_THE_WAY - timedelta(microseconds=1)):
        betting.check_window(connection, _row(5), 1, now, 5)
        betting.check_window(connection, _row(5), 1, now, None)
    assert connection.asked == 0
    assert _refusal(_row(5), CLOSES + betting.ON_THE_WAY) == ("bet.closed", {"round": 5})


def test_no_round_taking_bets_and_a_window_not_yet_open_are_refused() -> None:
    assert _refusal(_row(None), OPENED) == ("bet.round_over", {})
    # the next round's window opens 2.3 s on: the refusal rounds the wait up
    later = _row(6, opens_at=OPENED + timedelta(seconds=2.3))
    assert _refusal(later, OPENED) == ("bet.opens_in", {"seconds": 3, "round": 6})
    # while the round before is being dealt (its result shown later), no time: it would tell how many cards are to
    # come; from the result on, the results pause's time is told
    assert _refusal(later, OPENED, last=OPENED + timedelta(seconds=0.1)) == ("bet.dealing", {"round": 6})
    assert _refusal(later, OPENED, last=OPENED) == ("bet.opens_in", {"seconds": 3, "round": 6})
    betting.check_window(_LastRound(None), later, 1, OPENED + timedelta(seconds=2.3), None)  # open from then


def test_accepted_bets_become_new_bets_and_chips_added_to_bets_on_the_layout() -> None:
    new, added = betting.bet_rows(45, 7, 0, {"banker": 1_000, "tie": 100}, {"banker": 500, "player": 200},
                                  balance_before=20_000)
    assert new == [{"round_id": 45, "account_id": 7, "seat": 0, "wager": "player", "amount": 200,
                    "balance_before": 20_000}]
    assert added == [{"round": 45, "account": 7, "code": "banker", "added": 500}]


# --- rounds that must never stop a table: bets on the database, each racing or naming its round -------------


T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
#: Repetitions of the seat race; CI runs more (``BACCARAT_RACE_REPETITIONS``).
RACE_REPETITIONS = int(os.environ.get("BACCARAT_RACE_REPETITIONS", "20"))


def _table(sessions, game: str, name: str, players: tuple[str, ...], **options):
    def work(s):
        # these are the reliability tests: cards are shown at once (the timeline has its own tests)
        table = tables.create_table(s, name, game, betting_seconds=10, now=T0, **{"pace": Pace(0, 0, 0), **options})
        ids = [accounts.register(s, player, "correct horse", grant=100_000).id for player in players]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    return transaction(sessions, work)


def _closes_at(sessions, table_id: int) -> datetime:
    with sessions() as s:
        closes = tables.open_round(s, table_id).closes_at
    return closes if closes.tzinfo else closes.replace(tzinfo=UTC)


def _bet(sessions, table_id, account_id, bets, at, **options):
    return transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets, now=at, **options))


# --- rounds that must never stop a table (attack: the seat race) --------------------------------------------


@pytest.mark.parametrize("game", ["ez", "lucky-draw"])
@ON_BOTH
@pytest.mark.slow
def test_a_bet_and_leaving_the_seat_never_both_succeed(sessions, game):
    """A player's bet racing their own departure: in Lucky Draw one of them wins, never both (on
    PostgreSQL the bet once read its seat before the departure committed and was left on a seat
    nobody held); in punto banco, where a bet needs no seat, a bet after the departure is a bet
    without a seat, never one on the seat just left."""
    table_id, (ann,) = _table(sessions, game, "race", ("ann",))
    wager = "banker" if game == "ez" else "enter"
    both = 0
    for _ in range(RACE_REPETITIONS):
        closes = _closes_at(sessions, table_id)
        outcome: dict[str, bool] = {}
        barrier = threading.Barrier(2)

        def bet(closes=closes, outcome=outcome, barrier=barrier):
            barrier.wait()
            try:
                _bet(sessions, table_id, ann, {wager: 100}, closes - timedelta(seconds=1))
                outcome["bet"] = True
            except IllegalActionError:
                outcome["bet"] = False

        def leave(outcome=outcome, barrier=barrier):
            barrier.wait()
            try:
                transaction(sessions, lambda s: seating.leave(s, table_id, ann))
                outcome["left"] = True
            except IllegalActionError:
                outcome["left"] = False

        threads = [threading.Thread(target=bet), threading.Thread(target=leave)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        both += outcome["bet"] and outcome["left"]
        with sessions() as s:
            seated = s.scalar(select(Seat.id).where(Seat.table_id == table_id, Seat.account_id == ann))
            current = tables.open_round(s, table_id)
            on_layout = s.scalar(select(Bet.seat).where(Bet.round_id == current.id, Bet.account_id == ann))
        if game == "lucky-draw":
            assert outcome["bet"] != outcome["left"] or not outcome["bet"], outcome
            assert on_layout is None or seated is not None  # no bet without its player's seat
        else:  # the bet came first (and the departure was refused), or after it, without a seat
            assert on_layout is None or seated is not None or on_layout == tables.NO_SEAT
        if seated is None:
            transaction(sessions, lambda s: seating.sit(s, table_id, ann))
        if on_layout is not None:  # settle it (Lucky Draw: the decision times out and stands)
            deal_due(sessions, now=closes)
            deal_due(sessions, now=closes + timedelta(seconds=30))
    assert both == 0 or game == "ez"


# --- rounds that must never stop a table: bets name their round ---------------------------------------------


def test_a_bet_for_a_closed_round_is_refused_not_moved_to_the_next(sessions):
    table_id, (ann,) = _table(sessions, "ez", "named", ("ann",))
    closes = _closes_at(sessions, table_id)
    assert _bet(sessions, table_id, ann, {"banker": 100}, closes - timedelta(seconds=1), round_number=1)["round"] == 1
    late = closes + betting.ON_THE_WAY  # the allowance for bets on their way is over
    with pytest.raises(IllegalActionError, match="betting closed for round 1"):
        _bet(sessions, table_id, ann, {"player": 100}, late, round_number=1)
    deal_due(sessions, now=closes)
    with pytest.raises(IllegalActionError, match=r"betting closed for round 1\. Bet on round 2, which is open"):
        _bet(sessions, table_id, ann, {"player": 100}, closes, round_number=1)
    with pytest.raises(IllegalActionError, match="Round 3 is not open for bets yet"):
        _bet(sessions, table_id, ann, {"player": 100}, closes, round_number=3)
    assert _bet(sessions, table_id, ann, {"player": 100}, closes)["round"] == 2  # unnamed: the open round
    deal_due(sessions, now=closes + timedelta(seconds=10))


def test_a_bet_on_its_way_at_the_close_is_taken_until_the_allowance_ends(sessions):
    """A bet is judged by its arrival, and one sent just before the close arrives just after it: the
    allowance for bets on their way (betting.ON_THE_WAY) takes it, and nothing after."""
    table_id, (ann, ben) = _table(sessions, "ez", "on-its-way", ("ann", "ben"))
    closes = _closes_at(sessions, table_id)
    with sessions() as s:
        round_id = tables.open_round(s, table_id).id
    end = closes + betting.ON_THE_WAY
    assert _bet(sessions, table_id, ann, {"banker": 100}, end - timedelta(milliseconds=1), round_number=1)["round"] == 1
    with pytest.raises(IllegalActionError, match=r"betting closed for round 1\. Bet on the next round"):
        _bet(sessions, table_id, ben, {"banker": 100}, end)
    deal_due(sessions, now=end)
    with sessions() as s:
        assert s.scalars(select(Bet.account_id).where(Bet.round_id == round_id)).all() == [ann]


# --- chips taken back while betting is open (betting.take_back) ----------------------------------------------


def _back(sessions, table_id, account_id, bets, at, **options):
    return transaction(sessions, lambda s: betting.take_back(s, table_id, account_id, bets, now=at, **options))


def _code(call) -> str:
    with pytest.raises(BaccaratError) as refused:
        call()
    return refused.value.code


def _books(sessions, table_id, account_id):
    """The player's wallet, their bets on the open round, and the ledger's drift (all zero when right)."""
    with sessions() as s:
        round_id = tables.open_round(s, table_id).id
        bets = dict(s.execute(select(Bet.wager, Bet.amount).where(Bet.round_id == round_id,
                                                                  Bet.account_id == account_id)).all())
        return wallet.balance(s, account_id), bets, wallet.check_ledger(s)


@ON_BOTH
def test_chips_taken_back_return_to_the_wallet_and_what_stays_must_stand_on_its_own(sessions):
    """Chips come off a spot and back to the wallet in one balanced movement; a spot taken back whole has no bet
    left; more than is on a spot, a side wager left without its base, and a take-back after the close are refused
    and change nothing; the stakes the player's own limits count are the stakes left on the layout."""
    table_id, (ann,) = _table(sessions, "mini", "take-back", ("ann",))
    closes = _closes_at(sessions, table_id)
    at = closes - timedelta(seconds=5)
    _bet(sessions, table_id, ann, {"banker": 500, "dragon_bonus_banker": 100}, at)
    answer = _back(sessions, table_id, ann, {"banker": 200}, at, round_number=1)
    assert answer == {"table": table_id, "round": 1, "seat": 1, "bets": {"banker": 300, "dragon_bonus_banker": 100},
                      "taken": {"banker": 200}, "refunded": 200, "balance": 99_600}
    assert _books(sessions, table_id, ann) == (99_600, {"banker": 300, "dragon_bonus_banker": 100},
                                               {"total": 0, "unbalanced": 0, "wallets": 0})
    assert _back(sessions, table_id, ann, {"dragon_bonus_banker": 100}, at)["bets"] == {"banker": 300}
    assert _books(sessions, table_id, ann)[:2] == (99_700, {"banker": 300})  # the spot taken back whole
    _bet(sessions, table_id, ann, {"dragon_bonus_banker": 100}, at)
    before = _books(sessions, table_id, ann)
    assert _code(lambda: _back(sessions, table_id, ann, {"banker": 400}, at)) == "bet.take_back_more"
    assert _code(lambda: _back(sessions, table_id, ann, {"banker": 300}, at)) == "bet.needs_base"  # its bonus stays
    assert _code(lambda: _back(sessions, table_id, ann, {"player": 100}, at)) == "bet.take_back_more"  # nothing on it
    assert _code(lambda: _back(sessions, table_id, ann, {"banker": 0}, at)) == "amount.not_positive"
    assert _code(lambda: _back(sessions, table_id, ann, {}, at)) == "bet.malformed"
    assert _code(lambda: _back(sessions, table_id, ann, {"banker": 100}, closes + betting.ON_THE_WAY)) == "bet.closed"
    assert _code(lambda: _back(sessions, table_id, ann, {"banker": 100}, at, round_number=2)
                 ) == "bet.round_not_open_other"
    assert _books(sessions, table_id, ann) == before
    with sessions() as s:
        assert protection._sums(s, ann, at - timedelta(hours=1))[0] == 400  # stakes on the layout, not placed
    # the round is dealt with what stayed on the layout, and settles it
    deal_due(sessions, now=closes + timedelta(seconds=10))
    with sessions() as s:
        settled = dict(s.execute(select(Bet.wager, Bet.amount).where(Bet.account_id == ann)).all())
        assert settled == {"banker": 300, "dragon_bonus_banker": 100}
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


@pytest.fixture
def client(tmp_path, database_url: str):
    from baccarat.server.storage.settings import Settings

    yield from api_client(Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600))


def test_a_take_back_over_the_socket_answers_with_the_layout_and_a_retry_gets_the_same_answer(client):
    """The socket's take_back command, keyed like a bet: a retry with the same key is answered from the stored
    result (nothing taken twice), and the player's state follows with the balance."""
    headers = signed_in(client, "backer")
    token = headers["Authorization"].removeprefix("Bearer ")
    table = client.get("/api/tables").json()[1]["id"]  # ez-1
    client.post(f"/api/tables/{table}/seats", json={}, headers=headers)
    placed = client.post(f"/api/tables/{table}/bets", json={"bets": {"banker": 500}},
                         headers={**headers, "Idempotency-Key": "backer-bet-01"})
    assert placed.status_code == 201, placed.text
    with client.websocket_connect(f"/ws/tables/{table}") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"
        answers = []
        for _ in range(2):
            socket.send_json({"type": "take_back", "key": "backer-back-01", "bets": {"banker": 200}})
            frame = socket.receive_json()
            while frame["type"] != "ok":
                assert frame["type"] != "error", frame
                frame = socket.receive_json()
            answers.append(frame["result"])
        assert answers[0] == answers[1] and answers[0]["bets"] == {"banker": 300} and answers[0]["refunded"] == 200
    rest = client.post(f"/api/tables/{table}/take-back", json={"bets": {"banker": 100}},
                       headers={**headers, "Idempotency-Key": "backer-back-02"})
    assert rest.status_code == 200 and rest.json()["bets"] == {"banker": 200}, rest.text
    keyless = client.post(f"/api/tables/{table}/take-back", json={"bets": {"banker": 100}}, headers=headers)
    assert keyless.json()["code"] == "request.idempotency_key_missing", keyless.text
    assert client.get("/api/me", headers=headers).json()["balance"] == placed.json()["balance"] + 300


def test_chips_taken_back_return_with_their_fee(sessions):
    """At a game with a fee on a wager (20 % of the spot's total, rounded up), chips taken back return their stake
    and the fee the spot no longer owes: what the wallet holds is what it would be had only the rest been bet."""
    from baccarat.core.registry import unregister
    from baccarat.server.playing import definitions

    from .test_dealing import STRUCK

    def setup(s):
        definitions.store(s, STRUCK, origin="struck.toml")
        table = tables.create_table(s, "struck-back", "struck", betting_seconds=10, pace=Pace(0, 0, 0), now=T0)
        ann = accounts.register(s, "ann", "correct horse", grant=100_000).id
        seating.sit(s, table.id, ann)
        return table.id, ann

    try:
        table_id, ann = transaction(sessions, setup)
        at = _closes_at(sessions, table_id) - timedelta(seconds=1)
        _bet(sessions, table_id, ann, {"player": 2_002}, at)
        assert _books(sessions, table_id, ann)[0] == 100_000 - 2_002 - 401
        answer = _back(sessions, table_id, ann, {"player": 1_001}, at)
        assert answer["refunded"] == 1_001 + 200 and answer["bets"] == {"player": 1_001}
        assert _books(sessions, table_id, ann) == (100_000 - 1_001 - 201, {"player": 1_001},
                                                   {"total": 0, "unbalanced": 0, "wallets": 0})
    finally:
        unregister("struck")
