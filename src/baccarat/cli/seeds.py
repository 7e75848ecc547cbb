"""``baccarat seeds keygen``: make the key that seals the shoes' server seeds; ``baccarat seeds reseal``: seal every
shoe in play again under a new key (:mod:`baccarat.server.house.seed_keys`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import UsageProblem, app, handle_errors

seeds_app = typer.Typer(help="The key sealing the server seeds of the shoes in play.", no_args_is_help=True)
app.add_typer(seeds_app, name="seeds")

Database = Annotated[str | None, typer.Option(help="SQLAlchemy URL (default: SQLite in the data directory).")]
DataDir = Annotated[Path | None, typer.Option(help="Data directory.")]


def _outside(path: Path, data_dir: Path) -> None:
    if path.resolve().is_relative_to(data_dir.resolve()):
        raise UsageProblem(f"{path} is inside the data directory {data_dir}: keep the seed key outside it (a copy of "
                           "the data would open every seed)")


@seeds_app.command("keygen")
def keygen(key_file: Annotated[Path | None, typer.Option(
        "--key-file", help="Where to write the key (default: BACCARAT_SEED_KEY_FILE, or seed-key in the user's "
                           "configuration directory).")] = None,
           data_dir: DataDir = None) -> None:
    """Make the seed key (32 random bytes, mode 0600, outside the data directory; never in the database).  An
    existing key file is never replaced: it may seal shoes in play."""
    from baccarat.server.house import seed_keys
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir)
        path = key_file if key_file is not None else settings.seed_key_path
        _outside(path, settings.data_dir)
        key = seed_keys.create_key(path)
    print(f"seed key written to {path} (key {seed_keys.key_id(key)}); keep a copy away from this host: without it "
          "the shoes in play cannot be dealt")


@seeds_app.command("reseal")
def reseal(new_key_file: Annotated[Path, typer.Option(
        "--new-key-file", help="The new key's file (made here when it does not exist yet).")],
           database: Database = None, data_dir: DataDir = None) -> None:
    """Seal the seed of every shoe in play again under a new key, opened with the key in use (BACCARAT_SEED_KEY or
    BACCARAT_SEED_KEY_FILE), in one transaction; then point the servers at the new key (BACCARAT_SEED_KEY_FILE) and
    restart them.  Stop the servers first: a server still holding the old key cannot deal a resealed shoe."""
    from baccarat.cli.database import ready_database
    from baccarat.server.house import seed_keys
    from baccarat.server.storage.db import connect, read, transaction
    from baccarat.server.storage.settings import Settings

    with handle_errors():
        settings = Settings.from_options(data_dir=data_dir, database=database)
        _outside(new_key_file, settings.data_dir)
        with connect(ready_database(settings, existing=True)) as sessions:
            old = read(sessions, lambda s: seed_keys.ready_key(s, settings))
            new = (seed_keys.read_key_file(new_key_file) if new_key_file.exists()
                   else seed_keys.create_key(new_key_file))
            if new == old:
                raise UsageProblem(f"{new_key_file} holds the key in use: give a new key's file")
            count = transaction(sessions, lambda s: seed_keys.reseal(s, old, new))
    print(f"{count} shoes in play resealed from key {seed_keys.key_id(old)} to key {seed_keys.key_id(new)} "
          f"({new_key_file}); set BACCARAT_SEED_KEY_FILE={new_key_file} for the servers and start them")
