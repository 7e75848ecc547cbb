"""``baccarat serve`` and ``baccarat operator``: the table server (work in progress: accounts and wallets).

A server that cannot start says why in one line and exits :data:`~baccarat.cli.app.EXIT_UNAVAILABLE`:
the data directory cannot be made, the database cannot be opened, migrated or written, or the
address cannot be listened on.  The database is checked here, before uvicorn starts, because a
failure in the app's start-up (its lifespan) is logged by uvicorn as a traceback and ends the
process with uvicorn's own exit code 3, the code ``verify`` uses for a mismatch.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from baccarat.cli.app import EXIT_UNAVAILABLE, RulesOption, UsageProblem, app, handle_errors

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from baccarat.server.storage.settings import Settings

#: The largest request line plus headers uvicorn buffers (bytes); a bigger head is refused with 400.
MAX_HEAD = 16_384


def _unavailable(reason: str) -> NoReturn:
    print(f"error: {reason}", file=sys.stderr)
    raise typer.Exit(EXIT_UNAVAILABLE)


@contextmanager
def _database_problems(settings: Settings) -> Iterator[None]:
    """Turn a database or data directory that cannot be used into one line and :data:`EXIT_UNAVAILABLE`.

    Only the failures of the machine and its configuration (unreachable, read-only, full, refused
    credentials, no driver, a schema newer than this code): anything else is a bug and keeps its traceback.
    """
    from alembic.util import CommandError
    from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError

    from baccarat.server.storage import faults

    hint = _where_set(settings)
    try:
        yield
    except OSError as error:
        if settings.database_url is None and error.filename is not None:
            why = "it is not a directory" if Path(error.filename).is_file() else error.strerror or str(error)
            _unavailable(f"cannot use the data directory {settings.data_dir}: {why}; check {hint}")
        _unavailable(f"cannot open the database at {_shown(settings)}: {faults.describe(error)}; check {hint}")
    except (NoSuchModuleError, ImportError) as error:  # a database kind, or a driver, that is not installed
        if settings.database_url is None or (getattr(error, "name", None) or "").startswith("baccarat"):
            raise  # SQLite's driver is Python's own, always there; a module of ours missing is a bug
        scheme = settings.database_url.split("://", 1)[0]
        why = (f"its driver ({scheme}) is not installed; write postgresql+psycopg://USER@HOST/NAME (psycopg 3, "
               "installed with baccarat)" if scheme.startswith("postgres") else
               f"{scheme} is not a database this server uses: give sqlite:///PATH or postgresql+psycopg://USER@HOST/NAME")
        _unavailable(f"cannot open the database at {_shown(settings)}: {why}; check {hint}")
    except (SQLAlchemyError, CommandError) as error:
        problem, words = faults.storage_problem(error), faults.describe(error)
        reason = words if problem is None else problem if problem == words else f"{problem} ({words})"
        _unavailable(f"cannot open the database at {_shown(settings)}: {reason}; check {hint}")


def _check_set_up(settings: Settings) -> None:
    """End the command (:data:`EXIT_UNAVAILABLE`) unless a server has set this database up."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.engine import make_url

    hint = _where_set(settings)
    url = make_url(settings.database_url) if settings.database_url else None
    if url is None or url.get_backend_name() == "sqlite":
        if url is not None and url.database in (None, "", ":memory:"):
            return  # in memory: nothing on disk to look for
        path = settings.data_dir / "baccarat.sqlite3" if url is None else Path(url.database or "")
        if not path.is_file():  # (connecting would make it)
            _unavailable(f"there is no database at {path}: no server has used it; check {hint}")
        return
    engine = create_engine(url)
    try:
        set_up = inspect(engine).has_table("alembic_version")
    finally:
        engine.dispose()
    if not set_up:
        _unavailable(f"the database at {_shown(settings)} holds no baccarat tables: no server has used it; "
                     f"check {hint}")


def _where_set(settings: Settings) -> str:
    """The option and variable that chose this database: what a refusal asks to check."""
    return "--database / BACCARAT_DATABASE_URL" if settings.database_url else "--data-dir / BACCARAT_DATA_DIR"


def _shown(settings: Settings) -> str:
    """The database URL without its password (it is printed)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if settings.database_url is None:
        return str(settings.data_dir / "baccarat.sqlite3")
    try:
        return make_url(settings.database_url).render_as_string(hide_password=True)
    except ArgumentError:
        return settings.database_url.split("://", 1)[0] + "://..."


def ready_database(settings: Settings, *, existing: bool = False) -> str:
    """The database URL, migrated to the newest schema and known to take a write; a database that
    cannot be used ends the command with one line and :data:`EXIT_UNAVAILABLE`.

    ``existing``: for the commands that read or change what a server wrote (the audit trail, a round),
    a database no server has set up is refused too: a mistyped ``--data-dir`` or ``--database`` would
    otherwise be made, empty, and the command would report on nothing as if all were well.
    """
    from sqlalchemy import text

    from baccarat.server.storage.db import connect, transaction
    from baccarat.server.storage.migrate import upgrade

    with _database_problems(settings):
        if existing:
            _check_set_up(settings)
        url = settings.url  # makes the data directory
        upgrade(url)
        with connect(url) as sessions:
            # A write that changes nothing: a read-only database (or a PostgreSQL standby) passes the
            # migration when there is nothing to migrate, and would then answer every bet 503.
            transaction(sessions, lambda s: s.execute(text("UPDATE alembic_version SET version_num = version_num")))
    return url


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8000,
    database: Annotated[str | None, typer.Option(
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (default: SQLite in the data directory).")]
    = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default: $BACCARAT_DATA_DIR or "
                                                       "./baccarat-data).")] = None,
    betting_seconds: Annotated[float | None, typer.Option(
        min=0.1, max=600, help="Betting window of the tables made on a fresh database (default 15).")] = None,
    trusted_proxy: Annotated[list[str] | None, typer.Option(
        help="Address of a reverse proxy whose X-Forwarded-For names the client (repeatable). Without it the "
             "connection's own address is the client's, for the login limits.")] = None,
    rules: RulesOption = None,
    workers: Annotated[int, typer.Option(
        min=1, max=64, help="Server processes sharing the address (PostgreSQL only: SQLite is served by one "
                            "process). Any of them answers any request; one of them deals.")] = 1,
) -> None:
    """Run the table server; prints its address when it is ready (GET /health answers 200).

    Each --rules file adds its game: served like the built-in games, with a table of its own.
    """
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from baccarat.core.rulesfile import load_rules
    from baccarat.server.api.app import create_app, tune_for_serving
    from baccarat.server.live import sockets as live
    from baccarat.server.live.arrival import StampedWebSocketProtocol
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        for path in rules or ():
            load_rules(path)
        settings = Settings.from_options(data_dir=data_dir, database=database, betting_seconds=betting_seconds)
        if workers > 1 and not settings.url.startswith("postgresql"):
            _unavailable(f"--workers {workers} needs PostgreSQL (--database postgresql+psycopg://USER@HOST/DB): "
                         "SQLite takes one writer at a time, so one process serves it; run without --workers")
        url = ready_database(settings)
        # h11 rather than httptools (uvicorn's default when installed): httptools holds a request line
        # and headers of any size (a 128 MB header line: +256 MB), h11 refuses a head over MAX_HEAD.
        # ws_max_size refuses a WebSocket frame over live.MAX_FRAME from its header, before buffering it;
        # frames are not compressed unless the settings say so (see Settings.ws_deflate); each received frame is
        # stamped with the moment it was read off the network (a bet's arrival, see baccarat.server.live.arrival).
        # X-Forwarded-For only from a proxy named on the command line: uvicorn trusts 127.0.0.1 by default,
        # so any local client could pick the address the per-address login limits count.
        options = dict(host=host, port=port, log_level="warning", http="h11", h11_max_incomplete_event_size=MAX_HEAD,
                       ws=StampedWebSocketProtocol, ws_max_size=live.MAX_FRAME,
                       ws_per_message_deflate=settings.ws_deflate, proxy_headers=bool(trusted_proxy),
                       forwarded_allow_ips=list(trusted_proxy or []))
        if workers > 1:
            _serve_workers(settings, url, workers, options)
            return
        tune_for_serving()
        config = uvicorn.Config(create_app(settings), **options)  # type: ignore[arg-type]
        server = uvicorn.Server(config)
        original = server.startup

        async def startup(sockets: object = None) -> None:
            await original(sockets)  # type: ignore[arg-type]
            for bound in server.servers:
                for sock in bound.sockets:
                    address = sock.getsockname()
                    print(f"baccarat server ready at http://{address[0]}:{address[1]} "
                          f"(database: {settings.url.split('://')[0]})", flush=True)

        server.startup = startup  # type: ignore[method-assign]
        try:
            server.run()
        except SystemExit as stopped:
            if stopped.code != STARTUP_FAILURE:
                raise
            # uvicorn has logged why (the address is in use, or the app's start-up failed); exit 3 is verify's
            _unavailable(f"the table server did not start on {host}:{port}")


def _serve_workers(settings: Settings, url: str, workers: int, options: dict[str, object]) -> None:
    """``workers`` uvicorn processes on one listening socket, each its own app (made from the environment:
    each runs the dealer election and its own table sockets); the address is printed once one answers."""
    import os
    import threading

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    os.environ.update(BACCARAT_DATABASE_URL=url, BACCARAT_BETTING_SECONDS=str(settings.betting_seconds),
                      BACCARAT_DATA_DIR=str(settings.data_dir))
    config = uvicorn.Config("baccarat.server.api.app:served_app", factory=True, workers=workers,
                            **options)  # type: ignore[arg-type]
    try:
        sock = config.bind_socket()
    except SystemExit:
        _unavailable(f"the table server did not start on {config.host}:{config.port}")
    address = sock.getsockname()
    base = f"http://{address[0]}:{address[1]}"
    threading.Thread(target=_announce_when_ready, args=(base, workers), daemon=True).start()
    Multiprocess(config, sockets=[sock]).run()


def _announce_when_ready(base: str, workers: int) -> None:
    """Say the address once the processes answer ``/health`` (asked with the standard library: the
    server's own dependencies hold no HTTP client, and no proxy from the environment is asked)."""
    import http.client
    import time
    import urllib.request

    ask = urllib.request.build_opener(urllib.request.ProxyHandler({})).open
    while True:
        try:
            with ask(f"{base}/health", timeout=2) as answer:
                if answer.status == 200:
                    print(f"baccarat server ready at {base} (database: postgresql, {workers} processes)", flush=True)
                    return
        except (OSError, http.client.HTTPException):  # not listening yet, refused, reset, timed out, half-started
            pass
        time.sleep(0.1)


@app.command()
def operator(
    username: Annotated[str, typer.Argument(help="The operator's username.")],
    database: Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
    = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory.")] = None,
) -> None:
    """Create an operator account; the password is read from the terminal, twice (or one line of stdin)."""
    from baccarat.cli.rounds import _actor
    from baccarat.server.house import accounts, audit
    from baccarat.server.storage.db import connect, transaction
    from baccarat.server.storage.settings import Settings

    def create(s: Session) -> None:
        account = accounts.register(s, username, password, grant=0, role="operator")
        # granting an operator's powers is an operator action: recorded in the same transaction
        audit.record(s, _actor(), "create_operator", f"account {account.id}", {},
                     {"username": account.username, "role": account.role})

    import getpass  # here: every command imports this module (start-up, issue 17)

    if sys.stdin.isatty():  # typed unseen: a slip would make an account nobody can log in to
        password = getpass.getpass("password: ")
        if getpass.getpass("the same password again: ") != password:
            raise UsageProblem("the two passwords typed differ; nothing was created: run the command again")
    else:
        password = sys.stdin.readline().rstrip("\n")
    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        url = ready_database(settings)
        with connect(url) as sessions:
            transaction(sessions, create)
    print(f"operator {username} created")
