"""Group commit (:mod:`baccarat.server.storage.group_commit`): a burst of bets shares a few transactions, each
bet answered on its own (refusals included, in the player's words), the money exact; a failed
commit confirms none of its batch and leaves nothing of it."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import OperationalError

from baccarat.core.errors import BetLimitError, InsufficientFundsError, UnknownWagerError
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, tables
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet

from ...conftest import ON_BOTH


def _table_and_players(sessions, count: int, grant: int = 1_000):
    def work(s):
        table = tables.create_table(s, "burst", "ez", betting_seconds=600, now=datetime.now(UTC) - timedelta(seconds=1))
        return table.id, [accounts.register(s, f"bettor{i}", "correct horse", grant=grant).id for i in range(count)]
    return transaction(sessions, work)


def _bet(table_id: int, account_id: int, bets: dict[str, int], key: str):
    return lambda s: wallet.idempotent(s, account_id, key, betting.bet_request(table_id, bets, None),
                                       lambda: betting.place_bets(s, table_id, account_id, bets))


@pytest.mark.slow
@ON_BOTH
def test_a_burst_shares_transactions_and_each_bet_gets_its_own_answer(sessions):
    table_id, players = _table_and_players(sessions, 40)
    # every fourth bettor asks for more than they have, every fifth too much for the table, one a wager that is not
    wanted = []
    for i, account in enumerate(players):
        bets = ({"banker": 2_000} if i % 4 == 1 else {"banker": 3_000} if i % 5 == 2 else
                {"bunker": 100} if i == 7 else {"player": 100 + i})
        wanted.append((account, bets))
    batcher = batch.Batcher(sessions)

    async def burst():
        return await asyncio.gather(*(batcher.run(_bet(table_id, account, bets, f"burst-{account:06d}"))
                                      for account, bets in wanted), return_exceptions=True)
    answers = asyncio.run(burst())
    assert batcher.batches < len(wanted) / 4  # grouped: far fewer commits than bets
    with sessions() as s:
        for (account, bets), answer in zip(wanted, answers, strict=True):
            code, amount = next(iter(bets.items()))
            if code == "bunker":
                assert isinstance(answer, UnknownWagerError)
            elif amount == 2_000:
                assert isinstance(answer, InsufficientFundsError) and "more than your balance" in str(answer)
            elif amount == 3_000:  # over the table's maximum (and the wallet)
                assert isinstance(answer, (BetLimitError, InsufficientFundsError))
            else:
                assert answer["bets"] == bets and answer["balance"] == 1_000 - amount
            placed = s.scalar(select(func.coalesce(func.sum(Bet.amount), 0)).where(Bet.account_id == account))
            assert wallet.balance(s, account) == 1_000 - placed  # a refused bet left nothing behind
            assert placed == (amount if isinstance(answer, dict) else 0)
    # the same keys again: answered from the stored results, nothing staked twice
    again = asyncio.run(burst())
    assert [a for a in again if isinstance(a, dict)] == [a for a in answers if isinstance(a, dict)]


@ON_BOTH
def test_a_failed_commit_confirms_none_of_its_batch(sessions, monkeypatch):
    table_id, players = _table_and_players(sessions, 10)

    def failing_commit(sessions_, work):
        with sessions_() as s, s.begin():  # the work is done, then the commit fails: rolled back
            work(s)
            raise OperationalError("COMMIT", {}, Exception("disk I/O error"))
    monkeypatch.setattr(batch, "transaction", failing_commit)
    batcher = batch.Batcher(sessions)

    async def burst():
        return await asyncio.gather(*(batcher.run(_bet(table_id, account, {"banker": 100}, f"fail-{account:06d}"))
                                      for account in players), return_exceptions=True)
    answers = asyncio.run(burst())
    assert all(isinstance(answer, OperationalError) for answer in answers)
    with sessions() as s:
        assert s.scalar(select(func.count(Bet.id))) == 0
        assert all(wallet.balance(s, account) == 1_000 for account in players)


@pytest.mark.parametrize("after_close", [timedelta(milliseconds=-10), betting.ON_THE_WAY - timedelta(milliseconds=10)],
                         ids=["before the close", "on its way"])
def test_the_dealer_waits_for_bets_that_arrived_before_the_close(sessions, after_close):
    """A bet that arrived in time (before the close, or just after it in the allowance for bets on their
    way) is still in its group commit when the window closes: the round is not dealt until it is in (and
    then it is settled with the round)."""
    from baccarat.server.playing.dealer import Dealer

    table_id, (ann,) = _table_and_players(sessions, 1)
    with sessions() as s:
        closes = tables.open_round(s, table_id).closes_at
    closes = closes if closes.tzinfo else closes.replace(tzinfo=UTC)
    batcher = batch.Batcher(sessions)
    dealer = Dealer(sessions, late=0.5)
    dealer.bets_waiting = batcher.waiting_before
    arrived = closes + after_close

    async def scene():
        release = asyncio.Event()

        async def slow_bet():  # its batch is slow: the dealer passes by while it waits
            await release.wait()
            return await batcher.run(lambda s: betting.place_bets(s, table_id, ann, {"banker": 100}, arrived),
                                     table=table_id, received=arrived)
        counted = asyncio.Event()
        original = batcher.run

        async def run_counted(command, **where):
            task = asyncio.ensure_future(original(command, **where))
            await asyncio.sleep(0)
            counted.set()
            return await task
        batcher.run = run_counted  # type: ignore[method-assign]
        release.set()
        bet = asyncio.ensure_future(slow_bet())
        await counted.wait()
        assert batcher.waiting_before(table_id, closes + betting.ON_THE_WAY)
        assert dealer.deal_due(now=closes + timedelta(seconds=1)) == 0  # waits for the bet
        answer = await bet
        assert not batcher.waiting_before(table_id, closes + betting.ON_THE_WAY)
        assert dealer.deal_due(now=closes + timedelta(seconds=1)) == 1  # now dealt, the bet in it
        return answer
    answer = asyncio.run(scene())
    assert answer["round"] == 1
    with sessions() as s:
        assert s.scalar(select(func.count(Bet.id))) == 1


def test_a_command_the_database_refuses_is_rolled_back_alone_and_a_lost_race_is_raised(sessions):
    """In a shared transaction, a command whose statement the database refuses (not a lost race) gets that error
    as its outcome, with nothing of it left, and the batch goes on; a lost race (SQLite's lock) is raised, so that
    the whole batch runs again."""
    _, (ann, bob) = _table_and_players(sessions, 2)

    def credit(account: int):
        return lambda s: wallet.transfer(s, "credit", {wallet.CASHIER: -100, wallet.wallet_account(account): 100})

    def refused(s):
        credit(ann)(s)
        s.execute(text("SELECT no_such_column FROM wallets"))  # the database refuses it: not a race

    def lost_race(s):
        raise OperationalError("UPDATE wallets", {}, sqlite3.OperationalError("database is locked"))

    def work(s):
        outcomes = [batch.run_one(s, refused), batch.run_one(s, credit(bob))]
        with pytest.raises(OperationalError, match="database is locked"):
            batch.run_one(s, lost_race)
        return outcomes

    (ok, error), (credited, _) = transaction(sessions, work)
    assert not ok and isinstance(error, OperationalError) and "no_such_column" in str(error)
    assert credited
    with sessions() as s:
        assert (wallet.balance(s, ann), wallet.balance(s, bob)) == (1_000, 1_100)  # ann's credit went with its command


def test_a_batch_cancelled_mid_commit_gives_its_commands_the_cancellation(sessions):
    """A stopping server cancels the flusher while a batch is being committed: each command of that batch is
    answered with the cancellation, and the flusher ends cancelled rather than going on."""
    entered, release = threading.Event(), threading.Event()

    def slow(s):
        entered.set()
        release.wait(30)  # until the test has cancelled the batch
        return "slow"
    batcher = batch.Batcher(sessions, window=0)

    async def scene():
        runs = asyncio.gather(batcher.run(slow), batcher.run(lambda s: "quick"), return_exceptions=True)
        await asyncio.to_thread(entered.wait, 30)
        flusher = batcher.flusher
        assert flusher is not None
        flusher.cancel()
        answers = await runs
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await flusher
        return answers, batcher.batches
    answers, committed = asyncio.run(scene())
    assert [type(answer) for answer in answers] == [asyncio.CancelledError, asyncio.CancelledError]
    assert committed == 0
