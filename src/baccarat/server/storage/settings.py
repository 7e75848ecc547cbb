"""Server settings: from the command line, else the environment (``BACCARAT_*``), else the defaults.

Read with pydantic-settings: each field is read from the variable named ``BACCARAT_`` and the field's
name in capitals.  A value that cannot be used is refused in words naming the variable, as a
:class:`~baccarat.core.errors.ConfigurationError` (the command line prints it and exits 1):

>>> import os
>>> os.environ["BACCARAT_BETTING_SECONDS"] = "soon"
>>> Settings()
Traceback (most recent call last):
...
baccarat.core.errors.ConfigurationError: BACCARAT_BETTING_SECONDS: 'soon' is not a number of seconds (e.g. 15)
>>> del os.environ["BACCARAT_BETTING_SECONDS"]
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from baccarat.core.errors import ConfigurationError
from baccarat.server.storage.db import sqlite_url

#: Play money granted to a new account (minor units): 1,000.00.
DEFAULT_GRANT = 100_000
#: The variables' common prefix.
PREFIX = "BACCARAT_"


def parse_origins(text: str) -> tuple[str, ...]:
    """Origins from a comma-separated list, as a browser writes them (lower case, no trailing slash).

    >>> parse_origins(" https://Casino.example, http://127.0.0.1:9000/ ,")
    ('https://casino.example', 'http://127.0.0.1:9000')
    """
    return tuple(origin.strip().rstrip("/").lower() for origin in text.split(",") if origin.strip())


#: What each kind of value should look like, for the refusal's words.
_EXPECTED = {
    "betting_seconds": "a number of seconds (e.g. 15)",
    "resync_seconds": "a number of seconds (e.g. 1)",
    "seat_grace_seconds": "a number of seconds (e.g. 60)",
    "sit_out_rounds": "a whole number of rounds (e.g. 5)",
    "grant": "a whole amount in cents (e.g. 100000)",
    "pushes": "auto or poll",
    "bulk_bets": "1 (on) or 0 (off)",
    "ws_deflate": "1 (on) or 0 (off)",
    "head_seconds": "a number of seconds (e.g. 10)",
    "idle_seconds": "a number of seconds (e.g. 5)",
    "max_connections": "a whole number of connections (e.g. 10000)",
    "connections_per_address": "a whole number of connections (e.g. 256)",
    "audit_head_seconds": "a number of seconds (e.g. 60)",
    "password_cost": "a whole number from 1 to 20 (log2 of scrypt's N; e.g. 14)",
    "credit_approval_above": "a whole amount in cents (e.g. 1000000)",
}


class Settings(BaseSettings):
    """Where the server keeps its data and how it runs; immutable once read."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, extra="forbid")

    #: where the SQLite database lives when no database URL is given (``BACCARAT_DATA_DIR``; ``--data-dir``)
    data_dir: Path = Path("baccarat-data")
    #: a database URL, e.g. ``postgresql+psycopg://user@host/name`` (``BACCARAT_DATABASE_URL``; ``--database``)
    database_url: str | None = None
    #: play money a new account receives, in cents (``BACCARAT_GRANT``)
    grant: Annotated[int, Field(ge=0)] = DEFAULT_GRANT
    #: betting window of the tables made on a fresh database (``BACCARAT_BETTING_SECONDS``; ``--betting-seconds``)
    betting_seconds: Annotated[float, Field(gt=0)] = 15.0
    #: how table sockets hear of changes (``BACCARAT_PUSHES``): ``auto`` (LISTEN/NOTIFY on PostgreSQL, polling
    #: on SQLite) or ``poll`` (polling everywhere)
    pushes: Literal["auto", "poll"] = "auto"
    #: with LISTEN/NOTIFY, a table with no notification is read again after this long (``BACCARAT_RESYNC_SECONDS``)
    resync_seconds: Annotated[float, Field(gt=0)] = 1.0
    #: a group commit places its socket bets in a few statements for all (``BACCARAT_BULK_BETS``, ``0`` turns
    #: it off: each bet then runs alone in its savepoint; see :mod:`baccarat.server.playing.bulk_bets`)
    bulk_bets: bool = True
    #: WebSocket frames compressed (permessage-deflate) when a client asks (``BACCARAT_WS_DEFLATE=1``).  Off by
    #: default: compressing each state push for each socket costs more than the bytes it saves on a table's
    #: settlement wave (the benchmarks page has the figures); popular WebSocket servers ship with it off too
    ws_deflate: bool = False
    #: a player whose table sockets all closed keeps the seat this long to reconnect (``BACCARAT_SEAT_GRACE_SECONDS``)
    seat_grace_seconds: Annotated[float, Field(ge=0)] = 60.0
    #: a seated player is stood up after this many betting windows in a row without a bet of theirs, rounds nobody
    #: bet on included, connected or not (``BACCARAT_SIT_OUT_ROUNDS``)
    sit_out_rounds: Annotated[int, Field(ge=1)] = 5
    #: Browser origins allowed on the table WebSocket besides the server's own (the page it served, whatever
    #: host and port it is reached by, is always allowed): ``BACCARAT_ALLOWED_ORIGINS``, comma-separated.
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = ()
    #: a connection whose request head is not read in full this long after it opened (or after its first byte
    #: following an idle wait) is closed (``BACCARAT_HEAD_SECONDS``; see :mod:`baccarat.server.live.connections`)
    head_seconds: Annotated[float, Field(gt=0)] = 10.0
    #: a connection with no request this long after its last answer is closed (``BACCARAT_IDLE_SECONDS``)
    idle_seconds: Annotated[float, Field(gt=0)] = 5.0
    #: connections one server process holds at once; more are answered 503 at once (``BACCARAT_MAX_CONNECTIONS``;
    #: by default the file limit less a tenth, at least 64, kept for the database and logs)
    max_connections: Annotated[int | None, Field(ge=1)] = None
    #: connections one client address holds at once in a process, a trusted proxy's not capped; more are answered
    #: 503 at once (``BACCARAT_CONNECTIONS_PER_ADDRESS``; by default a quarter of the process's cap, at most 256)
    connections_per_address: Annotated[int | None, Field(ge=1)] = None
    #: the audit trail's Ed25519 signing key (``BACCARAT_AUDIT_KEY_FILE``): a file outside the data directory,
    #: made (mode 0600, the public key beside it as ``.pub``) at the first start when there is none; by
    #: default ``audit-signing-key.pem`` in the user's configuration directory (:attr:`audit_key_path`)
    audit_key_file: Path | None = None
    #: the signing key itself (``BACCARAT_AUDIT_KEY``: PEM, or its 32 bytes in base64), instead of a file
    audit_key: SecretStr | None = None
    #: the file of the key that seals the server seeds of shoes in play (``BACCARAT_SEED_KEY_FILE``; by default
    #: ``seed-key`` in the user's configuration directory: :attr:`seed_key_path`)
    seed_key_file: Path | None = None
    #: the seed key itself (``BACCARAT_SEED_KEY``: its 32 bytes in base64), instead of a file
    seed_key: SecretStr | None = None
    #: where the signed heads of the audit trail are appended, one JSON line each
    #: (``BACCARAT_AUDIT_HEADS_FILE``; by default beside the signing key, outside the data directory)
    audit_heads_file: Path | None = None
    #: a heads file inside the data directory is kept there knowingly (``BACCARAT_AUDIT_HEADS_IN_DATA_DIR``)
    audit_heads_in_data_dir: bool = False
    #: how often a server process signs the newest audit entry into the heads file besides right after each entry
    #: it records (``BACCARAT_AUDIT_HEAD_SECONDS``: catches the entries of processes that sign none themselves)
    audit_head_seconds: Annotated[float, Field(gt=0)] = 60.0
    #: the cost of new password hashes, log2 of scrypt's N (``BACCARAT_PASSWORD_COST``): 14, 16 MiB and tens of
    #: milliseconds of a core per hash; lower only for tests, where thousands of accounts are made
    password_cost: Annotated[int, Field(ge=1, le=20)] = 14
    #: a cashier's credit that takes a player's credits of the last 24 hours above this amount (minor units) waits
    #: for a second member of staff's approval (``BACCARAT_CREDIT_APPROVAL_ABOVE``; by default 10,000.00)
    credit_approval_above: Annotated[int, Field(ge=0)] = 1_000_000

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise ConfigurationError(_in_words(error, given=values)) from None

    @field_validator("database_url", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _origins(cls, value: object) -> object:
        return parse_origins(value) if isinstance(value, str) else value

    @classmethod
    def from_options(cls, *, data_dir: Path | None = None, database: str | None = None,
                     betting_seconds: float | None = None) -> Settings:
        """Command-line options where given, the environment and the defaults elsewhere."""
        given: dict[str, object] = {"data_dir": data_dir, "database_url": database,
                                    "betting_seconds": betting_seconds}
        return cls(**{name: value for name, value in given.items() if value})

    @property
    def audit_key_path(self) -> Path:
        """The audit signing key's file: ``BACCARAT_AUDIT_KEY_FILE``, else ``audit-signing-key.pem`` in the
        user's configuration directory (``~/.config/baccarat`` on Linux), away from the database."""
        if self.audit_key_file is not None:
            return self.audit_key_file
        import click  # (Typer's and uvicorn's own dependency: its per-platform configuration directory)

        return Path(click.get_app_dir("baccarat")) / "audit-signing-key.pem"

    @property
    def seed_key_path(self) -> Path:
        """The seed key's file (:mod:`baccarat.server.house.seed_keys`): ``BACCARAT_SEED_KEY_FILE``, else ``seed-key``
        beside the audit signing key's default, in the user's configuration directory, away from the database."""
        if self.seed_key_file is not None:
            return self.seed_key_file
        import click

        return Path(click.get_app_dir("baccarat")) / "seed-key"

    @property
    def audit_heads_path(self) -> Path:
        """The audit trail's signed heads: ``BACCARAT_AUDIT_HEADS_FILE``, else ``audit-heads-DATABASE.jsonl`` beside
        the signing key's file (the user's configuration directory by default), outside the data directory: a
        copy or backup of the data holds no heads, and whoever replaces the database does not replace them with
        it.  ``DATABASE``: 12 hex digits of the SHA-256 of the database's URL without its password, one file per
        database."""
        if self.audit_heads_file is not None:
            return self.audit_heads_file
        import hashlib

        from sqlalchemy.engine import make_url

        # (the URL the data directory gives, without making the directory as :attr:`url` does)
        url = self.database_url or sqlite_url(self.data_dir)
        which = make_url(url).render_as_string(hide_password=True)  # any password as ***
        return self.audit_key_path.parent / f"audit-heads-{hashlib.sha256(which.encode()).hexdigest()[:12]}.jsonl"

    def check_audit_heads_place(self) -> None:
        """Refuse a heads file inside the data directory (``BACCARAT_AUDIT_HEADS_FILE``) unless
        ``BACCARAT_AUDIT_HEADS_IN_DATA_DIR`` says to keep it there knowingly: whoever copies, restores or edits the
        data would hold the heads too."""
        from baccarat.core.errors import ConfigurationError

        if self.audit_heads_path.resolve().is_relative_to(self.data_dir.resolve()) and not self.audit_heads_in_data_dir:
            raise ConfigurationError(
                f"BACCARAT_AUDIT_HEADS_FILE: {self.audit_heads_path} is inside the data directory {self.data_dir}: "
                "keep the audit trail's signed heads outside it (unset it for the default, beside the signing key), "
                "or set BACCARAT_AUDIT_HEADS_IN_DATA_DIR=1 to keep them there knowingly")

    @property
    def url(self) -> str:
        """The database URL: ``--database`` / ``BACCARAT_DATABASE_URL``, else SQLite in the data directory."""
        if self.database_url:
            return self.database_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return sqlite_url(self.data_dir)


def _in_words(error: ValidationError, *, given: Mapping[str, object]) -> str:
    """The first problem of ``error``, naming the variable (or the option's field) and what it should be."""
    problem = error.errors()[0]
    field = str(problem["loc"][0]) if problem["loc"] else ""
    where = field if field in given else PREFIX + field.upper()
    expected = _EXPECTED.get(field)
    value = problem.get("input")
    limits = problem.get("ctx") or {}
    if expected is None:
        return f"{where}: {problem['msg']}"
    if "gt" in limits:
        return f"{where}: {value!r} is too small: give more than {limits['gt']:g}"
    if "ge" in limits:
        return f"{where}: {value!r} is too small: give {limits['ge']:g} or more"
    return f"{where}: {value!r} is not {expected}"
