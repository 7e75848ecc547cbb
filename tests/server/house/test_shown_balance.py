"""The spendable balance is the shown balance: a payout already in the wallet whose result the table has
not shown yet can be neither staked nor named, by a bet's answer, its refusal or the balance, on REST
(each bet in its own transaction) and on the socket's bulk path, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baccarat.core.errors import InsufficientFundsError
from baccarat.server.house import accounts, wallet
from baccarat.server.live.sockets import SocketCommand, bets_together
from baccarat.server.playing import betting, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import read, transaction

from ...conftest import ON_BOTH

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
DEALT = T0 + timedelta(seconds=15)  #: table A's round is dealt and settled; its result is still to be shown
SHOWN = T0 + timedelta(seconds=120)  #: long after the result was shown


@pytest.fixture
def won(sessions):  # type: ignore[no-untyped-def]
    """Ann had 10.00 and staked it all on table A's Player and Banker (one wins, or a tie or Dragon 7
    pushes: something comes back); the round is settled, its result not shown.  Table B is open."""

    def setting_up(s):  # type: ignore[no-untyped-def]
        a = tables.create_table(s, "A", "ez", betting_seconds=10, now=T0)
        b = tables.create_table(s, "B", "ez", betting_seconds=600, now=T0)
        ann = accounts.register(s, "ann", "correct horse", grant=1_000).id
        digest = accounts._digest(accounts.log_in(s, "ann", "correct horse"))
        betting.place_bets(s, a.id, ann, {"player": 500, "banker": 500}, T0 + timedelta(seconds=1))
        return {"a": a.id, "b": b.id, "ann": ann, "digest": digest}

    made = transaction(sessions, setting_up)
    assert deal_due(sessions, now=DEALT) == 1
    with sessions() as s:
        held, shown = wallet.balance(s, made["ann"]), wallet.shown_balance(s, made["ann"], DEALT)
    assert held >= 500 and shown == 0  # the payout is in the wallet, not on the table yet
    return made


@pytest.mark.parametrize("stake", [2_500, 100])
def test_a_bet_cannot_spend_or_name_winnings_not_shown_yet(sessions, won, stake):
    with pytest.raises(InsufficientFundsError) as refused:
        transaction(sessions, lambda s: betting.place_bets(s, won["b"], won["ann"], {"player": stake},
                                                           DEALT + timedelta(seconds=1)))
    # nothing shown is left: the balance is used up (issue 31: never "the balance of 0.00")
    assert (refused.value.code, refused.value.params) == ("bet.balance_used_up", {"amount": stake})
    assert str(refused.value).startswith("Your balance is used up")
    with sessions() as s:  # nothing moved, nothing shows below zero
        assert wallet.shown_balance(s, won["ann"], DEALT + timedelta(seconds=1)) == 0
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


@ON_BOTH
def test_on_the_socket_s_bulk_path_too(sessions, won):
    at = DEALT + timedelta(seconds=1)
    frames = [{"type": "bet", "key": f"ann-bet-{stake:05d}", "bets": {"player": stake}} for stake in (2_500, 100)]
    commands = [SocketCommand(won["b"], won["ann"], won["digest"], frame, at) for frame in frames]
    outcomes = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    for (ok, refused), frame in zip(outcomes, frames, strict=True):
        assert not ok and isinstance(refused, InsufficientFundsError)
        assert (refused.code, refused.params) == ("bet.balance_used_up", {"amount": frame["bets"]["player"]})
    with sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


def test_once_the_result_is_shown_the_winnings_are_spendable_and_named(sessions, won):
    held = read(sessions, lambda s: wallet.balance(s, won["ann"]))
    answer = transaction(sessions, lambda s: betting.place_bets(s, won["b"], won["ann"], {"player": 100}, SHOWN))
    assert answer["balance"] == held - 100
    with pytest.raises(InsufficientFundsError) as refused:
        transaction(sessions, lambda s: betting.place_bets(s, won["b"], won["ann"], {"banker": held}, SHOWN))
    assert refused.value.params == {"amount": held, "balance": held - 100}
