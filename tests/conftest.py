"""Shared helpers and fixtures: tables dealt from stacked shoes, so every rule can be checked card by
card; the Hypothesis profile; databases migrated for the server tests; the server's clock held by hand;
the real server as a process; a browser page.  The markers (``slow``, ``browser``, ``postgres``) are
registered in ``pyproject.toml``; ``docs/development.md`` says what each means."""

from __future__ import annotations

import os
import sys
import time
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
#: Not modules of tests: the Schemathesis hooks that tests/server/api/test_contract.py gives to ``st run`` register
#: global hooks when imported (as --doctest-modules would), and those break every other Schemathesis test.
collect_ignore = ["server/api/contract_hooks.py"]

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


@pytest.fixture(scope="session", autouse=True)
def seed_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The key sealing the shoes' server seeds in this test session (:mod:`baccarat.server.house.seed_keys`): this
    process's, and in a file of its own (outside every test's data directory) that the servers and commands the
    tests start read."""
    from baccarat.server.house import seed_keys

    path = tmp_path_factory.mktemp("seed-key") / "seed-key"
    seed_keys.use(seed_keys.create_key(path))  # at once: a module's fixture (made before any test's) may deal shoes
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BACCARAT_SEED_KEY_FILE", str(path))
        yield path
    seed_keys.use(None)


@pytest.fixture(autouse=True)
def sealing_with_the_session_s_key(seed_key: Path) -> None:
    """Each test starts with this process sealing and opening seeds with the session's key (a test that starts an
    app with a key of its own leaves that one in use)."""
    from baccarat.server.house import seed_keys

    seed_keys.use(seed_keys.read_key_file(seed_key))


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


#: Where the tests' temporary folders go when the machine has it: a file system in memory, on which SQLite's
#: fsync at every commit (``synchronous=FULL``, as served) costs nothing; the folders are thrown away anyway.
MEMORY_TEMP = Path("/dev/shm")


def pytest_configure(config: pytest.Config) -> None:
    provision.register(config)  # a PostgreSQL server for the tests that need it
    if "PYTEST_DEBUG_TEMPROOT" not in os.environ and MEMORY_TEMP.is_dir() and os.access(MEMORY_TEMP, os.W_OK):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_TEMP)  # pytest's own setting for tmp_path's root


# --- the tiers (docs/development.md) ---------------------------------------------------------------

#: The fast loop's tiers: ``python -m pytest -m "not slow and not browser"`` runs these two.
FAST_TIERS = ("unit", "component")
#: A test that asks for one of these (an in-process app on a database) is a component test; so is every test
#: under ``tests/server/`` that runs no real process.
COMPONENT_FIXTURES = frozenset({"database_url", "empty_database_url", "engine", "sessions"})
#: Seconds of CPU a fast-tier test may take, set up and torn down (``BACCARAT_FAST_TEST_SECONDS``; ``scripts/test``,
#: and so CI, sets 1), and :data:`WALL_PER_CPU` times as many of wall: a test over either fails, saying so.
#: Unset, nothing is timed.
BUDGET_VARIABLE = "BACCARAT_FAST_TEST_SECONDS"
_TIER = pytest.StashKey[str]()


def tier(item: pytest.Item) -> str:
    """The tier of ``item``: ``browser`` (marked so), ``system`` (marked ``slow``: real processes, kill loops,
    long runs), ``component`` (an in-process app or a database) or ``unit`` (pure, in memory)."""
    if item.get_closest_marker("browser") is not None:
        return "browser"
    if item.get_closest_marker("slow") is not None or item.get_closest_marker("system") is not None:
        return "system"
    under_server = Path(str(item.path)).is_relative_to(Path(__file__).parent / "server")
    if under_server or COMPONENT_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "component"
    return "unit"


_WARM: list[bool] = []


def _warm_up() -> None:
    """What each process does once, done before the fast tiers' tests, not in the time of the first test that
    happens to need it: every module of the package imported (the command line, the verifier, the reports are
    imported lazily, and the first import cost half a second of CPU), the OpenAPI schema built (the tests' apps
    share it), the simulation's kernels built or loaded (after a change to them, the build takes seconds), the
    analysis's first tables; then
    what is loaded is kept out of the cyclic collector's way (``gc.freeze``, as a served process does), so that no
    test pays for a collection over all of it."""
    if _WARM:
        return
    _WARM.append(True)
    with once_per_session():
        import gc
        import importlib
        import pkgutil

        import baccarat

        for module in pkgutil.walk_packages(baccarat.__path__, "baccarat."):
            if ".migrations" not in module.name:  # Alembic's env.py runs when imported
                importlib.import_module(module.name)
        from baccarat.server.api.app import create_app
        from baccarat.server.storage.settings import Settings

        create_app(Settings()).openapi()
        # the simulation's kernels, compiled ahead of time once per source (a C compiler's seconds) or loaded;
        # the tables every exact pricing of a wager on the cards reads first (a third of a second), and the coups
        # by point value that struck cards are priced over (a fifth of a second)
        from baccarat.analysis import cards, multipliers
        from baccarat.sim.compiled import kernels

        kernels()
        cards.prepare()
        multipliers.value_coups(8)
        gc.collect()
        gc.freeze()


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test's tier as a mark (``-m unit``, ``-m component``, ``-m system``; a ``system`` test is also
    ``slow``, so that the fast loop leaves it out), and the ``postgres`` mark on every test that runs on
    PostgreSQL (:data:`ON_POSTGRESQL`, :data:`ON_BOTH`)."""
    for item in items:
        item.stash[_TIER] = kind = tier(item)
        item.add_marker(kind)
        if kind == "system" and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
        if provision.needs_postgres(item) and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)
    # the longest system and browser tests (a module that sets ``LONG = True``) first, so that the workers end
    # together rather than one of them starting the longest last (sorted is stable: the rest keep their order)
    items[:] = sorted(items, key=lambda item: not (item.stash[_TIER] in ("system", "browser")
                                                   and getattr(getattr(item, "module", None), "LONG", False)))
    if os.environ.get(BUDGET_VARIABLE) and any(item.stash[_TIER] in FAST_TIERS for item in items):
        _warm_up()


#: The wall-clock budget is this many times the CPU budget: a fast test that sleeps or polls on real time uses
#: little CPU, and is caught by it; CPU time moves less than wall time when the other worker loads the machine
#: (on two cores, a test of 0.5 s of CPU took from 0.5 s to 1.6 s of wall).
WALL_PER_CPU = 3


class _Spent:
    """Wall and CPU seconds (this process's CPU: the app's threads included, a PostgreSQL server's not)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def since(self, start: _Spent) -> tuple[float, float]:
        return self.wall - start.wall, self.cpu - start.cpu


#: Seconds (wall, CPU) spent so far on what a test session sets up once (the migrated templates, the server's
#: modules, numba's compilations), which the test that happens to need it first is not charged with.
_ONCE = [0.0, 0.0]
_STARTED = pytest.StashKey[tuple[_Spent, tuple[float, float]]]()


@contextmanager
def once_per_session() -> Iterator[None]:
    """Around set-up done once for the whole session: its time is not counted in any test's budget."""
    start = _Spent()
    try:
        yield
    finally:
        wall, cpu = _Spent().since(start)
        _ONCE[0] += wall
        _ONCE[1] += cpu


_NUMBA_HEARD: list[object] = []


def _hear_numba_compile() -> None:
    """Once numba is loaded: its compilations (or loads from its cache) of a function, once per process each,
    count as the session's set-up (a clean clone compiles every kernel once, in whichever test asks first)."""
    if _NUMBA_HEARD or "numba" not in sys.modules:
        return
    from numba.core import event

    class Compiles(event.Listener):  # type: ignore[misc]
        depth = 0
        start: _Spent

        def on_start(self, _: object) -> None:
            if self.depth == 0:
                self.start = _Spent()
            self.depth += 1

        def on_end(self, _: object) -> None:
            self.depth -= 1
            if self.depth == 0:
                wall, cpu = _Spent().since(self.start)
                _ONCE[0] += wall
                _ONCE[1] += cpu

    listener = Compiles()
    event.register("numba:compile", listener)
    _NUMBA_HEARD.append(listener)


#: Where a fast-tier test's own code (``tests/``, the kits included) slept on real time, this test: ``file:line``.
_SLEPT = pytest.StashKey[list[str]]()
_TESTS = str(Path(__file__).parent) + os.sep


class _NoRealSleep:
    """While a fast-tier test runs, ``time.sleep`` and ``asyncio.sleep`` called for more than 0 s from the tests'
    own code (a test, a thread it started, a kit's polling loop) are noted, and the test fails at its teardown:
    the unit and component tiers drive the injected clock (``manual_time``), they never wait on the wall.  The
    product's own calls (``src/``) are not this guard's business; ``sleep(0)`` (a yield) is allowed."""

    def __init__(self) -> None:
        import asyncio

        self.time_sleep, self.asyncio_sleep = time.sleep, asyncio.sleep
        self.slept: list[str] | None = None

    def _note(self, seconds: float) -> None:
        if self.slept is None or seconds <= 0:
            return
        caller = sys._getframe(2)
        if caller.f_code.co_filename.startswith(_TESTS):
            self.slept.append(f"{Path(caller.f_code.co_filename).name}:{caller.f_lineno} slept {seconds:g} s")

    def sleep(self, seconds: float) -> None:
        self._note(seconds)
        self.time_sleep(seconds)

    def asleep(self, seconds: float, result: Any = None) -> Any:
        self._note(seconds)
        return self.asyncio_sleep(seconds, result)


_GUARD = _NoRealSleep()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    _hear_numba_compile()
    item.stash[_STARTED] = (_Spent(), (_ONCE[0], _ONCE[1]))
    if item.get_closest_marker("browser"):  # a browser test run again registers new names (browser_kit.register)
        from . import browser_kit

        browser_kit.ATTEMPT = getattr(item, "execution_count", 1)
    if item.stash.get(_TIER, "unit") in FAST_TIERS:
        import asyncio

        item.stash[_SLEPT] = _GUARD.slept = []
        time.sleep, asyncio.sleep = _GUARD.sleep, _GUARD.asleep  # type: ignore[assignment]
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield
    if _GUARD.slept is not None:
        import asyncio

        time.sleep, asyncio.sleep = _GUARD.time_sleep, _GUARD.asyncio_sleep
        _GUARD.slept = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A fast-tier test over its budget (:data:`BUDGET_VARIABLE` seconds of CPU, :data:`WALL_PER_CPU` times as many
    of wall), set-up and teardown included, less the session's own set-up (:func:`once_per_session`), fails at
    its teardown, naming its times."""
    outcome = yield
    budget = os.environ.get(BUDGET_VARIABLE)
    report = outcome.get_result()  # type: ignore[attr-defined]
    slept = item.stash.get(_SLEPT, None)
    if report.when == "teardown" and report.passed and slept:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} waited on real time ({'; '.join(sorted(set(slept)))}): a unit or component "
                           "test drives the injected clock (the manual_time fixture) and waits for events, not for "
                           "the wall; a test that must run real processes on real time is marked slow (the system "
                           "tier)")
        return
    if (not budget or report.when != "teardown" or not report.passed or _STARTED not in item.stash
            or item.stash.get(_TIER, "unit") not in FAST_TIERS):
        return
    start, (once_wall, once_cpu) = item.stash[_STARTED]
    wall, cpu = _Spent().since(start)
    wall, cpu = wall - (_ONCE[0] - once_wall), cpu - (_ONCE[1] - once_cpu)
    if cpu > float(budget) or wall > WALL_PER_CPU * float(budget):
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} took {cpu:.2f} s of CPU and {wall:.2f} s of wall, over the fast tiers' "
                           f"budget ({BUDGET_VARIABLE}={budget} s of CPU, {WALL_PER_CPU * float(budget):g} s of "
                           "wall): make it faster (drive the clock, not the wall), or mark it slow if it must run "
                           "real processes (the system tier)")


_RERUN: list[tuple[str, str]] = []  #: (test, why its first run failed) of the tests run again


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Keep why a system or browser test failed before it was run again (pytest-rerunfailures): the summary names
    the test alone, and its second run may fail for another reason (or pass)."""
    if report.outcome == "rerun":
        crash = getattr(report.longrepr, "reprcrash", None)  # where it failed: the end of a deep traceback is not
        where = f"{crash.path}:{crash.lineno}: {crash.message}\n" if crash is not None else ""
        _RERUN.append((f"{report.nodeid} ({report.when})", where + report.longreprtext))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Why each test that was run again failed the first time (the end of its report)."""
    if not _RERUN:
        return
    terminalreporter.section("why the tests run again failed the first time")
    for name, text in _RERUN:
        first, *lines = text.splitlines() or [""]
        terminalreporter.write_line(f"--- {name}: {first}")
        terminalreporter.write_line(f"    the last {min(len(lines), 40)} lines of its report's {len(lines)}:")
        for line in lines[-40:]:
            terminalreporter.write_line(line)


#: A test (or a module, as ``pytestmark``) that runs on PostgreSQL alone: where PostgreSQL is the point (row
#: locks, LISTEN/NOTIFY, several processes, ``pg_dump``, time zones, the text it cannot store).
ON_POSTGRESQL = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
#: A test that must hold on both databases (the money invariants, the database's own refusals): say why in its
#: docstring.  Every other test runs on SQLite alone.
ON_BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture(scope="session")
def migrated_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The databases every test's database is copied from, migrated once per test session (per pytest-xdist
    worker): an SQLite file, and (made on first use) a PostgreSQL template database with its copies made
    ahead (:class:`_PostgresCopies`)."""
    import sqlite3

    from baccarat.server.storage.db import sqlite_url
    from baccarat.server.storage.migrate import upgrade

    with once_per_session():
        folder = tmp_path_factory.mktemp("migrated")
        upgrade(sqlite_url(folder))
        path = folder / "baccarat.sqlite3"
        with sqlite3.connect(path) as connection:  # everything in the main file: a copy of it alone is whole
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
    templates: dict[str, Any] = {"sqlite": str(path)}
    yield templates
    if "postgresql" in templates:
        templates["postgresql"].close()


def _create_database(admin: Any, server: str, prefix: str, *, template: str | None = None) -> str:
    """A new database on ``server`` (through ``admin``, an engine in autocommit), empty or a copy of ``template``;
    its URL."""
    import uuid

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return server.rsplit("/", 1)[0] + "/" + name


def _drop_database(admin: Any, url: str) -> None:
    """Drop the database at ``url``, its connections closed first."""
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


class _PostgresCopies:
    """New PostgreSQL databases copied from a template migrated once, made ahead of the tests that take them by a
    thread of their own: ``CREATE DATABASE`` takes about 0.3 s, mostly the server waiting."""

    AHEAD = 2

    def __init__(self, server: str) -> None:
        import queue
        import threading

        from sqlalchemy import create_engine

        from baccarat.server.storage.migrate import upgrade

        self.server = server
        self.admin = create_engine(server, isolation_level="AUTOCOMMIT")
        template = _create_database(self.admin, server, "template")
        upgrade(template)  # Alembic's engine is disposed of: the template is free to copy
        self.template = template.rsplit("/", 1)[1]
        self.ready: queue.Queue[str | BaseException] = queue.Queue(maxsize=self.AHEAD)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._copy, name="database copies", daemon=True)
        self.thread.start()

    def _copy(self) -> None:
        while not self.stopping.is_set():
            try:
                made = _create_database(self.admin, self.server, "t", template=self.template)
            except Exception as error:  # the test that takes it says why
                self.ready.put(error)
                return
            self.ready.put(made)  # waits while AHEAD copies wait

    def take(self) -> str:
        """A new migrated database's URL (the test drops it with :meth:`drop`)."""
        made = self.ready.get(timeout=120)
        if isinstance(made, BaseException):
            raise made
        return made

    def drop(self, url: str) -> None:
        _drop_database(self.admin, url)

    def close(self) -> None:
        """Stop copying and drop the copies nobody took (the server may be the user's own)."""
        import queue

        self.stopping.set()
        for _ in range(2):  # before and after the thread's last copy
            while True:
                try:
                    made = self.ready.get_nowait()
                except queue.Empty:
                    break
                if isinstance(made, str):
                    self.drop(made)
            self.thread.join(timeout=10)
        self.admin.dispose()


def _postgres_copies(server: str, templates: dict[str, Any]) -> _PostgresCopies:
    """The session's :class:`_PostgresCopies`, started on first use."""
    if "postgresql" not in templates:
        with once_per_session():
            templates["postgresql"] = _PostgresCopies(server)
    copies: _PostgresCopies = templates["postgresql"]
    return copies


def _database(request: pytest.FixtureRequest, tmp_path: Path, templates: dict[str, Any] | None) -> Iterator[str]:
    """A new database for the test (``request.param``: ``sqlite``, the default, or ``postgresql``): migrated to
    the newest schema (a copy of the session's template) when ``templates`` are given, else empty."""
    import shutil

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
    if templates is not None:
        copies = _postgres_copies(server, templates)
        url = copies.take()
        try:
            yield url
        finally:
            copies.drop(url)
        return
    from sqlalchemy import create_engine

    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    url = _create_database(admin, server, "t")
    try:
        yield url
    finally:
        _drop_database(admin, url)
        admin.dispose()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path, migrated_templates: dict[str, Any]) -> Iterator[str]:
    """A new database already migrated to the newest schema (a copy of the session's migrated template): an
    SQLite file in ``tmp_path`` by default; on PostgreSQL (a new database on the server at
    ``BACCARAT_TEST_POSTGRES_URL``, given or started by ``tests/provision.py``) where the test says
    :data:`ON_POSTGRESQL` or :data:`ON_BOTH`.  CI sets ``BACCARAT_REQUIRE_POSTGRES``, so that no PostgreSQL
    test can be skipped."""
    yield from _database(request, tmp_path, migrated_templates)


@pytest.fixture
def more_databases(request: pytest.FixtureRequest, tmp_path: Path,
                   migrated_templates: dict[str, Any]) -> Iterator[Callable[[], str]]:
    """Makes new databases of the test's kind (as ``database_url``'s parameter says), migrated: for a test that
    compares runs each on a fresh database; they are dropped afterwards."""
    import types

    kind = types.SimpleNamespace(param=getattr(request.node, "callspec", types.SimpleNamespace(params={}))
                                 .params.get("database_url", "sqlite"), config=request.config)
    made: list[Iterator[str]] = []

    def make() -> str:
        folder = tmp_path / f"database-{len(made)}"
        folder.mkdir()
        made.append(_database(kind, folder, migrated_templates))  # type: ignore[arg-type]
        return next(made[-1])
    yield make
    for each in made:
        for _ in each:  # its clean-up
            pass


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


def signed_in(client: Any, name: str, role: str = "player", *, grant: int = 10_000,
              password: str = "correct horse") -> dict[str, str]:
    """An account of ``role`` made in the database of :func:`api_client`'s ``client`` (a staff account gets no
    grant), logged in over the API: its ``Authorization`` header."""
    from baccarat.server.house import accounts
    from baccarat.server.storage.db import connect, transaction

    with connect(client.settings.url) as sessions:
        transaction(sessions, lambda s: accounts.register(s, name, password, grant=grant, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": password}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


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
def clock_held(start: datetime, *, manual: bool = False) -> Iterator[Any]:
    """The server's clock (:mod:`baccarat.server.storage.clock`) replaced, for the block, by a
    ``ManualClock`` at ``start`` that stands still until moved (``advance(minutes=1)``, or set ``moment``);
    the process's own clock is back afterwards (for a module-scoped fixture; a test asks for
    ``manual_clock``)."""
    from baccarat.server.storage import clock

    held = clock.ManualTime(start) if manual else clock.ManualClock(start)
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


@pytest.fixture
def manual_time(clock_start: datetime):  # type: ignore[no-untyped-def]
    """The server's time held by the test (:class:`~baccarat.server.storage.clock.ManualTime` at ``clock_start``):
    the wall clock, the monotonic clock and every sleep of the server's loops (the dealer, the table feeds, the
    leases, the dealer's election, the audit heads) stand still until ``advance(seconds)``, which runs what falls
    due, in order, and returns when it has run.  Ask for it before the app's fixture, so that the app's loops
    start on it."""
    with clock_held(clock_start, manual=True) as held:
        yield held


def until(condition: Callable[[], object], seconds: float = 10.0, says: Callable[[], object] | str = "never happened"
          ) -> None:
    """Until ``condition()`` is true, where another thread of this process brings it about (one the test
    started, or the app's): it yields between looks (``sleep(0)``), never sleeps, and fails after ``seconds``
    with ``says`` (or what ``says()`` gives then)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, says() if callable(says) else says
        time.sleep(0)


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


def count_bulk_placements(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many commands each bulk placement of the test takes (:mod:`baccarat.server.playing.bulk_bets`; none
    counted: every command ran alone), counted into the list returned as the test goes on."""
    from baccarat.server.playing import bulk_bets

    counted: list[int] = []
    placed = bulk_bets._place

    def counting(s: Any, chosen: Any, signed_out: Any) -> Any:
        counted.append(len(chosen))
        return placed(s, chosen, signed_out)
    monkeypatch.setattr(bulk_bets, "_place", counting)
    return counted
