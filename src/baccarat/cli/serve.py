"""``baccarat serve`` and ``baccarat operator``: the table server (work in progress: accounts and wallets)."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli import app, handle_errors


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
) -> None:
    """Run the table server; prints its address when it is ready (GET /health answers 200)."""
    import uvicorn

    from baccarat.server.app import create_app
    from baccarat.server.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database, betting_seconds=betting_seconds)
        config = uvicorn.Config(create_app(settings), host=host, port=port, log_level="warning")
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
        server.run()


@app.command()
def operator(
    username: Annotated[str, typer.Argument(help="The operator's username.")],
    database: Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
    = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory.")] = None,
) -> None:
    """Create an operator account; the password is read from the terminal (or one line of stdin)."""
    from baccarat.server import accounts
    from baccarat.server.db import connect, transaction
    from baccarat.server.migrate import upgrade
    from baccarat.server.settings import Settings

    password = getpass.getpass("password: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        upgrade(settings.url)
        with connect(settings.url) as sessions:
            transaction(sessions, lambda s: accounts.register(s, username, password, grant=0, role="operator"))
    print(f"operator {username} created")
