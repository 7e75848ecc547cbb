"""Shared helpers: tables dealt from stacked shoes, so every rule can be checked card by card."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, settings

from baccarat.core.cards import parse_cards
from baccarat.core.games import Game
from baccarat.core.shoe import Shoe
from baccarat.core.table import Table

from . import provision

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile("ci")

#: Filler behind a stacked coup so the shoe can always cover the largest coup.
FILLER = "Kc " * 40


def stacked_table(game: Game, cards: str, *, balance: int = 1_000_000, seats: tuple[int, ...] = (1,)) -> Table:
    """A table whose (only) shoe deals ``cards`` first, with no burn and no cut card."""

    def factory() -> Shoe:
        return Shoe(parse_cards((cards + " " + FILLER).split()), cut_card=0)

    table = Table(game, shoe_factory=factory)
    for seat in seats:
        table.sit(seat, f"p{seat}", balance)
    return table


def deal_round(table: Table, bets: Mapping[int, Mapping[str, int]]) -> Table:
    """Open betting, place each seat's bets, close betting and deal (Lucky Draw stops at the decisions)."""
    table.open_betting()
    for seat, stakes in bets.items():
        table.place_bets(seat, stakes)
    table.close_betting()
    table.deal()
    return table


def play_coup(game: Game, cards: str, bets: Mapping[str, int]) -> Table:
    """Deal one punto banco coup from ``cards`` with ``bets`` at seat 1; returns the table."""
    return deal_round(stacked_table(game, cards), {1: bets})


def nets(table: Table) -> dict[str, int]:
    """Net result per wager code of the round just played (seat 1)."""
    return {s.wager: s.net for s in table.settlements if s.seat == 1}


def events(table: Table) -> dict[str, str]:
    """Pay-table event per wager code of the round just played (seat 1)."""
    return {s.wager: s.event for s in table.settlements if s.seat == 1}


# --- databases for the server tests ------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    provision.register(config)  # a PostgreSQL server and chromium for the tests that need them


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path):  # type: ignore[no-untyped-def]
    """A fresh, empty database: an SQLite file, or a new database on the PostgreSQL server at
    ``BACCARAT_TEST_POSTGRES_URL`` (given, or a throw-away one that ``tests/provision.py`` started;
    CI sets ``BACCARAT_REQUIRE_POSTGRES`` so that this half cannot be skipped)."""
    import os
    import uuid

    if request.param == "sqlite":
        from baccarat.server.storage.db import sqlite_url

        yield sqlite_url(tmp_path)
        return
    server = os.environ.get("BACCARAT_TEST_POSTGRES_URL")
    if not server:
        if os.environ.get("BACCARAT_REQUIRE_POSTGRES"):
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES is set but there is {provision.why_no_postgres(request.config)}")
        pytest.skip(provision.why_no_postgres(request.config))
    from sqlalchemy import create_engine

    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield server.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def sessions(database_url: str):  # type: ignore[no-untyped-def]
    """Sessions on ``database_url`` migrated to the newest schema; the test must leave the ledger
    balanced (every movement's postings sum to zero, and every wallet equals its postings)."""
    from baccarat.server.house import wallet
    from baccarat.server.storage.db import make_engine, session_factory
    from baccarat.server.storage.migrate import upgrade

    upgrade(database_url)
    engine = make_engine(database_url)
    yield session_factory(engine)
    with session_factory(engine)() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
    engine.dispose()
