"""The dealer (:mod:`baccarat.server.playing.dealer`): a round that cannot be dealt never stops the other
tables (retried with a longer pause after each failure, reported, then voided with every stake refunded),
and a full disk makes rounds wait but never voids them."""

from __future__ import annotations

import itertools
import json
import logging
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, scoreboards, seating, tables
from baccarat.server.playing.dealer import Dealer
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, Round

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


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


# --- rounds that must never stop a table: a round that cannot be dealt --------------------------------------


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
