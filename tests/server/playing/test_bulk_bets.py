"""Bulk bets (:mod:`baccarat.server.playing.bulk_bets`): the same random batches of socket bets run through the
bulk path and through each bet alone (its own savepoint, as before) on two fresh databases give the
same answers and refusals, wallets, bets, ledger, stored answers and client seeds."""

from __future__ import annotations

import json
import logging
import os
import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import create_engine, select

from baccarat.server.house import accounts, protection, wallet
from baccarat.server.live.sockets import SocketCommand, bets_together
from baccarat.server.playing import betting, fairness, seating, tables
from baccarat.server.playing import bulk_bets as bulkbets
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import make_engine, session_factory, sqlite_url, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.models import Bet, IdempotentRequest, LedgerTransaction, Posting, ShoeSeed, Wallet

from ...conftest import ON_BOTH

NOW = datetime.now(UTC)


@pytest.fixture(autouse=True)
def _now() -> None:
    """Each test's moment, taken when it starts (at import it could be more than the 600 s window ago)."""
    global NOW
    NOW = datetime.now(UTC)
PLAYERS = 24
SEED = 20261123


@pytest.fixture
def two_databases(database_url: str, tmp_path):
    """Two fresh, empty databases of the same kind."""
    if database_url.startswith("sqlite"):
        (tmp_path / "second").mkdir()
        yield database_url, sqlite_url(tmp_path / "second")
        return
    server = os.environ["BACCARAT_TEST_POSTGRES_URL"]
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield database_url, server.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def _setting_up(s) -> dict[str, Any]:
    """One EZ table; players with small and large wallets, client seeds, bets already on the layout, one on
    a time-out, one with a loss limit, one with a stake limit, one logged out."""
    table = tables.create_table(s, "burst", "ez", betting_seconds=600, now=NOW - timedelta(seconds=1))
    players, digests = [], {}
    for i in range(PLAYERS):
        account = accounts.register(s, f"bettor{i}", "correct horse", grant=600 if i % 3 == 0 else 20_000).id
        players.append(account)
        digests[account] = accounts._digest(accounts.log_in(s, f"bettor{i}", "correct horse"))
        if i % 4 == 1:
            fairness.set_client_seed(s, account, f"seed-of-player-{i}")
    s.flush()
    seating.take_break(s, players[2], hours=24, now=NOW)
    protection.set_limit(s, players[5], "loss", "day", 400, NOW)
    protection.set_limit(s, players[7], "stake", "day", 1_000, NOW)
    accounts.log_out(s, accounts.log_in(s, "bettor8", "correct horse"))  # a second token, logged out
    for account in (players[10], players[11], players[13]):  # chips already on the layout: new ones add up to them
        betting.place_bets(s, table.id, account, {"banker": 1_500}, NOW)
    seating.sit(s, table.id, players[14], 3)
    return {"table": table.id, "players": players, "digests": digests}


def _frames(rng: random.Random, players: list[int]) -> list[tuple[int, dict[str, Any], timedelta]]:
    """(account, frame, arrival after NOW) of a random batch: a mix of good and bad bets of every kind."""
    made: list[tuple[int, dict[str, Any], timedelta]] = []
    keys: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for n in range(160):
        account = rng.choice(players)
        kind = rng.random()
        key = f"key-{account}-{n:05d}"
        frame: dict[str, Any] = {"type": "bet", "key": key}
        if kind < 0.35:
            frame["bets"] = {rng.choice(["player", "banker", "tie"]): rng.choice([100, 250, 400, 1_000])}
        elif kind < 0.45:
            frame["bets"] = {"player": 300, "dragon_7": 100, "panda_8": rng.choice([100, 3_000])}
        elif kind < 0.5:
            frame["bets"] = {"banker": 1_200}  # twice on one spot passes the 2,500 maximum
        elif kind < 0.55:
            frame["bets"] = {"bunker": 100}
        elif kind < 0.6:
            frame["bets"] = {"tie": rng.choice([50, 9_000, 0, -100])}
        elif kind < 0.63:
            frame["bets"] = rng.choice([{}, {"player": "100"}, [1, 2], {"player": 1.5}])
        elif kind < 0.67:
            frame["bets"], frame["round"] = {"player": 100}, rng.choice([1, 2, 0, "1", None, 10**12])
        elif kind < 0.7:
            frame["key"] = rng.choice(["short", 7, None, "x" * 200])
            frame["bets"] = {"player": 100}
        elif kind < 0.72:
            frame["type"] = rng.choice(["decision", "fold", None])
            frame["bets"], frame["action"] = {"player": 100}, "draw"
        elif kind < 0.85 and keys.get(account):  # a key again: the same bet (its stored answer) or another
            key, body = rng.choice(keys[account])
            frame = {**body} if rng.random() < 0.6 else {**body, "bets": {"player": 200}}
        else:
            frame["bets"] = {"player": 2_000, "banker": 2_000}
        if isinstance(frame.get("key"), str):
            keys.setdefault(account, []).append((frame["key"], frame))
        late = timedelta(seconds=700) if rng.random() < 0.03 else timedelta(milliseconds=rng.randint(0, 900))
        made.append((account, frame, late))
    return made


def _run(url: str, *, bulk: bool, counted: list[int], monkeypatch) -> dict[str, Any]:
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    try:
        setup = transaction(sessions, _setting_up)
        players, digests, table_id = setup["players"], setup["digests"], setup["table"]
        commands = []
        for account, frame, late in _frames(random.Random(SEED), players):
            digest = digests[account] if account != players[8] else "0" * 64  # the logged-out socket
            commands.append(SocketCommand(table_id, account, digest, frame, NOW + late))
        placed = bulkbets._place

        def counting(s, chosen, signed_out):
            counted.append(len(chosen))
            return placed(s, chosen, signed_out)
        monkeypatch.setattr(bulkbets, "_place", counting)
        batcher = batch.Batcher(sessions, bulk=bets_together if bulk else None)
        outcomes = []
        for start in range(0, len(commands), 40):  # several batches: the later ones find the earlier ones' keys
            outcomes += batcher._commit(commands[start:start + 40])
        monkeypatch.undo()
        with sessions() as s:
            assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
            return {"outcomes": [answer if ok else (type(answer).__name__, str(answer)) for ok, answer in outcomes],
                    "state": _state(s)}
    finally:
        engine.dispose()


def _state(s) -> dict[str, Any]:
    """Everything a bet writes, without ids and times (the two paths write the rows in other orders)."""
    movements: dict[int, list[tuple[str, int]]] = {}
    for entry, account, amount in s.execute(select(Posting.transaction_id, Posting.account, Posting.amount)):
        movements.setdefault(entry, []).append((account, amount))
    return {
        "wallets": sorted(s.execute(select(Wallet.account_id, Wallet.balance)).all()),
        "bets": sorted(s.execute(select(Bet.round_id, Bet.account_id, Bet.seat, Bet.wager, Bet.amount,
                                        Bet.balance_before)).all()),
        "ledger": sorted((kind, memo, sorted(movements[entry]))
                         for entry, kind, memo in s.execute(select(LedgerTransaction.id, LedgerTransaction.kind,
                                                                   LedgerTransaction.memo))),
        "answers": sorted((account, key, digest, json.loads(response)) for account, key, digest, response in
                          s.execute(select(IdempotentRequest.account_id, IdempotentRequest.key,
                                           IdempotentRequest.request_hash, IdempotentRequest.response))),
        "seeds": sorted(s.execute(select(ShoeSeed.shoe_id, ShoeSeed.account_id, ShoeSeed.seed)).all()),
    }


@pytest.mark.slow
@ON_BOTH
def test_bulk_bets_give_the_same_answers_and_books_as_each_bet_alone(two_databases, monkeypatch, caplog):
    first, second = two_databases
    bulk_count: list[int] = []
    alone_count: list[int] = []
    with caplog.at_level(logging.ERROR, logger=bulkbets.log.name):
        together = _run(first, bulk=True, counted=bulk_count, monkeypatch=monkeypatch)
    # the bulk path placed them: it did not fail over to placing each bet alone (which gives the same books)
    assert not [record for record in caplog.records if "bulk bets failed" in record.getMessage()]
    alone = _run(second, bulk=False, counted=alone_count, monkeypatch=monkeypatch)
    assert sum(bulk_count) > 60 and alone_count == []  # most bets took the bulk path, none the other way
    refusals = {outcome[1].split(":")[0][:40] for outcome in alone["outcomes"] if isinstance(outcome, tuple)}
    accepted = [outcome for outcome in alone["outcomes"] if isinstance(outcome, dict)]
    assert len(accepted) > 30 and len(refusals) > 8  # the batch has good bets and bad ones of many kinds
    assert together["outcomes"] == alone["outcomes"]
    assert together["state"] == alone["state"]


@pytest.mark.slow
@ON_BOTH
def test_a_failing_bulk_write_is_rolled_back_and_each_bet_runs_alone(two_databases, monkeypatch):
    """A bulk write that fails (not a lost race) is rolled back to its savepoint, and the bets run alone:
    the same answers and books as without the bulk path."""
    first, second = two_databases
    counted: list[int] = []

    class Broken(bulkbets._Writes):
        def run(self, s):
            super().run(s)
            raise RuntimeError("disk trouble")
    monkeypatch.setattr(bulkbets, "_Writes", Broken)
    broken = _run(first, bulk=True, counted=counted, monkeypatch=monkeypatch)
    alone = _run(second, bulk=False, counted=[], monkeypatch=monkeypatch)
    assert sum(counted) > 60  # the bulk path ran, and failed
    assert broken == alone


@pytest.mark.slow
@ON_BOTH
def test_a_socket_bet_on_its_way_at_the_close_is_taken_until_the_allowance_ends(sessions, monkeypatch):
    """The bulk path judges a bet by its arrival as a bet alone does: one that arrived just inside the
    allowance after the close (:data:`betting.ON_THE_WAY`) is taken, one at its end is refused."""
    setup = transaction(sessions, _setting_up)
    players, digests, table_id = setup["players"], setup["digests"], setup["table"]
    with sessions() as s:
        closes, round_id = tables.open_round(s, table_id).closes_at, tables.open_round(s, table_id).id
    end = (closes if closes.tzinfo else closes.replace(tzinfo=UTC)) + betting.ON_THE_WAY
    commands = [SocketCommand(table_id, account, digests[account],
                              {"type": "bet", "key": f"on-its-way-{account:06d}", "bets": {"player": 100}}, at)
                for account, at in ((players[1], end - timedelta(milliseconds=1)), (players[4], end))]
    counted: list[int] = []
    placed = bulkbets._place

    def counting(s, chosen, signed_out):
        counted.append(len(chosen))
        return placed(s, chosen, signed_out)
    monkeypatch.setattr(bulkbets, "_place", counting)
    (taken, answer), (refused, refusal) = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    assert counted == [2]  # both went the bulk way
    assert taken and answer["round"] == 1 and answer["bets"] == {"player": 100}
    assert not refused and "betting closed for round 1" in str(refusal)
    with sessions() as s:
        assert s.scalars(select(Bet.account_id).where(Bet.round_id == round_id, Bet.account_id.in_(
            [players[1], players[4]]))).all() == [players[1]]
