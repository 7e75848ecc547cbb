"""The socket bet pipeline (:mod:`baccarat.server.playing.bulk_bets`): a group commit's bets placed together
give, bet by bet, the answer or refusal the stake rule (:func:`baccarat.core.stakes.check_stakes`) and the round's
window (:func:`baccarat.server.playing.betting.check_window`) decide, and the books those answers describe.

Each batch below is written with the outcome every command must have (an answer's stakes and shown balance, or a
refusal's code) and the wallets, bets and ledger after it; it runs through the bulk path and, to pin the
path the bulk one falls back to, through each command alone (its own savepoint), on SQLite and on PostgreSQL
(the bulk path's statements are written for each: ``= ANY(array)`` and ``unnest`` there, ``IN`` and
``json_each`` here).  The rule itself is tested case by case in ``tests/core/test_stakes.py``."""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.exc import OperationalError

from baccarat.server.house import accounts, protection, wallet
from baccarat.server.live.sockets import SIGNED_OUT, Close, SocketCommand, bets_together
from baccarat.server.playing import betting, fairness, seating, tables
from baccarat.server.playing import bulk_bets as bulkbets
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, IdempotentRequest, Round, ShoeSeed, Wallet

from ...conftest import ON_BOTH, count_bulk_placements

GRANT, SMALL = 20_000, 600
ON_TIME = timedelta(0)  #: a command that arrives as the batch starts


def _setting_up(s: Any, now: datetime) -> dict[str, Any]:
    """One EZ table (maximum 25.00 a spot) open for ten minutes; ten players, p2 with a small wallet, p6 with a
    stake limit (a protection row: that player's bets go alone), p7 with a Banker bet already on the layout,
    p9 seated with a client seed, p3 logged out."""
    table = tables.create_table(s, "pipeline", "ez", betting_seconds=600, now=now - timedelta(seconds=1))
    players, digests = [], {}
    for i in range(10):
        account = accounts.register(s, f"piper{i}", "correct horse", grant=SMALL if i == 2 else GRANT).id
        players.append(account)
        digests[account] = accounts._digest(accounts.log_in(s, f"piper{i}", "correct horse"))
    s.flush()
    protection.set_limit(s, players[6], "stake", "day", 400, now)
    betting.place_bets(s, table.id, players[7], {"banker": 1_500}, now)
    fairness.set_client_seed(s, players[9], "seed-of-piper9")
    seating.sit(s, table.id, players[9], 3)
    digests[players[3]] = "0" * 64  # that socket's token is gone
    return {"table": table.id, "players": players, "digests": digests}


def _batch(players: list[int]) -> list[tuple[int, dict[str, Any], timedelta, Any]]:
    """(player, frame, arrival after the start, what it must give): an answer's (stakes after it, shown balance)
    or a refusal's code."""
    p = players
    bet = {"type": "bet"}
    return [
        (p[0], {**bet, "key": "key-k0-first", "bets": {"banker": 1_000}}, ON_TIME, ({"banker": 1_000}, 19_000)),
        (p[0], {**bet, "key": "key-k0-second", "bets": {"banker": 1_000}}, ON_TIME, ({"banker": 2_000}, 18_000)),
        (p[0], {**bet, "key": "key-k0-third", "bets": {"banker": 1_000}}, ON_TIME, "bet.room_left"),
        # a key again: the same bet gets its stored answer (nothing staked twice), another bet a refusal
        (p[0], {**bet, "key": "key-k0-first", "bets": {"banker": 1_000}}, ON_TIME, ({"banker": 1_000}, 19_000)),
        (p[0], {**bet, "key": "key-k0-second", "bets": {"player": 200}}, ON_TIME, "request.idempotency_key_reused"),
        (p[0], {**bet, "key": "key-k0-fourth", "bets": {"player": 500, "dragon_7": 100}}, ON_TIME,
         ({"banker": 2_000, "player": 500, "dragon_7": 100}, 17_400)),
        (p[1], {**bet, "key": "key-k1-unknown", "bets": {"bunker": 100}}, ON_TIME, "wager.unknown"),
        (p[1], {**bet, "key": "key-k1-negative", "bets": {"tie": -100}}, ON_TIME, "amount.not_positive"),
        (p[1], {**bet, "key": "key-k1-small", "bets": {"tie": 50}}, ON_TIME, "bet.below_minimum"),
        (p[1], {**bet, "key": "key-k1-empty", "bets": {}}, ON_TIME, "bet.malformed"),
        (p[1], {**bet, "key": "key-k1-text", "bets": {"player": "100"}}, ON_TIME, "command.bets"),
        (p[1], {**bet, "key": "key-k1-next", "bets": {"player": 100}, "round": 2}, ON_TIME,
         "bet.round_not_open_other"),
        (p[1], {**bet, "bets": {"player": 100}}, ON_TIME, "command.key_missing"),
        (p[1], {**bet, "key": "short", "bets": {"player": 100}}, ON_TIME, "request.idempotency_key"),
        # all or nothing: the Player chips stay off the layout when the Tie ones are over its maximum
        (p[1], {**bet, "key": "key-k1-two-spots", "bets": {"player": 100, "tie": 3_000}}, ON_TIME,
         "bet.above_maximum"),
        (p[2], {**bet, "key": "key-k2-first", "bets": {"player": 500}}, ON_TIME, ({"player": 500}, 100)),
        (p[2], {**bet, "key": "key-k2-second", "bets": {"player": 200}}, ON_TIME, "bet.balance"),
        (p[3], {**bet, "key": "key-k3-signed-out", "bets": {"player": 100}}, ON_TIME, SIGNED_OUT),
        (p[4], {**bet, "key": "key-k4-late", "bets": {"player": 100}}, timedelta(seconds=700), "bet.closed"),
        (p[5], {"type": "decision", "key": "key-k5-decide", "action": "draw"}, ON_TIME, "decision.not_awaited"),
        (p[6], {**bet, "key": "key-k6-over-own", "bets": {"player": 500}}, ON_TIME, "protection.limit_left"),
        (p[6], {**bet, "key": "key-k6-within", "bets": {"player": 300}}, ON_TIME, ({"player": 300}, 19_700)),
        (p[7], {**bet, "key": "key-k7-over", "bets": {"banker": 1_500}}, ON_TIME, "bet.room_left"),
        (p[7], {**bet, "key": "key-k7-fill", "bets": {"banker": 1_000}}, ON_TIME, ({"banker": 2_500}, 17_500)),
        (p[9], {**bet, "key": "key-k9-seated", "bets": {"tie": 200}}, ON_TIME, ({"tie": 200}, 19_800)),
    ]


def _run(sessions: Any, *, bulk: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[int]]:
    """The batch through a group commit (bulk or each command alone); what it gave, checked, and how many
    commands took the bulk path."""
    start = datetime.now(UTC)
    setup = transaction(sessions, lambda s: _setting_up(s, start))
    players, digests, table_id = setup["players"], setup["digests"], setup["table"]
    cases = _batch(players)
    commands = [SocketCommand(table_id, account, digests[account], frame, start + late)
                for account, frame, late, _ in cases]
    counted = count_bulk_placements(monkeypatch)
    outcomes = batch.Batcher(sessions, bulk=bets_together if bulk else None)._commit(commands)
    monkeypatch.undo()
    for (account, frame, _, wanted), (ok, answer) in zip(cases, outcomes, strict=True):
        where = (players.index(account), frame.get("key"), answer)
        if isinstance(wanted, tuple):
            assert ok, where
            shown = (answer["bets"], answer["balance"], answer["round"], answer["table"])
            assert shown == (*wanted, 1, table_id), where
            assert answer["seat"] == (3 if account == players[9] else None), where
        elif isinstance(wanted, int):
            assert not ok and isinstance(answer, Close) and answer.code == wanted, where
        else:
            assert not ok and getattr(answer, "code", None) == wanted, where
    return setup, counted


def _books(sessions: Any, setup: dict[str, Any]) -> None:
    """The wallets, bets, stored answers and client seeds the answers describe, and a balanced ledger."""
    p = setup["players"]
    with sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
        balances = dict(s.execute(select(Wallet.account_id, Wallet.balance).where(Wallet.account_id.in_(p))).all())
        assert [balances[a] for a in p] == [17_400, GRANT, 100, GRANT, GRANT, GRANT, 19_700, 17_500, GRANT, 19_800]
        bets = s.execute(select(Bet.account_id, Bet.wager, Bet.amount, Bet.seat, Bet.balance_before)
                         .order_by(Bet.account_id, Bet.wager)).all()
        assert [(p.index(a), wager, amount, seat) for a, wager, amount, seat, _ in bets] == [
            (0, "banker", 2_000, 0), (0, "dragon_7", 100, 0), (0, "player", 500, 0), (2, "player", 500, 0),
            (6, "player", 300, 0), (7, "banker", 2_500, 0), (9, "tie", 200, 3)]
        # the balance before each bet's round: the wallet before its player's first chips on the round
        assert {p.index(a): before for a, _, _, _, before in bets} == {
            0: GRANT, 2: SMALL, 6: GRANT, 7: GRANT, 9: GRANT}
        stored = s.execute(select(IdempotentRequest.account_id, IdempotentRequest.key)).all()
        assert sorted((p.index(a), key) for a, key in stored if a in p) == [
            (0, "key-k0-first"), (0, "key-k0-fourth"), (0, "key-k0-second"), (2, "key-k2-first"), (6, "key-k6-within"),
            (7, "key-k7-fill"), (9, "key-k9-seated")]  # answers only: a refusal stores nothing
        assert s.execute(select(ShoeSeed.account_id, ShoeSeed.seed)).all() == [(p[9], "seed-of-piper9")]


@ON_BOTH
@pytest.mark.parametrize("bulk", [True, False], ids=["together", "alone"])
def test_a_batch_of_socket_bets_gives_each_its_answer_and_the_books_they_describe(sessions, monkeypatch, caplog,
                                                                                   bulk):
    with caplog.at_level(logging.ERROR, logger=bulkbets.log.name):
        setup, counted = _run(sessions, bulk=bulk, monkeypatch=monkeypatch)
    assert not [record for record in caplog.records if "bulk bets failed" in record.getMessage()]
    # together: every command of a player whose commands are all bets and who has no protection row (p5 sent a
    # decision, p6 has limits: theirs run alone); alone: none
    assert counted == ([22] if bulk else [])
    _books(sessions, setup)


@ON_BOTH
def test_a_failing_bulk_write_is_rolled_back_and_each_bet_runs_alone(sessions, monkeypatch, caplog):
    """A bulk write that fails (not a lost race) is rolled back to its savepoint, and the commands run alone:
    the same answers and books."""
    class Broken(bulkbets._Writes):
        def run(self, s: Any) -> None:
            super().run(s)
            raise RuntimeError("disk trouble")
    monkeypatch.setattr(bulkbets, "_Writes", Broken)
    with caplog.at_level(logging.ERROR, logger=bulkbets.log.name):
        setup, counted = _run(sessions, bulk=True, monkeypatch=monkeypatch)
    assert counted == [22]  # the bulk path ran, and failed
    assert [record for record in caplog.records if "bulk bets failed" in record.getMessage()]
    _books(sessions, setup)


@ON_BOTH
def test_a_socket_bet_on_its_way_at_the_close_is_taken_until_the_allowance_ends(sessions, monkeypatch):
    """The bulk path judges a bet by its arrival as a bet alone does: one that arrived just inside the
    allowance after the close (:data:`betting.ON_THE_WAY`) is taken, one at its end is refused."""
    start = datetime.now(UTC)
    setup = transaction(sessions, lambda s: _setting_up(s, start))
    players, digests, table_id = setup["players"], setup["digests"], setup["table"]
    with sessions() as s:
        closes, round_id = tables.open_round(s, table_id).closes_at, tables.open_round(s, table_id).id
    end = (closes if closes.tzinfo else closes.replace(tzinfo=UTC)) + betting.ON_THE_WAY
    commands = [SocketCommand(table_id, account, digests[account],
                              {"type": "bet", "key": f"on-its-way-{account:06d}", "bets": {"player": 100}}, at)
                for account, at in ((players[1], end - timedelta(milliseconds=1)), (players[4], end))]
    counted = count_bulk_placements(monkeypatch)
    (taken, answer), (refused, refusal) = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    assert counted == [2]  # both went the bulk way
    assert taken and answer["round"] == 1 and answer["bets"] == {"player": 100}
    assert not refused and refusal.code == "bet.closed" and refusal.params["round"] == 1
    with sessions() as s:
        assert s.scalars(select(Bet.account_id).where(Bet.round_id == round_id, Bet.account_id.in_(
            [players[1], players[4]]))).all() == [players[1]]


def _bet(setup: dict[str, Any], player: int, table_id: int, bets: dict[str, int], key: str,
         at: datetime) -> SocketCommand:
    account = setup["players"][player]
    return SocketCommand(table_id, account, setup["digests"][account], {"type": "bet", "key": key, "bets": bets}, at)


def _outcome(outcome: tuple[bool, Any]) -> Any:
    """An answer's stakes and shown balance, or a refusal's code."""
    ok, answer = outcome
    return (answer["bets"], answer["balance"]) if ok else answer.code


def _staked(sessions: Any) -> list[tuple[int, str, int]]:
    with sessions() as s:
        return [tuple(row) for row in s.execute(select(Bet.account_id, Bet.wager, Bet.amount).order_by(Bet.id))]


def test_bets_on_a_table_without_an_open_punto_banco_round_run_alone_with_their_own_answers(sessions, monkeypatch):
    """Only bets on a punto banco round taking bets go the bulk way: a bet on a table that is not there, on a Lucky
    Draw table, on a closed table runs alone and gets its own refusal; the others of the batch are placed together."""
    start = datetime.now(UTC)
    setup = transaction(sessions, lambda s: _setting_up(s, start))

    def more_tables(s: Any) -> tuple[int, int]:
        lucky = tables.create_table(s, "lucky", "lucky-draw", betting_seconds=600, now=start - timedelta(seconds=1))
        shut = tables.create_table(s, "shut", "ez", betting_seconds=600, now=start - timedelta(seconds=1))
        tables.close_table(s, shut.id, start)
        return lucky.id, shut.id
    lucky, shut = transaction(sessions, more_tables)
    counted = count_bulk_placements(monkeypatch)
    commands = [_bet(setup, 0, setup["table"], {"banker": 100}, "key-open-table", start),
                _bet(setup, 1, 99, {"banker": 100}, "key-no-table", start),
                _bet(setup, 4, lucky, {"enter": 100}, "key-lucky-table", start),
                _bet(setup, 5, shut, {"banker": 100}, "key-shut-table", start)]
    outcomes = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    assert [_outcome(outcome) for outcome in outcomes] == [
        ({"banker": 100}, GRANT - 100), "table.unknown", "bet.sit_first", "bet.round_over"]
    assert counted == [1]  # the bet on the open punto banco round alone went the bulk way
    assert _staked(sessions) == [(setup["players"][7], "banker", 1_500), (setup["players"][0], "banker", 100)]


def test_a_command_of_another_kind_in_the_batch_runs_every_command_alone_in_order(sessions, monkeypatch):
    """A command that is not a socket's bet could touch anyone's money: nothing goes the bulk way, and each command
    sees what the commands before it did."""
    start = datetime.now(UTC)
    setup = transaction(sessions, lambda s: _setting_up(s, start))
    first = setup["players"][0]
    counted = count_bulk_placements(monkeypatch)
    commands = [_bet(setup, 0, setup["table"], {"banker": 1_000}, "key-before", start),
                lambda s: wallet.balance(s, first),
                _bet(setup, 0, setup["table"], {"banker": 1_000}, "key-after", start)]
    outcomes = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    assert outcomes == [(True, outcomes[0][1]), (True, GRANT - 1_000), (True, outcomes[2][1])]
    assert [_outcome(outcomes[0]), _outcome(outcomes[2])] == [({"banker": 1_000}, GRANT - 1_000),
                                                              ({"banker": 2_000}, GRANT - 2_000)]
    assert counted == []


def test_a_round_that_moved_on_before_it_was_held_takes_no_bulk_bets(sessions, monkeypatch):
    """The round read as taking bets has moved on by the time the batch holds it (the dealer dealt it in between):
    its bets run alone, which find no round taking bets, and nothing is staked."""
    start = datetime.now(UTC)
    setup = transaction(sessions, lambda s: _setting_up(s, start))
    read_row = betting.betting_row
    dealt: list[int] = []

    def dealer_in_between(connection: Any, table_id: int) -> Any:
        row = read_row(connection, table_id)
        if not dealt and row is not None and row.id is not None:  # once: the dealer moves the round on
            dealt.append(row.id)
            connection.execute(update(Round).where(Round.id == row.id).values(status="settled"))
        return row
    monkeypatch.setattr(betting, "betting_row", dealer_in_between)
    counted = count_bulk_placements(monkeypatch)
    before = _staked(sessions)
    commands = [_bet(setup, player, setup["table"], {"player": 100}, f"key-moved-on-{player}", start)
                for player in (0, 1)]
    outcomes = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    assert [_outcome(outcome) for outcome in outcomes] == ["bet.round_over", "bet.round_over"]
    assert dealt and counted == []
    assert _staked(sessions) == before


def _database_refuses(s: Any) -> None:
    """A statement the database refuses (not a lost race): what a disk or a schema fault looks like to the batch."""
    s.execute(text("SELECT no_such_column FROM wallets"))


@pytest.mark.parametrize("where", ["the write", "a bet's check"])
def test_a_database_error_in_the_bulk_path_rolls_it_back_and_each_bet_runs_alone(sessions, monkeypatch, caplog,
                                                                                 where):
    """A database error (not a lost race) in the bulk write, or while one bet of it is checked (it is not that bet's
    refusal), rolls the bulk path back to its savepoint: the commands run alone, with the same answers and books."""
    if where == "the write":
        class Broken(bulkbets._Writes):
            def run(self, s: Any) -> None:
                super().run(s)
                _database_refuses(s)
        monkeypatch.setattr(bulkbets, "_Writes", Broken)
    else:
        checked = bulkbets._one
        seen: list[str] = []

        def one(command: Any, *args: Any) -> Any:
            seen.append(command.frame.get("key"))
            if len(seen) == 3:
                _database_refuses(args[-1])  # the batch's connection
            return checked(command, *args)
        monkeypatch.setattr(bulkbets, "_one", one)
    with caplog.at_level(logging.ERROR, logger=bulkbets.log.name):
        setup, counted = _run(sessions, bulk=True, monkeypatch=monkeypatch)
    assert counted == [22]  # the bulk path ran, and failed
    failed = [record for record in caplog.records if "bulk bets failed" in record.getMessage()]
    assert len(failed) == 1 and "no_such_column" in str(failed[0].exc_info[1])
    _books(sessions, setup)


def test_a_lost_race_in_the_bulk_write_runs_the_whole_batch_again(sessions, monkeypatch, caplog):
    """A lost race (SQLite's lock, a deadlock) in the bulk write is the batch's, not a fault: the transaction runs
    the whole batch again, the bulk way, with the same answers and books."""
    lost: list[bool] = []

    class Racing(bulkbets._Writes):
        def run(self, s: Any) -> None:
            super().run(s)
            if not lost:
                lost.append(True)
                raise OperationalError("UPDATE wallets", {}, sqlite3.OperationalError("database is locked"))
    monkeypatch.setattr(bulkbets, "_Writes", Racing)
    with caplog.at_level(logging.ERROR, logger=bulkbets.log.name):
        setup, counted = _run(sessions, bulk=True, monkeypatch=monkeypatch)
    assert lost and counted == [22, 22]  # the bulk path, twice: the second time it was written
    assert not [record for record in caplog.records if "bulk bets failed" in record.getMessage()]
    _books(sessions, setup)


@pytest.mark.parametrize("bulk", [True, False], ids=["together", "alone"])
def test_a_bettor_whose_wallet_row_is_gone_is_refused_and_the_others_are_placed(sessions, monkeypatch, bulk):
    """No code removes a wallet (an account gets its wallet in the transaction that creates it); a database damaged
    by hand that lost one refuses that player's bets, naming the account, on both paths, and takes the others."""
    start = datetime.now(UTC)
    setup = transaction(sessions, lambda s: _setting_up(s, start))
    gone = setup["players"][0]
    with sessions.kw["bind"].begin() as connection:
        connection.execute(text("DELETE FROM wallets WHERE account_id = :account"), {"account": gone})
    counted = count_bulk_placements(monkeypatch)
    commands = [_bet(setup, player, setup["table"], {"player": 100}, f"key-wallet-{player}", start)
                for player in (0, 1)]
    (refused, error), answered = batch.Batcher(sessions, bulk=bets_together if bulk else None)._commit(commands)
    assert not refused and str(error) == f"no wallet for account {gone}"
    assert _outcome(answered) == ({"player": 100}, GRANT - 100)
    assert counted == ([2] if bulk else [])


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "alone"])
def test_socket_bets_pay_their_fees_with_their_stakes_in_both_paths(sessions, monkeypatch, bulk):
    """A game with a fee of 20% on Player and Banker: each socket bet takes its stake and the fee on its spot's new
    total; a bet whose stake and fee pass the balance is refused, as place_bets would."""
    from baccarat.core.registry import unregister
    from baccarat.server.playing import definitions

    from .test_dealing import STRUCK

    start = datetime.now(UTC)

    def setup(s: Any) -> tuple[int, int, str]:
        definitions.store(s, STRUCK, origin="struck.toml")
        table = tables.create_table(s, "fees", "struck", betting_seconds=600, now=start - timedelta(seconds=1))
        account = accounts.register(s, "feepayer", "correct horse", grant=3_000).id
        return table.id, account, accounts._digest(accounts.log_in(s, "feepayer", "correct horse"))

    try:
        table_id, account, digest = transaction(sessions, setup)
        frames = [{"type": "bet", "key": "key-fee-one", "bets": {"player": 1_000}},
                  {"type": "bet", "key": "key-fee-two", "bets": {"player": 1_001}},
                  {"type": "bet", "key": "key-fee-three", "bets": {"banker": 500}}]
        commands = [SocketCommand(table_id, account, digest, frame, start) for frame in frames]
        outcomes = batch.Batcher(sessions, bulk=bets_together if bulk else None)._commit(commands)
    finally:
        unregister("struck")
    (ok1, one), (ok2, two), (ok3, three) = outcomes
    assert ok1 and one["balance"] == 3_000 - 1_000 - 200
    assert ok2 and two["balance"] == 1_800 - 1_001 - 201 and two["bets"] == {"player": 2_001}  # 20% of 20.01: 4.01
    assert not ok3 and three.code == "bet.balance"  # 5.00 and its fee of 1.00 pass the 5.98 left
    with sessions() as s:
        assert wallet.balance(s, account) == 598
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
