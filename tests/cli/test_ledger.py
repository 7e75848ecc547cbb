"""``baccarat ledger check`` on both databases: balanced books said with what was checked (exit 0), and a wallet
whose balance no longer equals its postings named (exit 3), as a doctored database would be."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from baccarat.cli.app import main
from baccarat.server.house import accounts
from baccarat.server.storage.db import connect, transaction

from ..conftest import ON_BOTH


@ON_BOTH
def test_the_books_balanced_and_a_wallet_changed_behind_the_ledger(database_url: str,
                                                                   capsys: pytest.CaptureFixture[str]):
    with connect(database_url) as sessions:
        for name in ("lena", "omar"):
            transaction(sessions, lambda s, name=name: accounts.register(s, name, "correct horse", grant=100_000))
    assert main(["ledger", "check", "--database", database_url]) == 0
    assert capsys.readouterr().out == ("ledger balanced: 2 movements each summing to 0, 2 wallets each equal to its "
                                       "postings\n")
    engine = create_engine(database_url)
    with engine.begin() as connection:  # a wallet changed by hand: no movement says why
        connection.execute(text("UPDATE wallets SET balance = balance + 5000 WHERE account_id = "
                                "(SELECT id FROM accounts WHERE username = 'omar')"))
    try:
        assert main(["ledger", "check", "--database", database_url]) == 3
        assert capsys.readouterr().out == ("ledger DRIFT: the wallets differ from their postings by 5000 minor units "
                                           "in all\n")
    finally:  # put back, for the fixture's own check of the books
        with engine.begin() as connection:
            connection.execute(text("UPDATE wallets SET balance = balance - 5000 WHERE account_id = "
                                    "(SELECT id FROM accounts WHERE username = 'omar')"))
        engine.dispose()
