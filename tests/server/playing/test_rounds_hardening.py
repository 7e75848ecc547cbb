"""Rounds that must never stop a table: the seat race, a round that cannot be dealt (retried with
backoff, reported, voided with every stake refunded), an operator's void, bets that name their
round, and deadlines that survive a wall-clock step."""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, select

from baccarat.core.errors import BaccaratError, IllegalActionError
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, scoreboards, seating, tables
from baccarat.server.playing.dealer import Dealer, deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.clock import SteadyClock
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, Round, Seat, Settlement

from ...conftest import ON_BOTH

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


# --- 1. the seat race -------------------------------------------------------------------------


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


def test_bets_belong_to_accounts_even_when_two_share_a_seat_number(sessions):
    """Bets stored with the same seat number by two accounts (as the race once left them) are dealt
    as two players: each is settled against its own account, and Lucky Draw's decisions too."""
    table_id, (ann, ben) = _table(sessions, "lucky-draw", "shared", ("ann", "ben"), paytable=1)
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"enter": 1_000}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    with sessions.begin() as s:  # ben's bet now says seat 1, as ann's does
        s.query(Bet).filter(Bet.account_id == ben).update({Bet.seat: 1})
    assert deal_due(sessions, now=closes) == 1
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=closes))
    transaction(sessions, lambda s: dealing.decide(s, table_id, ben, "stand", now=closes))
    assert deal_due(sessions, now=closes + timedelta(seconds=1)) == 1
    with sessions() as s:
        rows = s.execute(select(Bet.account_id, Bet.wager, Bet.amount, Settlement.net)
                         .join(Settlement, Settlement.bet_id == Bet.id)).all()
        assert sorted((a, w, amount) for a, w, amount, _ in rows) == [
            (ann, "draw", 1_000), (ann, "enter", 1_000), (ben, "enter", 2_000)]
        for account_id in (ann, ben):
            net = sum(n for a, _, _, n in rows if a == account_id)
            assert wallet.balance(s, account_id) == 100_000 + net


# --- a round that cannot be dealt ---------------------------------------------------------------


def _poison(sessions, table_id: int, account_id: int) -> int:
    """Put a bet the core refuses (an unknown wager, as corrupt data would be) on the open round."""
    def work(s):
        current = tables.open_round(s, table_id)
        wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -700,
                                     wallet.escrow_account(current.id): 700})
        s.execute(insert(Bet).values(round_id=current.id, account_id=account_id, seat=1, wager="no_such_wager",
                                     amount=700, balance_before=wallet.balance(s, account_id) + 700))
        return current.id
    return transaction(sessions, work)


def test_a_round_that_cannot_be_dealt_never_stops_the_other_tables_and_is_voided(sessions, caplog, ticks):
    poisoned, (ann,) = _table(sessions, "ez", "poisoned", ("ann",))
    healthy, (ben,) = _table(sessions, "mini", "healthy", ("ben",))
    closes = _closes_at(sessions, poisoned)
    _bet(sessions, poisoned, ann, {"banker": 1_000}, closes - timedelta(seconds=1))
    bad_round = _poison(sessions, poisoned, ann)  # the poisoned round comes first in the dealer's list
    dealer = Dealer(sessions, max_attempts=3, first_pause=1.0, monotonic=ticks)
    moment = closes
    dealt_elsewhere = 0
    with caplog.at_level(logging.ERROR, logger="baccarat.dealer"):
        for _ in range(6):  # six passes of the dealer, 1.5 s apart
            healthy_closes = _closes_at(sessions, healthy)
            _bet(sessions, healthy, ben, {"player": 100}, healthy_closes - timedelta(seconds=1))
            moment = max(moment, healthy_closes)
            dealt_elsewhere += dealer.deal_due(now=moment)
            ticks.advance(1.5)
    assert dealt_elsewhere >= 6  # every healthy round was dealt on its pass
    with sessions() as s:
        current = s.get(Round, bad_round)
        assert current.status == "void"
        assert "could not be dealt" in json.loads(current.result)["void"]
        assert wallet.balance(s, ann) == 100_000  # both stakes, the good and the bad, came back
        assert tables.open_round(s, poisoned).number > current.number  # the table goes on
        history = scoreboards.recall(s, ann)
        assert history[0]["status"] == "void" and {b["event"] for b in history[0]["bets"].values()} == {"Void"}
    failures = [r for r in caplog.records if r.name == "baccarat.dealer" and r.levelno >= logging.ERROR]
    assert failures[0].exc_info is not None  # the first failure is logged with its traceback
    assert any("VOIDED" in r.getMessage() and r.levelno == logging.CRITICAL for r in failures)
    assert dealer.troubles == {}


def test_a_failing_round_waits_longer_after_each_failure(sessions, ticks):
    table_id, (ann,) = _table(sessions, "ez", "slow", ("ann",))
    closes = _closes_at(sessions, table_id)
    _poison(sessions, table_id, ann)
    dealer = Dealer(sessions, max_attempts=10, first_pause=0.5, longest_pause=4.0, monotonic=ticks)
    attempts = []
    for step in range(200):  # 20 s in steps of 0.1 s
        ticks.value = step / 10
        dealer.deal_due(now=closes)
        trouble = next(iter(dealer.troubles.values()))
        if not attempts or trouble.attempts != attempts[-1][1]:
            attempts.append((ticks(), trouble.attempts))
    pauses = [round(b[0] - a[0], 1) for a, b in itertools.pairwise(attempts)]
    assert pauses[:5] == [0.5, 1.0, 2.0, 4.0, 4.0]
    transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="test over", now=closes))


def test_voiding_a_lucky_draw_round_after_its_first_deal_refunds_and_skips_the_shown_cards(sessions):
    table_id, (ann, ben) = _table(sessions, "lucky-draw", "ld-void", ("ann", "ben"), paytable=2)
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"enter": 1_000, "block_bonus": 500}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    deal_due(sessions, now=closes)
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=closes))
    with sessions() as s:
        current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        shown = json.loads(current.result)["cards"]
        position = dealing.round_shoe(s, current).position
        block = s.scalar(select(Settlement.net).join(Bet, Bet.id == Settlement.bet_id)
                         .where(Bet.wager == "block_bonus"))
    answer = transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="dealer's error", now=closes))
    assert answer["refunded"] == 1_000 + 1_000 + 2_000 and answer["bets_refunded"] == 3
    with sessions() as s:
        assert wallet.balance(s, ann) == 100_000 + block  # the Block Bonus was settled before the void
        assert wallet.balance(s, ben) == 100_000
        assert dealing.round_shoe(s, current).position == position + len(shown)
        nxt = tables.open_round(s, table_id)
        assert nxt.number == 2
    with pytest.raises(IllegalActionError, match="already void"):
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="again", now=closes))


# --- bets name their round ---------------------------------------------------------------------


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


# --- the clock ---------------------------------------------------------------------------------


def test_the_steady_clock_ignores_wall_clock_steps(ticks):
    wall = [T0]
    ticks.value = 100.0
    clock = SteadyClock(wall=lambda: wall[0], monotonic=ticks)
    wall[0] = T0 + timedelta(hours=13)  # the wall clock jumps forward...
    ticks.advance(2)
    assert clock.now() == T0 + timedelta(seconds=2)
    wall[0] = T0 - timedelta(hours=13)  # ...and back
    ticks.advance(3)
    assert clock.now() == T0 + timedelta(seconds=5)


def test_deadlines_written_under_a_clock_ahead_are_pulled_in_at_start(sessions):
    table_id, (_ann,) = _table(sessions, "ez", "ahead", ("ann",))
    ahead = T0 + timedelta(hours=13)
    with sessions.begin() as s:  # the round was opened while the wall clock was 13 h ahead
        s.query(Round).filter(Round.table_id == table_id).update({Round.closes_at: ahead})
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, T0)) == 1
    assert _closes_at(sessions, table_id) == T0 + timedelta(seconds=10)
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, T0)) == 0  # within one window: untouched


@pytest.mark.slow
def test_a_wall_clock_step_does_not_stop_a_live_table(tmp_path):
    """The whole server with the process's wall clock moved 13 hours forward and then back: rounds
    still close on time and tokens stay valid (old servers kept rounds closing 13 h ahead)."""
    import time

    import time_machine
    from fastapi.testclient import TestClient

    from baccarat.server.api.app import create_app
    from baccarat.server.storage.settings import Settings

    settings = Settings(data_dir=tmp_path, betting_seconds=0.5)
    with TestClient(create_app(settings)) as client:
        client.post("/api/accounts", json={"username": "walt", "password": "correct horse"})
        token = client.post("/api/sessions", json={"username": "walt", "password": "correct horse"}).json()["token"]
        me = {"Authorization": f"Bearer {token}"}
        table = client.get("/api/tables").json()[1]  # EZ
        assert client.post(f"/api/tables/{table['id']}/seats", json={}, headers=me).status_code == 201
        with time_machine.travel(datetime.now(UTC) + timedelta(hours=13), tick=True):
            time.sleep(1.2)
        with time_machine.travel(datetime.now(UTC) - timedelta(hours=13), tick=True):
            time.sleep(1.2)
            assert client.get("/api/me", headers=me).status_code == 200  # still logged in
            # a table nobody watches and nobody bets at waits: walt bets (1.00, whenever betting is open)
            def number() -> int | None:  # the round on show (none between a result and the next window)
                return (client.get(f"/api/tables/{table['id']}").json()["round"] or {}).get("number")

            before = number()
            deadline = time.monotonic() + 20  # a window, then the paced deal and the result
            for attempt in itertools.count():
                if number() not in (before, None):
                    break
                assert time.monotonic() < deadline, "the table stopped dealing after the clock step"
                client.post(f"/api/tables/{table['id']}/bets", json={"bets": {"banker": 100}},
                            headers={**me, "Idempotency-Key": f"clock-step-{attempt:04d}"})
                time.sleep(0.1)


# --- operators void rounds --------------------------------------------------------------------


def test_an_operator_voids_a_round_over_rest_and_from_the_command_line(tmp_path):
    from fastapi.testclient import TestClient

    from baccarat.cli.app import main
    from baccarat.server.api.app import create_app
    from baccarat.server.storage.db import connect
    from baccarat.server.storage.settings import Settings

    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    with TestClient(create_app(settings)) as client:
        with connect(settings.url) as s:
            transaction(s, lambda x: accounts.register(x, "pit_boss", "correct horse", grant=0, role="operator"))
        boss = {"Authorization": "Bearer " + client.post(
            "/api/sessions", json={"username": "pit_boss", "password": "correct horse"}).json()["token"]}
        client.post("/api/accounts", json={"username": "vera", "password": "correct horse"})
        vera = {"Authorization": "Bearer " + client.post(
            "/api/sessions", json={"username": "vera", "password": "correct horse"}).json()["token"]}
        table = client.get("/api/tables").json()[0]
        client.post(f"/api/tables/{table['id']}/seats", json={}, headers=vera)
        placed = client.post(f"/api/tables/{table['id']}/bets", json={"bets": {"banker": 1_000}, "round": 1},
                             headers={**vera, "Idempotency-Key": "void-test-1"})
        assert placed.status_code == 201, placed.text
        url = f"/api/operator/tables/{table['id']}/rounds/1/void"
        assert client.post(url, json={"reason": "x"}, headers=vera).status_code == 403
        voided = client.post(url, json={"reason": "card misdealt on the felt"}, headers=boss)
        assert voided.status_code == 200, voided.text
        assert voided.json()["refunded"] == 1_000
        assert client.get("/api/me", headers=vera).json()["balance"] == settings.grant
        again = client.post(url, json={"reason": "again"}, headers=boss)
        assert again.status_code == 409 and "already void" in again.json()["detail"]
        history = client.get("/api/history", headers=vera).json()
        assert history[0]["status"] == "void" and history[0]["detail"]["void"] == "card misdealt on the felt"
        # round 2 is open with nothing on it; the command line voids it
        code = main(["void-round", str(table["id"]), "2", "--reason", "testing the command",
                     "--data-dir", str(tmp_path)])
        assert code == 0
        assert client.get(f"/api/tables/{table['id']}").json()["round"]["number"] == 3
        assert main(["void-round", str(table["id"]), "2", "--reason", "again", "--data-dir", str(tmp_path)]) == 1


def test_refusals_change_nothing(sessions):
    table_id, (_ann,) = _table(sessions, "ez", "refusals", ("ann",))
    for bad in ({"reason": ""}, {"reason": "   "}):
        with pytest.raises(BaccaratError):
            transaction(sessions, lambda s, b=bad: dealing.void_round(s, table_id, 1, now=T0, **b))
    with pytest.raises(BaccaratError, match="no round 9"):
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 9, reason="nope", now=T0))
    with sessions() as s:
        assert tables.open_round(s, table_id).number == 1


def test_tokens_issued_under_a_clock_ahead_are_cut_to_one_lifetime(sessions):
    from baccarat.server.storage.models import Token, now

    token = transaction(sessions, lambda s: (accounts.register(s, "tess", "correct horse", grant=0),
                                             accounts.log_in(s, "tess", "correct horse"))[1])
    with sessions.begin() as s:
        s.query(Token).update({Token.expires_at: now() + timedelta(hours=13) + accounts.TOKEN_LIFETIME})
    assert transaction(sessions, accounts.repair_token_lifetimes) == 1
    with sessions() as s:
        expires = s.scalar(select(Token.expires_at))
        expires = expires if expires.tzinfo else expires.replace(tzinfo=UTC)
        assert expires <= now() + accounts.TOKEN_LIFETIME
        assert accounts.authenticate(s, token).username == "tess"


def test_a_full_disk_makes_rounds_wait_but_never_voids_them(sessions, monkeypatch, caplog, ticks):
    import sqlite3

    from sqlalchemy.exc import OperationalError

    table_id, (ann,) = _table(sessions, "ez", "full-disk", ("ann",))
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"banker": 1_000}, closes - timedelta(seconds=1))
    real = dealing.deal_round

    def full(s, round_id, now, **options):
        raise OperationalError("INSERT ...", {}, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(dealing, "deal_round", full)
    dealer = Dealer(sessions, max_attempts=2, first_pause=0.5, monotonic=ticks)
    with caplog.at_level(logging.ERROR, logger="baccarat.dealer"):
        for _ in range(20):
            dealer.deal_due(now=closes)
            ticks.advance(1.0)
    with sessions() as s:
        assert tables.open_round(s, table_id).number == 1  # still waiting, its bet in escrow
    lines = [r for r in caplog.records if r.name == "baccarat.dealer"]
    assert len(lines) == 1 and "disk full" in lines[0].getMessage() and lines[0].exc_info is None
    monkeypatch.setattr(dealing, "deal_round", real)  # the disk has room again: the round is dealt
    assert dealer.deal_due(now=closes) == 1 and dealer.troubles == {}
