"""Bettors without seats: any logged-in player may bet on a punto banco table's open round (the
seven seats are the players shown at the table); many bettors share one coup, each settled on it,
and the round's settlement is one ledger movement and one transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, func, select

from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, seating, tables, views
from baccarat.server.playing.dealer import deal_due
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, LedgerTransaction, Round, Settlement

from ...conftest import ON_BOTH

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _players(sessions, count: int, prefix: str = "player") -> list[int]:
    # register() hashes each password: a few players made so; the crowd is made by _crowd
    return transaction(sessions, lambda s: [accounts.register(s, f"{prefix}{i}", "correct horse", grant=10_000).id
                                            for i in range(count)])


def _crowd(sessions, count: int) -> list[int]:
    """``count`` accounts with wallets of 100.00, written in bulk (no password hashing: they never log in)."""
    from baccarat.server.storage.models import Account, Wallet

    def work(s):
        rows = [Account(username=f"crowd{i}", login=f"crowd{i}", password_hash="!", role="player")
                for i in range(count)]
        s.add_all(rows)
        s.flush()
        for row in rows:
            s.add(Wallet(account_id=row.id, balance=0))
        s.flush()
        for row in rows:  # granted through the ledger, as register() does
            wallet.transfer(s, "grant", {wallet.CASHIER: -10_000, wallet.wallet_account(row.id): 10_000})
        return [row.id for row in rows]
    return transaction(sessions, work)


def test_a_player_bets_on_punto_banco_without_a_seat_and_is_settled(sessions):
    table_id = transaction(sessions, lambda s: tables.create_table(s, "ez-crowd", "ez", betting_seconds=10,
                                                                   now=T0).id)
    ann, ben = _players(sessions, 2)
    transaction(sessions, lambda s: seating.sit(s, table_id, ann))  # ann is seated, ben is not
    placed = transaction(sessions, lambda s: betting.place_bets(s, table_id, ben, {"player": 500}, now=T0))
    assert placed["seat"] is None
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"banker": 1_000}, now=T0))
    with sessions() as s:
        view = views.table_view(s, table_id, T0)
        assert view["bettors"] == 2
        assert list(view["players"]) == ["1"]  # the seats show the seated player only
        assert view["spots"]["player"] == {"total": 500, "players": 1}
        assert views.you(s, table_id, ben, T0)["bets"] == {"player": 500}
    assert deal_due(sessions, now=T0 + timedelta(seconds=11)) == 1
    with sessions() as s:
        nets = dict(s.execute(select(Bet.account_id, Settlement.net)
                              .join(Settlement, Settlement.bet_id == Bet.id)).all())
        assert set(nets) == {ann, ben}
        assert wallet.balance(s, ben) == 10_000 + nets[ben]
        assert wallet.balance(s, ann) == 10_000 + nets[ann]
        # the bet of the player without a seat counts no seat: nobody was stood up or seated for it
        assert s.scalar(select(Bet.seat).where(Bet.account_id == ben)) == tables.NO_SEAT


@ON_BOTH
@pytest.mark.slow
def test_500_bettors_settle_in_one_transaction_with_one_ledger_movement(engine, sessions):
    table_id = transaction(sessions, lambda s: tables.create_table(s, "ez-burst", "ez", betting_seconds=10,
                                                                   now=T0).id)
    crowd = _crowd(sessions, 500)
    wagers = ("banker", "player", "tie")
    for start in range(0, len(crowd), 100):  # placed in a few transactions (the settlement is what is counted)
        transaction(sessions, lambda s, part=crowd[start:start + 100]: [
            betting.place_bets(s, table_id, account, {wagers[account % 3]: 100}, now=T0) for account in part])
    commits = []

    def count(connection):
        if not connection.get_execution_options().get("reading"):  # writes only: the dealer's look is a read
            commits.append(1)
    event.listen(engine, "commit", count)
    assert deal_due(sessions, now=T0 + timedelta(seconds=11)) == 1
    event.remove(engine, "commit", count)
    assert len(commits) == 1  # the deal, its 500 settlements, the next round: one transaction
    with sessions() as s:
        first = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        assert first.status == "settled"
        assert s.scalar(select(func.count(Settlement.bet_id))) == 500
        moves = s.scalars(select(LedgerTransaction.id).where(LedgerTransaction.kind == "settle")).all()
        assert len(moves) == 1  # one ledger movement pays every bettor
        assert set(s.scalars(select(Settlement.transaction_id))) == set(moves)
        nets = dict(s.execute(select(Bet.account_id, Settlement.net)
                              .join(Settlement, Settlement.bet_id == Bet.id)).all())
        assert all(wallet.balance(s, account) == 10_000 + nets[account] for account in crowd[:20])
