"""``baccarat serve`` and ``baccarat staff``: the table server, and the staff accounts made at its terminal.

A server that cannot start says why in one line and exits :data:`~baccarat.cli.common.EXIT_UNAVAILABLE`:
the data directory cannot be made, the database cannot be opened, migrated or written, or the
address cannot be listened on.  The database is checked here, before uvicorn starts, because a
failure in the app's start-up (its lifespan) is logged by uvicorn as a traceback and ends the
process with uvicorn's own exit code 3, the code ``verify`` uses for a mismatch.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from baccarat.cli.common import RulesOption, UsageProblem, app, handle_errors
from baccarat.cli.database import open_seeds, ready_database, sign_audit_entries, unavailable

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from baccarat.server.storage.settings import Settings

#: The largest request line plus headers uvicorn buffers (bytes); a bigger head is refused with 400.
MAX_HEAD = 16_384


class LogFormat(StrEnum):
    """``--log-format``: the forms of :mod:`baccarat.server.storage.logs`."""

    json = "json"
    text = "text"


class LogLevel(StrEnum):
    """``--log-level``: the least severe lines written."""

    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"
    critical = "critical"


#: Seconds a stopping process (SIGTERM or SIGINT) waits for its requests in progress and its table sockets'
#: handlers to finish, after it has stopped listening and closed every table socket with 1012 (uvicorn's
#: ``timeout_graceful_shutdown``); what is still running then is cancelled.  The app's own stop follows (the
#: group commit in flight committed, the dealer's lock given up, the audit heads signed): the whole stop takes
#: well under 10 s, the usual grace of a service manager or an orchestrator before SIGKILL.
STOP_GRACE = 5.0


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
    log_format: Annotated[LogFormat | None, typer.Option(
        help="Log lines on stderr: one JSON object each, or text (default: text when stderr is a terminal, "
             "else json).")] = None,
    log_level: Annotated[LogLevel, typer.Option(help="The least severe log lines written (info: an access "
                                                     "line per request and socket).")] = LogLevel.info,
    metrics_port: Annotated[int | None, typer.Option(
        min=0, max=65535, help="Serve Prometheus metrics at /metrics on this port (0: any free port; the ready "
                               "line says which), summed over the --workers processes. Default: none.")] = None,
    metrics_host: Annotated[str, typer.Option(
        help="Address the metrics are served on (keep it private: they show the tables' activity).")]
    = "127.0.0.1",
    metrics_token: Annotated[str | None, typer.Option(
        envvar="BACCARAT_METRICS_TOKEN", show_envvar=True,
        help="Serve the metrics only to a scrape sending 'Authorization: Bearer TOKEN' (401 otherwise); better "
             "given in the environment than on the command line, which other users of the machine can read.")]
    = None,
) -> None:
    """Run the table server; prints its address when it is ready (GET /health answers 200).

    Each --rules file adds its game: served like the built-in games, with a table of its own. The game's
    definition is stored with the data: every process serves it, later starts need not pass the file again,
    and a file that changes a stored game's rules is refused (a change of rules is a new game code).
    """
    import logging.config

    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from baccarat.core.rulesfile import parse_rules, rules_text
    from baccarat.server.api.app import create_app, tune_for_serving
    from baccarat.server.house.audit_keys import ensure_key, fingerprint
    from baccarat.server.live import connections
    from baccarat.server.live import sockets as live
    from baccarat.server.storage import logs
    from baccarat.server.storage.db import connect
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        # before anything logs (the audit key's creation below): every line of the process in one form
        form = log_format.value if log_format else logs.default_format()
        logging.config.dictConfig(logs.config(form, log_level.value))
        # each file read and checked before anything starts; stored with the data once the database is ready
        given = [(Path(path).name, rules_text(path)) for path in rules or ()]
        for origin, text in given:
            parse_rules(text, origin=origin)
        settings = Settings.from_options(data_dir=data_dir, database=database, betting_seconds=betting_seconds)
        # every file the system allows (workers inherit it), and the caps on connections below it: checked here,
        # so that a cap the limit cannot hold is one line (each process's protocol reads them again)
        connections.ConnectionLimits.for_files(connections.raise_file_limit(), settings)
        if workers > 1 and not settings.url.startswith("postgresql"):
            unavailable(f"--workers {workers} needs PostgreSQL (--database postgresql+psycopg://USER@HOST/DB): "
                         "SQLite takes one writer at a time, so one process serves it; run without --workers")
        url = ready_database(settings)
        if given:
            _store_rules(url, given)
        # read (or made, saying so) here: a key that cannot be used is one line, not a traceback
        key = ensure_key(settings)
        settings.check_audit_heads_place()
        with connect(url) as sessions:  # the seed key too: a missing one the shoes in play need is one line
            open_seeds(sessions, settings)
        # h11 rather than httptools (uvicorn's default when installed): httptools holds a request line
        # and headers of any size (a huge header line takes memory in proportion), h11 refuses a head over
        # MAX_HEAD; it runs with a deadline for each request head and caps on the connections held per address
        # and in all (see baccarat.server.live.connections), and an idle connection closes after idle_seconds.
        # ws_max_size refuses a WebSocket frame over live.MAX_FRAME from its header, before buffering it;
        # frames are not compressed unless the settings say so (see Settings.ws_deflate); each received frame is
        # stamped with the moment it was read off the network (a bet's arrival, see baccarat.server.live.arrival)
        # and keeps the place in the connection caps of the request it was upgraded from.
        # X-Forwarded-For only from a proxy named on the command line: uvicorn trusts 127.0.0.1 by default,
        # so any local client could pick the address the per-address login limits count.
        # On SIGTERM uvicorn stops listening, closes every table socket with 1012 ("service restart": the page
        # reconnects at once, to another process behind a proxy) and lets the connections in progress finish
        # for at most STOP_GRACE seconds before the app stops (docs: "Stopping and restarting").
        # uvicorn's loggers and each --workers process set up like this one; its access log replaced by
        # baccarat.server.live.access's lines (no query string, a request id, the account and table)
        options = dict(host=host, port=port, log_config=logs.config(form, log_level.value), access_log=False,
                       log_level=log_level.value, http=connections.GuardedH11Protocol,
                       h11_max_incomplete_event_size=MAX_HEAD, timeout_keep_alive=settings.idle_seconds,
                       ws=connections.CountedWebSocketProtocol, ws_max_size=live.MAX_FRAME,
                       ws_per_message_deflate=settings.ws_deflate, proxy_headers=bool(trusted_proxy),
                       forwarded_allow_ips=list(trusted_proxy or []), timeout_graceful_shutdown=STOP_GRACE)
        # the metrics' address is in the ready line; with --workers each process writes its values to files
        # in a fresh directory and this one serves their sum (see baccarat.server.storage.metrics)
        # the key history exports are signed with (GET /api/fairness/key): the house publishes this fingerprint
        ready_notes = f"; exports signed by {fingerprint(key.public_key())}"
        if metrics_port is not None:
            ready_notes += _serve_metrics(metrics_host, metrics_port, workers, metrics_token)
        if workers > 1:
            _serve_workers(settings, url, workers, options, ready_notes)
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
                          f"(database: {settings.url.split('://')[0]}{ready_notes})", flush=True)

        server.startup = startup  # type: ignore[method-assign]
        try:
            server.run()
        except SystemExit as stopped:
            if stopped.code != STARTUP_FAILURE:
                raise
            # uvicorn has logged why (the address is in use, or the app's start-up failed); exit 3 is verify's
            unavailable(f"the table server did not start on {host}:{port}")


def _store_rules(url: str, given: list[tuple[str, str]]) -> None:
    """Store the definitions of the --rules files (``(file name, text)``) with the data, in one transaction: a file
    that would change a stored game's rules is refused (handle_errors says why) and none is stored."""
    from baccarat.server.playing import definitions
    from baccarat.server.storage.db import connect, transaction

    with connect(url) as sessions:
        transaction(sessions, lambda s: [definitions.store(s, text, origin=origin) for origin, text in given])


def _serve_metrics(host: str, port: int, workers: int, token: str | None = None) -> str:
    """Serve ``/metrics`` on ``host``:``port`` from this process (a thread), and say where for the ready line
    (with ``token``, only to scrapes that send it).
    With several ``workers`` they write their values to a fresh directory (removed at exit), named in the
    environment they inherit before they import :mod:`prometheus_client`; this process serves their sum."""
    import atexit
    import os
    import shutil
    import tempfile

    from baccarat.server.storage import metrics

    shared = None
    if workers > 1:
        shared = Path(tempfile.mkdtemp(prefix="baccarat-metrics-"))
        atexit.register(shutil.rmtree, shared, ignore_errors=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(shared)
    try:
        bound = metrics.serve(host, port, shared, token or None)
    except OSError as error:
        unavailable(f"cannot serve the metrics on {host}:{port}: {error.strerror or error}")
    shown = f"[{host}]" if ":" in host else host
    return f"; metrics at http://{shown}:{bound}/metrics" + (" (bearer token)" if token else "")


#: Seconds a worker has to answer the supervisor's health check before it is killed and replaced.  uvicorn's 5 s
#: killed three workers still starting under load (their imports and migrations check take seconds on a busy
#: machine), and the instance took 40 s to be ready; a worker that hangs is still replaced, 30 s later.
WORKER_HEALTHCHECK_SECONDS = 30


def _serve_workers(settings: Settings, url: str, workers: int, options: dict[str, object],
                   metrics_note: str = "") -> None:
    """``workers`` uvicorn processes on one listening socket, each its own app (made from the environment:
    each runs the dealer election and its own table sockets); the address is printed once one answers."""
    import os
    import threading

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    os.environ.update(BACCARAT_DATABASE_URL=url, BACCARAT_BETTING_SECONDS=str(settings.betting_seconds),
                      BACCARAT_DATA_DIR=str(settings.data_dir))
    config = uvicorn.Config("baccarat.server.api.app:served_app", factory=True, workers=workers,
                            timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS, **options)  # type: ignore[arg-type]
    try:
        sock = config.bind_socket()
    except SystemExit:
        unavailable(f"the table server did not start on {config.host}:{config.port}")
    address = sock.getsockname()
    base = f"http://{address[0]}:{address[1]}"
    threading.Thread(target=_announce_when_ready, args=(base, workers, metrics_note), daemon=True).start()
    Multiprocess(config, sockets=[sock]).run()


def _announce_when_ready(base: str, workers: int, metrics_note: str = "") -> None:
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
                    print(f"baccarat server ready at {base} (database: postgresql, {workers} processes"
                          f"{metrics_note})", flush=True)
                    return
        except (OSError, http.client.HTTPException):  # not listening yet, refused, reset, timed out, half-started
            pass
        time.sleep(0.1)


@app.command()
def staff(
    username: Annotated[str, typer.Argument(help="The staff account's username.")],
    role: Annotated[str, typer.Option(help="cashier, pit_boss, surveillance or admin (who gives the others their "
                                            "roles in the console): see docs/operator.md.")] = "admin",
    database: Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
    = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory.")] = None,
) -> None:
    """Create a staff account (the first administrator, say); the password is read from the terminal, twice (or
    one line of stdin)."""
    from baccarat.cli.rounds import _actor
    from baccarat.server.house import accounts, roles
    from baccarat.server.operator import staff as staff_accounts
    from baccarat.server.storage.db import connect, transaction
    from baccarat.server.storage.settings import Settings

    if role not in roles.STAFF:
        raise UsageProblem(f"--role {role!r}: a staff role is one of {', '.join(roles.STAFF)}; nothing was created")

    def create(s: Session) -> None:
        # giving staff powers is recorded in the same transaction as the account
        staff_accounts.added(s, _actor(), accounts.register(s, username, password, grant=0, role=role))

    import getpass  # here: every command imports this module, and the others should start fast

    if sys.stdin.isatty():  # typed unseen: a slip would make an account nobody can log in to
        password = getpass.getpass("password: ")
        if getpass.getpass("the same password again: ") != password:
            raise UsageProblem("the two passwords typed differ; nothing was created: run the command again")
    else:
        password = sys.stdin.readline().rstrip("\n")
    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        accounts.use_password_cost(settings.password_cost)
        url = ready_database(settings)
        with connect(url) as sessions:
            sign_audit_entries(sessions, settings)
            transaction(sessions, create)
    print(f"{role} {username} created")
