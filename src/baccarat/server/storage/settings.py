"""Server settings: from the command line, else the environment, else the defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from baccarat.server.storage.db import sqlite_url

#: Play money granted to a new account (minor units): 1,000.00.
DEFAULT_GRANT = 100_000


def parse_origins(text: str) -> tuple[str, ...]:
    """Origins from a comma-separated list, as a browser writes them (lower case, no trailing slash).

    >>> parse_origins(" https://Casino.example, http://127.0.0.1:9000/ ,")
    ('https://casino.example', 'http://127.0.0.1:9000')
    """
    return tuple(origin.strip().rstrip("/").lower() for origin in text.split(",") if origin.strip())


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("BACCARAT_DATA_DIR", "baccarat-data")))
    database_url: str | None = field(default_factory=lambda: os.environ.get("BACCARAT_DATABASE_URL"))
    grant: int = DEFAULT_GRANT
    #: betting window of the tables made on a fresh database (``BACCARAT_BETTING_SECONDS``; ``--betting-seconds``)
    betting_seconds: float = field(default_factory=lambda: float(os.environ.get("BACCARAT_BETTING_SECONDS", "15")))
    #: how table sockets hear of changes (``BACCARAT_PUSHES``): ``auto`` (LISTEN/NOTIFY on PostgreSQL, polling
    #: on SQLite) or ``poll`` (polling everywhere)
    pushes: str = field(default_factory=lambda: os.environ.get("BACCARAT_PUSHES", "auto"))
    #: with LISTEN/NOTIFY, a table with no notification is read again after this long (``BACCARAT_RESYNC_SECONDS``)
    resync_seconds: float = field(default_factory=lambda: float(os.environ.get("BACCARAT_RESYNC_SECONDS", "1")))
    #: a group commit places its socket bets in a few statements for all (``BACCARAT_BULK_BETS``, ``0`` turns
    #: it off: each bet then runs alone in its savepoint, as before; see :mod:`baccarat.server.live.bulk_bets`)
    bulk_bets: bool = field(default_factory=lambda: os.environ.get("BACCARAT_BULK_BETS", "1") != "0")
    #: WebSocket frames compressed (permessage-deflate) when a client asks (``BACCARAT_WS_DEFLATE=1``).  Off by
    #: default: a state push is about 3 KB, and compressing it for each socket was a third of the push's cost
    #: (2,000 sockets: a settlement wave of 0.3-0.35 s, 0.08-0.2 s without; Socket.IO and uWebSockets ship
    #: with it off for the same reason)
    ws_deflate: bool = field(default_factory=lambda: os.environ.get("BACCARAT_WS_DEFLATE", "0") == "1")
    #: a player whose table sockets all closed keeps the seat this long to reconnect (``BACCARAT_SEAT_GRACE_SECONDS``)
    seat_grace_seconds: float = field(
        default_factory=lambda: float(os.environ.get("BACCARAT_SEAT_GRACE_SECONDS", "60")))
    #: a seated player is stood up after this many dealt rounds in a row without a bet (``BACCARAT_SIT_OUT_ROUNDS``)
    sit_out_rounds: int = field(default_factory=lambda: int(os.environ.get("BACCARAT_SIT_OUT_ROUNDS", "5")))
    #: Browser origins allowed on the table WebSocket besides the server's own (the page it served, whatever
    #: host and port it is reached by, is always allowed): ``BACCARAT_ALLOWED_ORIGINS``, comma-separated.
    allowed_origins: tuple[str, ...] = field(default_factory=lambda: parse_origins(
        os.environ.get("BACCARAT_ALLOWED_ORIGINS", "")))

    @classmethod
    def from_options(cls, *, data_dir: Path | None = None, database: str | None = None,
                     betting_seconds: float | None = None) -> Settings:
        """Command-line options where given, the environment and the defaults elsewhere."""
        defaults = cls()
        return cls(data_dir=data_dir or defaults.data_dir, database_url=database or defaults.database_url,
                   betting_seconds=betting_seconds or defaults.betting_seconds)

    @property
    def url(self) -> str:
        """The database URL: ``--database`` / ``BACCARAT_DATABASE_URL``, else SQLite in the data directory."""
        if self.database_url:
            return self.database_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return sqlite_url(self.data_dir)
