"""Tables and rounds in the database: seats, bets through escrow, dealing from the committed shoe,
settlement once, recall, revealed shoes that verify, and a crash between bet and deal."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from baccarat import verify as verifier
from baccarat.core.errors import (
    BetLimitError,
    ConflictError,
    IllegalActionError,
    InsufficientFundsError,
    UnknownWagerError,
)
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, records, scoreboards, seating, tables, views
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, Round, Settlement

from ...conftest import ON_BOTH, ON_POSTGRESQL

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _setup(sessions, game="ez", players=("ann", "ben")):
    def work(s):
        table = tables.create_table(s, f"{game}-t", game, betting_seconds=10, now=T0)
        ids = [accounts.register(s, name, "correct horse", grant=100_000).id for name in players]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    return transaction(sessions, work)


def _bet(sessions, table_id, account_id, bets, at=T0):
    return transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets, now=at))


@ON_BOTH
def test_a_round_is_dealt_and_settled_once_through_the_ledger(sessions):
    table_id, (ann, ben) = _setup(sessions)
    assert _bet(sessions, table_id, ann, {"banker": 1_000, "dragon_7": 500})["balance"] == 98_500
    _bet(sessions, table_id, ben, {"player": 2_000})
    assert deal_due(sessions, now=T0 + timedelta(seconds=5)) == 0  # the window is still open
    assert deal_due(sessions, now=T0 + timedelta(seconds=11)) == 1
    assert deal_due(sessions, now=T0 + timedelta(seconds=11)) == 0  # the next round has no bets yet
    with sessions() as s:
        settled = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        assert settled.status == "settled"
        assert len(s.scalars(select(Settlement)).all()) == 3
        history = scoreboards.recall(s, ann)
        assert history[0]["round"] == 1 and set(history[0]["bets"]) == {"banker", "dragon_7"}
        assert history[0]["balance_before"] == 100_000
        net = sum(b["net"] for b in history[0]["bets"].values())
        assert history[0]["balance_after"] == 100_000 + net == wallet.balance(s, ann)
        assert 4 <= len(history[0]["cards"]) <= 6
        view = views.table_view(s, table_id)
        assert view["round"]["number"] == 2 and view["last_result"]["round"] == 1
        assert "server_seed" not in str(view)
    # dealing the same round again does nothing
    transaction(sessions, lambda s: dealing.deal_round(s, settled.id, T0 + timedelta(seconds=20)))
    with sessions() as s:
        assert len(s.scalars(select(Settlement)).all()) == 3


def test_bets_are_checked_by_the_core_and_the_wallet(sessions):
    table_id, (ann, _) = _setup(sessions)
    with pytest.raises(UnknownWagerError):
        _bet(sessions, table_id, ann, {"dragon_bonus_player": 100})
    with pytest.raises(BetLimitError):
        _bet(sessions, table_id, ann, {"banker": 10**6})  # EZ maximum 25.00
    with pytest.raises(InsufficientFundsError):
        transaction(sessions, lambda s: wallet.transfer(s, "debit", {wallet.wallet_account(ann): -99_000,
                                                                     wallet.CASHIER: 99_000}))
        _bet(sessions, table_id, ann, {"banker": 2_000})
    _bet(sessions, table_id, ann, {"banker": 1_000})
    with pytest.raises(InsufficientFundsError):  # chips add up to the bet on the spot: the wallet must hold them
        _bet(sessions, table_id, ann, {"banker": 100})
    transaction(sessions, lambda s: wallet.transfer(s, "credit", {wallet.CASHIER: -5_000,
                                                                  wallet.wallet_account(ann): 5_000}))
    assert _bet(sessions, table_id, ann, {"banker": 500})["bets"] == {"banker": 1_500}
    with pytest.raises(BetLimitError, match=r"The most you can add on Banker is 10\.00"):
        _bet(sessions, table_id, ann, {"banker": 1_100})  # EZ maximum 25.00
    with pytest.raises(IllegalActionError, match="No more bets"):
        _bet(sessions, table_id, ann, {"tie": 100}, at=T0 + timedelta(seconds=10) + betting.ON_THE_WAY)
    with pytest.raises(IllegalActionError, match="bets are on the layout"):
        transaction(sessions, lambda s: seating.leave(s, table_id, ann))
    deal_due(sessions, now=T0 + timedelta(seconds=10))


def test_lucky_draw_needs_a_seat_and_seats_are_unique(sessions):
    table_id, _ = _setup(sessions, game="lucky-draw", players=())
    carl = transaction(sessions, lambda s: accounts.register(s, "carl", "correct horse", grant=1_000).id)
    with pytest.raises(IllegalActionError, match="Take a seat"):
        _bet(sessions, table_id, carl, {"enter": 100})
    assert transaction(sessions, lambda s: seating.sit(s, table_id, carl, 3)) == 3
    assert transaction(sessions, lambda s: seating.sit(s, table_id, carl, 5)) == 3  # already seated
    dora = transaction(sessions, lambda s: accounts.register(s, "dora", "correct horse", grant=1_000).id)
    with pytest.raises(ConflictError, match="Seat 3 is taken"):
        transaction(sessions, lambda s: seating.sit(s, table_id, dora, 3))


@pytest.mark.slow
def test_a_whole_shoe_verifies_once_revealed(sessions):
    table_id, (ann, _) = _setup(sessions, game="mini")
    moment = T0
    for _ in range(120):  # more than a shoe's worth of rounds
        with sessions() as s:
            current = tables.open_round(s, table_id)
            closes = current.closes_at.replace(tzinfo=UTC) if current.closes_at.tzinfo is None else current.closes_at
        _bet(sessions, table_id, ann, {"banker": 100}, at=closes - timedelta(seconds=1))
        moment = closes
        deal_due(sessions, now=moment)
    with sessions() as s:
        record = records.shoe_record(s, table_id, 1)
        verdict = verifier.verify_shoe(record)
        assert verdict.ok, verdict.problems
        assert verdict.rounds > 50
        with pytest.raises(IllegalActionError, match="still in play"):
            records.shoe_record(s, table_id, 2)


@ON_BOTH
def test_a_crash_before_the_deal_commits_deals_the_same_cards_after_restart(sessions):
    table_id, (ann, _) = _setup(sessions)
    _bet(sessions, table_id, ann, {"banker": 1_000})
    due = T0 + timedelta(seconds=11)

    class Crash(Exception):
        pass

    def crash_after_dealing(s):
        dealing.deal_round(s, round_id, due)
        raise Crash  # the process dies before the commit

    with sessions() as s:
        round_id = tables.open_round(s, table_id).id
    with pytest.raises(Crash):
        transaction(sessions, crash_after_dealing)
    with sessions() as s:
        assert s.get(Round, round_id).status == "betting"  # nothing of the deal was kept
        assert wallet.balance(s, ann) == 99_000  # the stake stays in escrow
    # what the aborted deal would have dealt, computed on a copy that is rolled back
    with sessions() as s:
        dealing.deal_round(s, round_id, due)
        aborted = s.get(Round, round_id).result
        s.rollback()
    deal_due(sessions, now=due)
    with sessions() as s:
        assert s.get(Round, round_id).result == aborted


def test_lucky_draw_round_with_decisions_draw_stand_and_timeout(sessions):
    def work(s):
        table = tables.create_table(s, "ld", "lucky-draw", paytable=1, betting_seconds=10, decision_seconds=5,
                                    now=T0)
        ids = [accounts.register(s, name, "correct horse", grant=100_000).id for name in ("ann", "ben", "cid")]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    table_id, (ann, ben, cid) = transaction(sessions, work)
    _bet(sessions, table_id, ann, {"enter": 1_000, "block_bonus": 500})
    _bet(sessions, table_id, ben, {"enter": 2_000})
    _bet(sessions, table_id, cid, {"enter": 500})
    with pytest.raises(IllegalActionError, match="No decision"):
        transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=T0))
    first = T0 + timedelta(seconds=10)
    assert deal_due(sessions, now=first) == 1
    with sessions() as s:
        current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        assert current.status == "decision"
        shown = json.loads(current.result)["first_deal"]
        assert len(shown["dealer"]) == 1 and all(len(shown[f"seat:{n}"]) == 2 for n in (1, 2, 3))
        block = s.scalar(select(Settlement))  # Block Bonus is paid at the first deal
        assert block is not None
    with pytest.raises(IllegalActionError, match="still being dealt"):  # the first deal is shown card by card
        transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=first))
    # NO MORE BETS 1 s, 7 cards 0.6 s apart, the decisions open one beat after the last
    opened = first + timedelta(seconds=1 + 6 * 0.6 + 0.6)
    assert transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=opened))["balance"] \
        == 100_000 - 1_000 - 500 - 1_000 + (500 + block.net)  # stakes out, the Block Bonus return in
    transaction(sessions, lambda s: dealing.decide(s, table_id, ben, "stand", now=opened))
    with pytest.raises(ConflictError):
        transaction(sessions, lambda s: dealing.decide(s, table_id, ben, "draw", now=opened))
    assert deal_due(sessions, now=opened + timedelta(seconds=1)) == 0  # cid has not decided yet
    assert deal_due(sessions, now=opened + timedelta(seconds=5)) == 1  # cid timed out: stands
    with sessions() as s:
        current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        assert current.status == "settled"
        hands = json.loads(current.result)["hands"]
        assert len(hands["seat:1"]) == 3 and len(hands["seat:2"]) == 2 and len(hands["seat:3"]) == 2
        assert 2 <= len(hands["dealer"]) <= 3
        bets = {(b.account_id, b.wager) for b in s.scalars(select(Bet))}
        assert (ann, "draw") in bets and (ben, "draw") not in bets
        assert len(s.scalars(select(Settlement)).all()) == 5  # block, 3 enter, 1 draw
        history = scoreboards.recall(s, ann)
        assert set(history[0]["bets"]) == {"enter", "block_bonus", "draw"}
        assert history[0]["balance_after"] == wallet.balance(s, ann)


@pytest.mark.slow
@ON_BOTH
def test_bets_racing_the_dealer_land_in_the_round_it_settles_or_are_refused(sessions):
    """Real clocks, real threads: players bet without pause while the dealer deals every round whose
    short window has closed.  No bet may end in a round that was settled without it."""
    import threading
    import time as clock

    from baccarat.core.errors import BaccaratError

    def work(s):
        table = tables.create_table(s, "racing", "ez", betting_seconds=0.2, pace=Pace(0, 0, 0))  # no pauses
        ids = [accounts.register(s, f"racer{n}", "correct horse", grant=10_000_000).id for n in range(4)]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    table_id, ids = transaction(sessions, work)
    stop = clock.monotonic() + 3.0
    outcomes = {"placed": 0, "refused": 0}
    unexpected: list[BaseException] = []

    def bettor(account_id: int) -> None:
        n = 0
        while clock.monotonic() < stop:
            n += 1
            code = ("banker", "player", "tie", "dragon_7", "panda_8")[n % 5]
            try:
                # the bet's clock is read 100 ms before it reaches the database (a slow request), which
                # widens the race with the dealer that the round's row lock must settle
                late = datetime.now(UTC) - timedelta(milliseconds=100)
                transaction(sessions, lambda s, key=f"race-{account_id}-{n:06d}", bets={code: 100}, at=late:
                            wallet.idempotent(s, account_id, key, {"bets": bets},
                                              lambda: betting.place_bets(s, table_id, account_id, bets, now=at)))
                outcomes["placed"] += 1
            except BaccaratError:
                outcomes["refused"] += 1  # the window closed, or this wager is already on the round
            except BaseException as error:  # reported below
                unexpected.append(error)
                return

    def dealer() -> None:
        while clock.monotonic() < stop + 0.5:
            deal_due(sessions)
            clock.sleep(0.01)

    threads = [threading.Thread(target=bettor, args=(a,)) for a in ids] + [threading.Thread(target=dealer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert unexpected == []
    assert outcomes["placed"] > 20
    with sessions() as s:
        rows = s.execute(select(Bet.id, Round.status, Bet.amount).join(Round, Round.id == Bet.round_id)).all()
        settled = set(s.scalars(select(Settlement.bet_id)))
        stranded = [bet for bet, status, _ in rows if status != "betting" and bet not in settled]
        assert stranded == []  # every bet of a dealt round was settled with it
        assert sum(amount for *_, amount in rows) == 100 * outcomes["placed"]  # chips on one spot add up


@ON_POSTGRESQL
def test_processes_starting_together_make_the_default_tables_once_and_number_them_in_order(database_url):
    """``serve --workers``: every process makes the default tables at its start.  Two at once on a fresh database
    both found it fresh, the second's inserts failed on the names after using up ids, and the tables were numbered
    1, 3, 4, 5 (a worker answered "There is no table 2").  The first now holds the tables' lock until it commits."""
    import threading

    from baccarat.server.storage.db import connect
    from baccarat.server.storage.models import GameTable

    together = threading.Barrier(2)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            with connect(database_url) as sessions:
                together.wait()
                transaction(sessions, lambda s: tables.ensure_default_tables(s))
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=start) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    with connect(database_url) as sessions, sessions() as s:
        made = s.execute(select(GameTable.id, GameTable.name).order_by(GameTable.id)).all()
    assert len(made) >= 4 and [row.id for row in made] == list(range(1, len(made) + 1)), made
    assert len({row.name for row in made}) == len(made)
