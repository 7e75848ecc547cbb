"""Group commit (:mod:`baccarat.server.storage.group_commit`): a burst of bets shares a few transactions, each
bet answered on its own (refusals included, in the player's words), the money exact; a failed
commit confirms none of its batch and leaves nothing of it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
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
