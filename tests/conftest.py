"""Shared helpers and fixtures: tables dealt from stacked shoes, so every rule can be checked card by
card; the Hypothesis profile; databases migrated for the server tests; the server's clock held by hand;
the real server as a process; a browser page.  The markers (``slow``, ``browser``, ``postgres``) are
registered in ``pyproject.toml``; ``docs/development.md`` says what each means."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from baccarat.core.cards import parse_cards
from baccarat.core.games import Game
from baccarat.core.shoe import Shoe
from baccarat.core.table import Table

from . import provision, server_kit

# --- Hypothesis: HYPOTHESIS_PROFILE=ci (the default, thorough) or dev (fewer examples, for the fast loop) ---

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Not modules of tests: the Schemathesis hooks that test_server_contract.py gives to ``st run`` register
#: global hooks when imported (as --doctest-modules would), and those break every other Schemathesis test.
collect_ignore = ["server/contract_hooks.py"]

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
if PROFILE not in ("ci", "dev"):
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE={PROFILE!r}: choose ci (the default) or dev")
settings.load_profile(PROFILE)


def examples(count: int) -> int:
    """``count`` examples under the ``ci`` profile; under ``dev``, as many as ``dev`` runs at most (for a
    property that asks for its own number with ``@settings(max_examples=examples(300))``)."""
    return count if PROFILE == "ci" else min(count, settings.get_profile("dev").max_examples)


@pytest.fixture(scope="session", autouse=True)
def audit_signing_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The audit trail's signing key file of this test session: in a folder of its own, outside every
    test's data directory and not in the user's configuration directory (the default); the servers the
    tests start as processes inherit it."""
    path = tmp_path_factory.mktemp("audit-key") / "audit-signing-key.pem"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BACCARAT_AUDIT_KEY_FILE", str(path))
        yield path


#: log2 of scrypt's N for the tests' password hashes (the server's is 14): thousands of accounts are made, and
#: only the tests about hashing itself (they ask for ``real_password_cost``) need its real cost.
TEST_PASSWORD_COST = 4


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashes() -> Iterator[None]:
    """Password hashes at :data:`TEST_PASSWORD_COST` in this process and in the servers the tests start."""
    from baccarat.server.house import accounts

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BACCARAT_PASSWORD_COST", str(TEST_PASSWORD_COST))
        previous = accounts.use_password_cost(TEST_PASSWORD_COST)
        yield
        accounts.use_password_cost(previous)


@pytest.fixture
def real_password_cost(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """The server's own password cost (log2 N = 14) for the test, in this process and in the apps it makes."""
    from baccarat.server.house import accounts
    from baccarat.server.storage.settings import Settings

    cost = Settings.model_fields["password_cost"].default
    monkeypatch.setenv("BACCARAT_PASSWORD_COST", str(cost))
    previous = accounts.use_password_cost(cost)
    yield cost
    accounts.use_password_cost(previous)


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


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``postgres`` mark on every test that runs on PostgreSQL (:data:`ON_POSTGRESQL`, :data:`ON_BOTH`)."""
    for item in items:
        if provision.needs_postgres(item) and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)


#: A test (or a module, as ``pytestmark``) that runs on PostgreSQL alone: where PostgreSQL is the point (row
#: locks, LISTEN/NOTIFY, several processes, ``pg_dump``, time zones, the text it cannot store).
ON_POSTGRESQL = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
#: A test that must hold on both databases (the money invariants, the database's own refusals): say why in its
#: docstring.  Every other test runs on SQLite alone.
ON_BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The databases every test's database is copied from, migrated once per test session (per pytest-xdist
    worker): an SQLite file, and (made on first use) a PostgreSQL template database."""
    import sqlite3

    from baccarat.server.storage.db import sqlite_url
    from baccarat.server.storage.migrate import upgrade

    folder = tmp_path_factory.mktemp("migrated")
    upgrade(sqlite_url(folder))
    path = folder / "baccarat.sqlite3"
    with sqlite3.connect(path) as connection:  # everything in the main file: a copy of it alone is whole
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return {"sqlite": str(path)}


def _postgres_template(server: str, templates: dict[str, str]) -> str:
    """The migrated PostgreSQL template database's name, made on first use (dropped with the server)."""
    if "postgresql" not in templates:
        import uuid

        from sqlalchemy import create_engine

        from baccarat.server.storage.migrate import upgrade

        name = f"template_{uuid.uuid4().hex[:12]}"
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        upgrade(server.rsplit("/", 1)[0] + "/" + name)  # Alembic's engine is disposed of: the template is free
        templates["postgresql"] = name
    return templates["postgresql"]


def _database(request: pytest.FixtureRequest, tmp_path: Path, templates: dict[str, str] | None) -> Iterator[str]:
    """A new database for the test (``request.param``: ``sqlite``, the default, or ``postgresql``): migrated to
    the newest schema (a copy of the session's template) when ``templates`` are given, else empty."""
    import shutil
    import uuid

    kind = getattr(request, "param", "sqlite")
    if kind == "sqlite":
        from baccarat.server.storage.db import sqlite_url

        if templates is not None:
            shutil.copyfile(templates["sqlite"], tmp_path / "baccarat.sqlite3")
        yield sqlite_url(tmp_path)
        return
    server = os.environ.get("BACCARAT_TEST_POSTGRES_URL")
    if not server:
        if os.environ.get("BACCARAT_REQUIRE_POSTGRES"):
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES is set but there is {provision.why_no_postgres(request.config)}")
        pytest.skip(provision.why_no_postgres(request.config))
    from sqlalchemy import create_engine

    name = f"t_{uuid.uuid4().hex[:12]}"
    template = f' TEMPLATE "{_postgres_template(server, templates)}"' if templates is not None else ""
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"{template}')
    try:
        yield server.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path, migrated_templates: dict[str, str]) -> Iterator[str]:
    """A new database already migrated to the newest schema (a copy of the session's migrated template): an
    SQLite file in ``tmp_path`` by default; on PostgreSQL (a new database on the server at
    ``BACCARAT_TEST_POSTGRES_URL``, given or started by ``tests/provision.py``) where the test says
    :data:`ON_POSTGRESQL` or :data:`ON_BOTH`.  CI sets ``BACCARAT_REQUIRE_POSTGRES``, so that no PostgreSQL
    test can be skipped."""
    yield from _database(request, tmp_path, migrated_templates)


@pytest.fixture
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """As :func:`database_url`, but a database nothing has touched yet (no schema): for the tests of
    migrations, and of what a command does with a database no server has used.  Parametrized indirectly by
    the same names (``pytest.mark.parametrize("empty_database_url", ["postgresql"], indirect=True)``)."""
    yield from _database(request, tmp_path, None)


@pytest.fixture
def engine(database_url: str):  # type: ignore[no-untyped-def]
    """An engine on ``database_url`` migrated to the newest schema, disposed of afterwards (for a test
    that writes what the ledger check of ``sessions`` would refuse, or listens to the engine's events)."""
    from baccarat.server.storage.db import make_engine
    from baccarat.server.storage.migrate import upgrade

    upgrade(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def sessions(engine):  # type: ignore[no-untyped-def]
    """Sessions on ``database_url`` migrated to the newest schema (on ``engine``); the test must leave the
    ledger balanced (every movement's postings sum to zero, and every wallet equals its postings)."""
    from baccarat.server.house import wallet
    from baccarat.server.storage.db import session_factory

    yield session_factory(engine)
    with session_factory(engine)() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


def api_client(settings: Any) -> Iterator[Any]:
    """A test client of the app made with ``settings`` (given as its ``settings`` attribute), for a
    fixture to ``yield from``; the test must leave the ledger balanced (checked afterwards)."""
    from fastapi.testclient import TestClient

    from baccarat.server.api.app import create_app
    from baccarat.server.house import wallet
    from baccarat.server.storage.db import connect

    with TestClient(create_app(settings)) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client
    with connect(settings.url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


# --- the server's clock, held by hand ----------------------------------------------------------------

#: where ``manual_clock`` starts unless a module's own ``clock_start`` fixture says otherwise
CLOCK_START = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock_start() -> datetime:
    """The moment ``manual_clock`` starts at; a module overrides it with a fixture of the same name."""
    return CLOCK_START


@contextmanager
def clock_held(start: datetime) -> Iterator[Any]:
    """The server's clock (:mod:`baccarat.server.storage.clock`) replaced, for the block, by a
    ``ManualClock`` at ``start`` that stands still until moved (``advance(minutes=1)``, or set ``moment``);
    the process's own clock is back afterwards (for a module-scoped fixture; a test asks for
    ``manual_clock``)."""
    from baccarat.server.storage import clock

    held = clock.ManualClock(start)
    previous = clock.use(held)
    try:
        yield held
    finally:
        clock.use(previous)


@pytest.fixture
def manual_clock(clock_start: datetime):  # type: ignore[no-untyped-def]
    """:func:`clock_held` at ``clock_start`` for the test.  Ask for it before ``sessions`` where the
    set-up must already read it."""
    with clock_held(clock_start) as held:
        yield held


class Ticks:
    """Seconds on a monotonic clock moved by hand: pass it where a ``clock=``/``monotonic=`` callable is
    taken; ``advance(seconds)`` or set ``value``."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self) -> float:
        return self.value

    def advance(self, seconds: float) -> float:
        self.value += seconds
        return self.value


@pytest.fixture
def ticks() -> Ticks:
    """A :class:`Ticks` at 0.0 s."""
    return Ticks()


# --- the real server, as a process -----------------------------------------------------------------


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., server_kit.Served]]:
    """Start ``baccarat serve`` processes: ``serve(*options, data_dir=tmp_path, env=None)`` runs
    ``baccarat serve --port 0 --data-dir DATA_DIR OPTIONS...``, reads its ready line and returns a
    :class:`server_kit.Served` (``url``, ``host``, ``port``, ``process``, ``stop()``, ``kill()``); every
    one still running is stopped (SIGTERM, and waited for) at the end of the test."""
    started: list[server_kit.Served] = []

    def start(*options: str, data_dir: Path | None = None, env: dict[str, str] | None = None) -> server_kit.Served:
        served = server_kit.serve(*options, data_dir=data_dir or tmp_path, env=env)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


@pytest.fixture
def server_url(serve: Callable[..., server_kit.Served]) -> str:
    """The base URL (``http://127.0.0.1:PORT``) of ``baccarat serve`` on SQLite in ``tmp_path``, running
    for the test."""
    return serve().url


# --- a browser page (the browser tests; Playwright and chromium: tests/browser_kit.py) -----------------


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless chromium, launched for the test and closed after it."""
    from .browser_kit import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture
def page_errors() -> list[str]:
    """The JavaScript errors of the ``page`` fixture's page (none, checked after the test)."""
    return []


@pytest.fixture
def page(browser: Any, server: Any, page_errors: list[str]) -> Iterator[Any]:
    """A fresh browser profile on the module's ``server`` (the browser test modules define one), in English
    at 1280 x 900; the test fails if the page had a JavaScript error."""
    from .browser_kit import new_page

    context, tab = new_page(browser, server.url, errors=page_errors)
    yield tab
    context.close()
    assert page_errors == [], page_errors  # no JavaScript error on the page
