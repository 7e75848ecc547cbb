"""The server's database layer on a real SQLite file: migrations, accounts, the double-entry
ledger, idempotent requests and the same-wallet race."""

from __future__ import annotations

import os
import re
import threading

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from baccarat.core.errors import AuthenticationError, ConfigurationError, ConflictError, InsufficientFundsError
from baccarat.server.house import accounts, wallet
from baccarat.server.storage.db import make_engine, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.models import Base, LedgerTransaction, Token, Wallet, now

from ...conftest import ON_BOTH


@pytest.mark.parametrize("empty_database_url", ["sqlite", "postgresql"], indirect=True)
def test_migrations_build_exactly_the_models_schema_and_come_down_to_nothing(empty_database_url: str):
    """Every migration, up and down and up again, on both databases (the other tests start from a copy of a
    database migrated once per session)."""
    from alembic import command
    from sqlalchemy import inspect

    from baccarat.server.storage.migrate import alembic_config

    database_url = empty_database_url
    upgrade(database_url)
    command.downgrade(alembic_config(database_url), "base")
    engine = make_engine(database_url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}  # every migration came down
    engine.dispose()
    upgrade(database_url)
    upgrade(database_url)  # a second run is a no-op
    engine = make_engine(database_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"include_name": _of_the_models})
        assert compare_metadata(context, Base.metadata) == []
        if database_url.startswith("sqlite"):
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        else:
            assert connection.exec_driver_sql("SHOW transaction_isolation").scalar() == "read committed"
            assert connection.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
    engine.dispose()


#: SQLite's bookkeeping of the ledger's balance (migration 0014): no model describes it, PostgreSQL has none
SQLITE_LEDGER = frozenset({"ledger_open", "ledger_unbalanced"})


def _of_the_models(name: str | None, kind: str, _parents: object) -> bool:
    """Whether the schema's object is one the models describe: all but SQLite's ledger bookkeeping (0014)."""
    return not (kind == "table" and name in SQLITE_LEDGER)


def _register(sessions, name: str, grant: int = 10_000):
    return transaction(sessions, lambda s: accounts.register(s, name, "correct horse", grant=grant).id)


def test_register_log_in_and_tokens(sessions):
    account_id = _register(sessions, "alice")
    token = transaction(sessions, lambda s: accounts.log_in(s, "alice", "correct horse"))
    assert len(token) >= 43  # 256 bits, base64
    with sessions() as s:
        assert accounts.authenticate(s, token).id == account_id
        assert s.scalar(select(Token.token_hash)) != token  # only the hash is stored
        assert wallet.balance(s, account_id) == 10_000
    for name, password in (("alice", "wrong password"), ("nobody", "correct horse")):
        with pytest.raises(AuthenticationError, match="Wrong username or password"):
            transaction(sessions, lambda s, n=name, p=password: accounts.log_in(s, n, p))
    with sessions() as s, pytest.raises(AuthenticationError):
        accounts.authenticate(s, "forged-token")
    transaction(sessions, lambda s: accounts.log_out(s, token))
    with sessions() as s, pytest.raises(AuthenticationError):
        accounts.authenticate(s, token)


@pytest.mark.parametrize(("name", "password", "error"), [
    ("al", "correct horse", ConfigurationError), ("bad name!", "correct horse", ConfigurationError),
    ("bob", "short", ConfigurationError), ("bob", "x" * 129, ConfigurationError),
])
def test_bad_registrations_change_nothing(sessions, name, password, error):
    with pytest.raises(error):
        transaction(sessions, lambda s: accounts.register(s, name, password, grant=100))
    with sessions() as s:
        assert wallet.check_ledger(s)["total"] == 0


def test_a_taken_username_is_a_conflict(sessions):
    _register(sessions, "carol")
    with pytest.raises(ConflictError):
        _register(sessions, "carol")


def test_password_hashes_are_salted_scrypt(real_password_cost):
    one, two = accounts.hash_password("correct horse"), accounts.hash_password("correct horse")
    assert one != two and one.startswith("scrypt$16384$8$1$")
    assert accounts.password_matches("correct horse", one) and not accounts.password_matches("correct hors", one)
    assert not accounts.password_matches("x", "garbage")


@ON_BOTH
def test_an_overdraft_is_refused_and_rolls_back_the_whole_transaction(sessions):
    account_id = _register(sessions, "dave", grant=500)

    def overdraw(s):
        wallet.transfer(s, "credit", {wallet.CASHIER: -100, wallet.wallet_account(account_id): 100})
        wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -1000, wallet.escrow_account(1): 1000})

    with pytest.raises(InsufficientFundsError, match="more than the balance"):
        transaction(sessions, overdraw)
    with sessions() as s:
        assert wallet.balance(s, account_id) == 500  # the credit before the failure was rolled back too
    with pytest.raises(ConfigurationError, match="sum to zero"):
        transaction(sessions, lambda s: wallet.transfer(s, "x", {wallet.CASHIER: 1}))


@ON_BOTH
def test_the_database_refuses_a_ledger_transaction_whose_postings_do_not_sum_to_zero(sessions):
    """Written by raw SQL, past the house's code: an unbalanced entry, a posting changed or removed afterwards,
    each fails its commit and leaves nothing; a balanced entry, and a whole entry removed, commit."""
    account = _register(sessions, "olga")
    engine = sessions.kw["bind"]

    def attempt(*statements: str) -> str:
        try:
            with engine.begin() as connection:
                for statement in statements:
                    connection.exec_driver_sql(statement)
        except IntegrityError as error:
            return "refused" if re.search(r"FOREIGN KEY constraint failed|does not balance", str(error)) else str(error)
        return "committed"

    entry = "INSERT INTO ledger_transactions (id, kind, memo, created_at) VALUES ({0}, 'credit', 'raw', '2026-11-27')"
    posting = "INSERT INTO postings (transaction_id, account, amount) VALUES ({0}, '{1}', {2})"
    before = transaction(sessions, wallet.check_ledger)
    assert attempt(entry.format(9001), posting.format(9001, f"wallet:{account}", 5_000)) == "refused"
    assert attempt(entry.format(9002), posting.format(9002, f"wallet:{account}", 5_000),
                   posting.format(9002, "cashier", -4_999)) == "refused"
    # the checks pending at the commit cannot be taken back by the same transaction (PostgreSQL's, 0020)
    assert attempt(entry.format(9004), posting.format(9004, f"wallet:{account}", 5_000), "DELETE FROM ledger_checks"
                   ) == "refused"
    assert attempt(entry.format(9005), posting.format(9005, f"wallet:{account}", 5_000),
                   "UPDATE ledger_checks SET transactions = '{}'") == "refused"
    assert transaction(sessions, wallet.check_ledger) == before
    assert attempt(entry.format(9003), posting.format(9003, "cashier", -700), posting.format(9003, "house", 700)
                   ) == "committed"
    assert attempt("UPDATE postings SET amount = 800 WHERE transaction_id = 9003 AND account = 'house'") == "refused"
    assert attempt("DELETE FROM postings WHERE transaction_id = 9003 AND account = 'house'") == "refused"
    assert attempt("UPDATE postings SET transaction_id = 1 WHERE transaction_id = 9003 AND account = 'house'"
                   ) == "refused"
    assert attempt("DELETE FROM postings WHERE transaction_id = 9003") == "committed"
    assert transaction(sessions, wallet.check_ledger) == before
    with engine.connect() as connection:  # PostgreSQL's checks of each statement (0020) are gone with their commit
        assert connection.exec_driver_sql("SELECT count(*) FROM ledger_checks").scalar() == 0


@ON_BOTH
def test_idempotent_requests_move_money_once(sessions):
    account_id = _register(sessions, "erin", grant=1_000)
    body = {"amount": 300}

    def stake(s, key="key-00000001", request=body):
        def work():
            wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -request["amount"],
                                         wallet.escrow_account(7): request["amount"]})
            return {"balance": wallet.balance(s, account_id)}
        return wallet.idempotent(s, account_id, key, request, work)

    first = transaction(sessions, stake)
    again = transaction(sessions, stake)
    assert first == again == {"balance": 700}
    with pytest.raises(ConflictError, match="different request"):
        transaction(sessions, lambda s: stake(s, request={"amount": 301}))
    with pytest.raises(ConfigurationError):
        transaction(sessions, lambda s: stake(s, key="short"))
    with sessions() as s:
        assert wallet.balance(s, account_id) == 700
    # return the escrow so the books close
    transaction(sessions, lambda s: wallet.transfer(s, "refund", {wallet.escrow_account(7): -300,
                                                                  wallet.wallet_account(account_id): 300}))


#: Repetitions of the race; CI runs the reliability spec's 200 (``BACCARAT_RACE_REPETITIONS``).
RACE_REPETITIONS = int(os.environ.get("BACCARAT_RACE_REPETITIONS", "10"))


@pytest.mark.slow
@ON_BOTH
def test_same_wallet_race_has_exactly_one_winner(sessions):
    account_id = _register(sessions, "frank", grant=5_000)
    for repetition in range(RACE_REPETITIONS):
        outcomes: list[str] = []
        barrier = threading.Barrier(64)

        def bet(i, rep=repetition, barrier=barrier, outcomes=outcomes):
            def work(s):
                amount = wallet.balance(s, account_id)
                wallet.transfer(s, "stake", {wallet.wallet_account(account_id): -5_000,
                                             wallet.escrow_account(rep): 5_000})
                return amount
            barrier.wait()
            try:
                transaction(sessions, work)
                outcomes.append("accepted")
            except InsufficientFundsError:
                outcomes.append("refused")

        threads = [threading.Thread(target=bet, args=(i,)) for i in range(64)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes.count("accepted") == 1 and outcomes.count("refused") == 63
        transaction(sessions, lambda s, rep=repetition: wallet.transfer(
            s, "refund", {wallet.escrow_account(rep): -5_000, wallet.wallet_account(account_id): 5_000}))


def _books(sessions) -> tuple[dict[int, int], int, dict[str, int]]:
    """Every wallet's balance, the ledger's movements and its drift: what a refusal must leave as it was."""
    with sessions() as s:
        wallets = {account: balance for account, balance in s.execute(select(Wallet.account_id, Wallet.balance))}
        return wallets, s.scalar(select(func.count(LedgerTransaction.id))) or 0, wallet.check_ledger(s)


def test_a_stake_the_wallet_cannot_cover_is_refused_with_the_shown_balance_and_moves_nothing(sessions):
    """Defence in depth behind the stake rule (:func:`baccarat.core.stakes.check_stakes`): ``wallet.stake`` called
    with more than the wallet holds, or more than the balance shown, says what may be staked and moves nothing."""
    rich, broke = _register(sessions, "gina", grant=500), _register(sessions, "hank", grant=0)
    before = _books(sessions)
    moment = now()

    def stake(account: int, amount: int, shown_before: int | None = None):
        return lambda s: wallet.stake(s, account, wallet.escrow_account(1), amount, memo="round 1", now=moment,
                                      shown_before=shown_before)

    for account, amount, shown_before, code, params in (
            (rich, 800, None, "wallet.short", {"amount": 800, "balance": 500}),  # more than the wallet holds
            (broke, 100, None, "bet.balance_used_up", {"amount": 100}),  # nothing at all to stake
            # the wallet covers it, the balance shown (less what is not shown yet) does not
            (rich, 300, 100, "wallet.short", {"amount": 300, "balance": 100}),
            (rich, 300, 0, "bet.balance_used_up", {"amount": 300})):
        with pytest.raises(InsufficientFundsError) as refused:
            transaction(sessions, stake(account, amount, shown_before))
        assert (refused.value.code, refused.value.params) == (code, params)
        assert _books(sessions) == before
    assert transaction(sessions, stake(rich, 500)) == (0, 0)  # the whole balance may be staked
    transaction(sessions, lambda s: wallet.transfer(s, "refund", {wallet.escrow_account(1): -500,
                                                                  wallet.wallet_account(rich): 500}))
    assert _books(sessions)[0] == before[0]


def test_movements_the_ledger_cannot_record_are_refused_and_leave_nothing(sessions):
    """Amounts that are not whole minor units, a round's credits to a wallet that is not there, a batch of stakes
    a wallet cannot cover (its caller checks them first: this cannot happen but by a bug): refused, nothing kept."""
    players = [_register(sessions, f"payee{i}", grant=100) for i in range(wallet.BULK)]
    before = _books(sessions)
    for postings in ({wallet.CASHIER: -150, wallet.wallet_account(players[0]): 150.0},
                     {wallet.CASHIER: -1, wallet.wallet_account(players[0]): True}):
        with pytest.raises(ConfigurationError, match="whole minor units"):
            transaction(sessions, lambda s, p=postings: wallet.transfer(s, "credit", p))
    # more wallets than BULK are credited in one statement: one of them missing fails the whole movement
    credits = {wallet.wallet_account(account): 10 for account in [*players, 999_999]}
    with pytest.raises(ConfigurationError, match="1 of the wallets credited do not exist"):
        transaction(sessions, lambda s: wallet.transfer(s, "settle", {wallet.HOUSE: -10 * len(credits), **credits}))
    # a batch of stakes: the first player's two stakes together are more than the wallet holds
    stakes = [(players[0], wallet.escrow_account(2), 60, "a"), (players[1], wallet.escrow_account(2), 60, "b"),
              (players[0], wallet.escrow_account(2), 60, "c")]
    with pytest.raises(ConfigurationError, match="1 wallets could not be debited"):
        transaction(sessions, lambda s: wallet.stake_many(s, stakes))
    transaction(sessions, lambda s: wallet.stake_many(s, []))  # no stakes: nothing written
    assert _books(sessions) == before


def test_an_account_without_a_wallet_is_named(sessions):
    account = _register(sessions, "ivan")
    with sessions() as s:
        for look in (lambda: wallet.balance(s, 999_999), lambda: wallet.hold_shown_balance(s, 999_999, now())):
            with pytest.raises(ConfigurationError, match="no wallet for account 999999"):
                look()
        assert wallet.pending_payouts(s, [], now()) == {}  # no accounts: no statement, nothing pending
        assert wallet.hold_shown_balance(s, account, now()) == 10_000
        assert wallet.shown_balances(s, [account, 999_999]) == {account: 10_000}
