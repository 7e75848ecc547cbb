"""``baccarat backup`` and ``baccarat restore``, on both databases.

A real server takes bets from four players and credits from an operator (signed audit entries) while
``baccarat backup`` runs; the copy restored into an empty database passes ``baccarat audit verify``, its
ledger sums to zero, and every wallet's balance equals the original's at the moment of the copy: the sum of
the original's postings of exactly the ledger movements the copy holds (the ledger is append-only, so the
original still holds them all, and a wallet's balance is the sum of its postings in every committed state).
A restore into a database a server has used, or one holding rows, is refused and changes nothing; a backup
never replaces a file; a missing ``pg_dump`` is said in words.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import sqlite3
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, func, select, text

from baccarat.cli.app import main
from baccarat.server.house import accounts, audit_keys, backup_manifest, wallet
from baccarat.server.storage import backup as backups
from baccarat.server.storage.db import connect, sqlite_url, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.models import Base, LedgerTransaction, Posting, Wallet
from baccarat.server.storage.settings import Settings

from .. import server_kit
from ..conftest import ON_BOTH

pytestmark = pytest.mark.slow  # a real server under load, and the command line as processes
TABLE = 2  # ez-1: punto banco, so players bet without a seat
PLAYERS = 4
PASSWORD = "correct horse"


def baccarat(*arguments: str) -> subprocess.CompletedProcess[str]:
    """The ``baccarat`` command as a process (the environment's audit key file is inherited)."""
    return subprocess.run([server_kit.EXE, *arguments], capture_output=True, text=True, timeout=120)


@contextmanager
def empty_database(database_url: str, folder: Path) -> Iterator[str]:
    """A new, empty database of the same kind as ``database_url``: another PostgreSQL database on the same
    server (dropped afterwards), or an SQLite file in ``folder`` (not made yet)."""
    if not database_url.startswith("postgresql"):
        folder.mkdir(parents=True, exist_ok=True)
        yield sqlite_url(folder)
        return
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield database_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def _fingerprint(url: str) -> dict[str, int | list[str]]:
    """Every table of ours and its row count, with the schema's revisions: what a refused restore must not change."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            counts: dict[str, int | list[str]] = {
                name: connection.scalar(select(func.count()).select_from(table)) or 0
                for name, table in Base.metadata.tables.items()}
            counts["alembic_version"] = sorted(connection.execute(text("SELECT version_num FROM alembic_version"))
                                               .scalars())
    finally:
        engine.dispose()
    return counts


class Load:
    """Players betting and an operator crediting them, through the API, until :meth:`stop`."""

    def __init__(self, base: str, players: list[tuple[int, str]], operator: str) -> None:
        self.base, self.players, self.operator = base, players, operator
        self.acknowledged = 0
        self.refused: collections.Counter[str] = collections.Counter()  # by code: what a slow load was told
        self.credits = 0
        self._stop = threading.Event()
        self._keys = itertools.count()
        self._threads = [threading.Thread(target=self._bet, args=(token,)) for _, token in players]
        self._threads.append(threading.Thread(target=self._credit))

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _bet(self, token: str) -> None:
        with httpx.Client(base_url=self.base, timeout=10) as client:
            while not self._stop.is_set():
                answer = client.post(f"/api/tables/{TABLE}/bets", json={"bets": {"banker": 100}},
                                     headers={"Authorization": f"Bearer {token}",
                                              "Idempotency-Key": f"bet-{next(self._keys):08d}"})
                if answer.status_code == 201:
                    self.acknowledged += 1
                else:  # betting closed, or this wager already at its maximum this round
                    assert answer.status_code in (409, 422), answer.text
                    self.refused[answer.json().get("code", answer.text)] += 1
                time.sleep(0.01)

    def _credit(self) -> None:
        with httpx.Client(base_url=self.base, timeout=10) as client:
            for turn in itertools.count():
                if self._stop.is_set():
                    return
                account = self.players[turn % len(self.players)][0]
                answer = client.post(f"/api/operator/wallets/{account}/credit", json={"amount": 500, "memo": "top up"},
                                     headers={"Authorization": f"Bearer {self.operator}",
                                              "Idempotency-Key": f"credit-{turn:08d}"})
                assert answer.status_code == 200, answer.text
                self.credits += 1
                time.sleep(0.05)

    def wait_for(self, bets: int, within: float = 60.0) -> None:
        deadline = time.monotonic() + within
        while self.acknowledged < bets:
            assert time.monotonic() < deadline, (f"only {self.acknowledged} bets acknowledged in {within} s; "
                                                 f"refused {dict(self.refused)}")
            time.sleep(0.05)


def _sign_up(base: str, database_url: str) -> tuple[list[tuple[int, str]], str]:
    """Four players (id, token) and a cashier's token (made by ``baccarat staff``: an audit entry)."""
    made = subprocess.run([server_kit.EXE, "staff", "pit_boss", "--role", "cashier", "--database", database_url],
                          input=PASSWORD + "\n", capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    players = []
    with httpx.Client(base_url=base, timeout=10) as client:
        for i in range(PLAYERS):
            account = client.post("/api/accounts", json={"username": f"player{i}", "password": PASSWORD}).json()
            token = client.post("/api/sessions", json={"username": f"player{i}", "password": PASSWORD}).json()["token"]
            players.append((account["id"], token))
        operator = client.post("/api/sessions", json={"username": "pit_boss", "password": PASSWORD}).json()["token"]
    return players, operator


def _balances_and_entries(url: str) -> tuple[dict[int, int], set[int]]:
    with connect(url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}  # sums to zero, every wallet
        balances = {account: balance for account, balance in s.execute(select(Wallet.account_id, Wallet.balance))}
        entries = set(s.scalars(select(LedgerTransaction.id)))
    return balances, entries


def _balances_at(url: str, entries: set[int]) -> dict[int, int]:
    """Each wallet's balance in the database at ``url`` counting only the ledger movements ``entries``."""
    with connect(url) as sessions, sessions() as s:
        rows = s.execute(select(Posting.transaction_id, Posting.account, Posting.amount)
                         .where(Posting.account.like("wallet:%"))).all()
        wallets = s.scalars(select(Wallet.account_id)).all()
    balances = dict.fromkeys(wallets, 0)
    for entry, account, amount in rows:
        if entry in entries:
            balances[int(account.split(":", 1)[1])] += amount
    return balances


@ON_BOTH
def test_a_copy_made_under_load_restores_whole(database_url: str, tmp_path: Path, serve):
    server = serve("--database", database_url, "--betting-seconds", "2", data_dir=tmp_path / "served")
    players, operator = _sign_up(server.url, database_url)
    copy = tmp_path / ("copy.sqlite3" if database_url.startswith("sqlite") else "copy.dump")
    with Load(server.url, players, operator) as load:
        load.wait_for(bets=40)
        before = load.acknowledged
        made = baccarat("backup", str(copy), "--database", database_url)
        assert made.returncode == 0, made.stderr
        load.wait_for(bets=load.acknowledged + 40)  # the original goes on past the copy
    assert load.acknowledged > before and load.credits > 0
    server.stop()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600  # password hashes and tokens: the owner's only
    assert not list(tmp_path.glob(".copy*partial*"))

    with empty_database(database_url, tmp_path / "restored") as target:
        restored = baccarat("restore", str(copy), "--database", target)
        assert restored.returncode == 0, restored.stderr
        assert "restored" in restored.stdout

        verified = baccarat("audit", "verify", "--database", target, "--data-dir", str(tmp_path / "verify"))
        assert verified.returncode == 0, verified.stdout + verified.stderr
        signed = re.search(r"audit trail intact: (\d+) entries, (\d+) signed", verified.stdout)
        assert signed is not None and int(signed[1]) == int(signed[2]) >= 2, verified.stdout  # the credits, signed

        balances, entries = _balances_and_entries(target)  # the copy's ledger sums to zero (checked there)
        original_balances, original_entries = _balances_and_entries(database_url)
        assert entries < original_entries  # a copy from the middle of the stream: bets came after it
        assert len(entries) >= 40
        newest = re.search(r"ledger entries, the newest #(\d+)", made.stdout)
        assert newest is not None and int(newest[1]) == max(entries), made.stdout  # the point it reports
        # every wallet as the original had it at the copy: the original's postings of exactly these movements
        assert balances == _balances_at(database_url, entries)
        assert balances != original_balances  # (the test can tell a copy from the end)
        # ... and each movement the copy holds is the original's, posting for posting
        postings = select(Posting.transaction_id, Posting.account, Posting.amount)
        with connect(target) as sessions, sessions() as s:
            held = sorted(tuple(row) for row in s.execute(postings))
        with connect(database_url) as sessions, sessions() as s:
            theirs = sorted(tuple(row) for row in s.execute(postings) if row[0] in entries)
        assert held == theirs

        # the restored database, now used, is refused as a target, and left as it was
        upgrade(target)  # (as a server's start leaves it)
        kept = _fingerprint(target)
        again = baccarat("restore", str(copy), "--database", target)
        assert again.returncode == 1 and "has been used by a baccarat server" in again.stderr, again.stderr
        assert "nothing was changed" in again.stderr
        assert _fingerprint(target) == kept

    # the original, used by the server, is refused too
    kept = _fingerprint(database_url)
    refused = baccarat("restore", str(copy), "--database", database_url)
    assert refused.returncode == 1 and "empty database only" in refused.stderr, refused.stderr
    assert _fingerprint(database_url) == kept


@ON_BOTH
def test_a_backup_never_replaces_a_file_and_wants_a_used_database(database_url: str, tmp_path: Path):
    upgrade(database_url)
    existing = tmp_path / "there.bak"
    existing.write_text("keep me")
    code = main(["backup", str(existing), "--database", database_url])
    assert code == 1 and existing.read_text() == "keep me"
    # a database no server has set up: nothing to copy (exit 4), and no file made
    with empty_database(database_url, tmp_path / "unused") as unused:  # (SQLite: a file not made yet)
        assert main(["backup", str(tmp_path / "b"), "--database", unused]) == 4
    assert not (tmp_path / "b").exists()


def test_a_target_holding_rows_or_of_the_other_kind_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    source = sqlite_url(tmp_path / "source")
    (tmp_path / "source").mkdir()
    upgrade(source)
    copy = tmp_path / "copy.sqlite3"
    assert main(["backup", str(copy), "--database", source]) == 0
    # an SQLite file with someone else's rows (no alembic_version): left as it was
    other = tmp_path / "other.sqlite3"
    engine = create_engine(f"sqlite:///{other}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE notes (body TEXT)"))
        connection.execute(text("INSERT INTO notes VALUES ('mine')"))
    engine.dispose()
    before = other.read_bytes()
    capsys.readouterr()
    assert main(["restore", str(copy), "--database", f"sqlite:///{other}"]) == 1
    assert "is not empty (tables notes)" in capsys.readouterr().err
    assert other.read_bytes() == before
    # a backup of SQLite restores into SQLite only; a file that is no backup is named
    assert main(["restore", str(copy), "--database", "postgresql+psycopg://nobody@127.0.0.1:1/none"]) == 1
    assert "restores into an SQLite database only" in capsys.readouterr().err
    junk = tmp_path / "junk.bak"
    junk.write_text("not a backup")
    assert main(["restore", str(junk), "--data-dir", str(tmp_path / "fresh")]) == 1
    assert "is not a backup made by baccarat backup" in capsys.readouterr().err


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_missing_pg_dump_is_said_in_words(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]):
    upgrade(database_url)
    nowhere = tmp_path / "bin"
    nowhere.mkdir()
    monkeypatch.setenv("PATH", str(nowhere))  # neither on PATH ...
    monkeypatch.setattr(backups, "DEBIAN_BINARIES", tmp_path / "no-postgresql")  # ... nor where Debian puts it
    copy = tmp_path / "copy.dump"
    assert main(["backup", str(copy), "--database", database_url]) == 4
    said = capsys.readouterr().err
    assert "pg_dump is not installed here" in said and "apt install postgresql-client" in said, said
    assert not copy.exists() and not list(tmp_path.glob(".copy*"))
    with empty_database(database_url, tmp_path) as target:
        made = tmp_path / "made.dump"
        made.write_bytes(b"PGDMP" + os.urandom(16))
        backup_manifest.write(made, "postgresql", backups.Summary("0018", 0, 0, None, 0, 0),
                              audit_keys.ensure_key(Settings()))  # a signed manifest: the archive is read next
        assert main(["restore", str(made), "--database", target]) == 4
        assert "pg_restore is not installed here" in capsys.readouterr().err


#: A trigger that pays every settled bet twice (what the attack put in a backup).
PAY_TWICE_SQLITE = ("CREATE TRIGGER pay_twice AFTER INSERT ON settlements BEGIN "
                    "UPDATE wallets SET balance = balance + 1; END")


def test_a_doctored_sqlite_backup_is_refused_before_anything_is_written(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]):
    """The attack as it was run: a backup edited with ``sqlite3`` (+10,000.00 on a wallet, and a trigger that pays
    every bet twice) restored with exit 0, and the server ran the trigger.  Now the backup's signed manifest names
    the file's SHA-256, and a backup holding an object the migrations do not make is refused even when its manifest
    is genuine (the trigger was there when the copy was made)."""
    source = tmp_path / "source"
    source.mkdir()
    upgrade(sqlite_url(source))
    with connect(sqlite_url(source)) as sessions:
        transaction(sessions, lambda s: accounts.register(s, "vera", PASSWORD, grant=10_000))
    copy = tmp_path / "copy.sqlite3"
    assert main(["backup", str(copy), "--data-dir", str(source)]) == 0
    manifest = backup_manifest.manifest_path(copy)
    assert "its manifest signed with the audit trail's key" in capsys.readouterr().out and manifest.exists()
    assert stat.S_IMODE(manifest.stat().st_mode) == 0o600

    edited = tmp_path / "edited.sqlite3"
    edited.write_bytes(copy.read_bytes())
    backup_manifest.manifest_path(edited).write_text(manifest.read_text())
    with closing_sqlite(edited) as db:
        db.execute("UPDATE wallets SET balance = balance + 1000000")
        db.execute(PAY_TWICE_SQLITE)
    target = tmp_path / "target"
    assert main(["restore", str(edited), "--data-dir", str(target)]) == 1
    assert "is not the file its signed manifest describes" in capsys.readouterr().err
    assert not (target / "baccarat.sqlite3").exists()  # nothing written
    # the manifest rewritten to name the edited file: its signature no longer holds
    forged = backup_manifest.manifest_path(edited)
    forged.write_text(manifest.read_text().replace(backup_manifest.file_digest(copy),
                                                   backup_manifest.file_digest(edited)))
    assert main(["restore", str(edited), "--data-dir", str(target)]) == 1
    assert "is not signed by the audit trail's key" in capsys.readouterr().err
    # the trigger put in the database before the copy: the manifest is genuine, the schema is not the migrations'
    with closing_sqlite(source / "baccarat.sqlite3") as db:
        db.execute(PAY_TWICE_SQLITE)
    tainted = tmp_path / "tainted.sqlite3"
    assert main(["backup", str(tainted), "--data-dir", str(source)]) == 0
    capsys.readouterr()
    assert main(["restore", str(tainted), "--data-dir", str(target)]) == 1
    said = capsys.readouterr().err
    assert "holds what the migrations do not make (trigger pay_twice)" in said, said
    assert not (target / "baccarat.sqlite3").exists()
    # no manifest at all: refused; the untouched copy restores
    bare = tmp_path / "bare.sqlite3"
    bare.write_bytes(copy.read_bytes())
    assert main(["restore", str(bare), "--data-dir", str(target)]) == 1
    assert "has no manifest" in capsys.readouterr().err
    assert main(["restore", str(copy), "--data-dir", str(target)]) == 0
    # the manifest holds each table's rows and their digest; the restored database has those rows, and a table
    # changed afterwards is named
    described = json.loads(manifest.read_text())
    assert set(described["digests"]) == set(described["rows"]) and "wallets" in described["digests"]
    with connect(sqlite_url(target)) as sessions, sessions() as s:
        assert backup_manifest.differences(described, backups.summarize(s.connection())) == []
    with closing_sqlite(target / "baccarat.sqlite3") as db:
        db.execute("UPDATE wallets SET balance = balance + 1")
    with connect(sqlite_url(target)) as sessions, sessions() as s:
        assert backup_manifest.differences(described, backups.summarize(s.connection())) == ["wallets"]


@contextmanager
def closing_sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to the SQLite file ``path`` that commits and closes at the end."""
    connection = sqlite3.connect(path)
    try:
        with connection:
            yield connection
    finally:
        connection.close()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_postgresql_archive_with_an_extra_trigger_function_is_refused(database_url: str, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]):
    """A pg_dump archive of a database holding a trigger function the migrations do not make is refused (it was
    restored and ran); the archive of a database as the migrations made it restores (so the list of the schema's
    own objects is the migrations')."""
    upgrade(database_url)
    clean = tmp_path / "clean.dump"
    assert main(["backup", str(clean), "--database", database_url]) == 0
    tainted = _archive_after(database_url, tmp_path / "tainted.dump",
                             "CREATE FUNCTION pay_twice() RETURNS trigger LANGUAGE plpgsql AS "
                             "$$ BEGIN UPDATE wallets SET balance = balance + 1; RETURN NEW; END $$",
                             "CREATE TRIGGER pay_twice AFTER INSERT ON settlements FOR EACH ROW "
                             "EXECUTE FUNCTION pay_twice()")
    capsys.readouterr()
    with empty_database(database_url, tmp_path) as target:
        said = _refused(tainted, target, capsys)
        assert "holds what the migrations do not make" in said and "FUNCTION public pay_twice()" in said, said
        assert "TRIGGER public settlements pay_twice" in said
        assert main(["restore", str(clean), "--database", target]) == 0, capsys.readouterr().err


def _archive_after(database_url: str, archive: Path, *statements: str) -> Path:
    """``archive``, made by ``baccarat backup`` of the database once ``statements`` ran on it."""
    engine = create_engine(database_url)
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))
    engine.dispose()
    assert main(["backup", str(archive), "--database", database_url]) == 0
    return archive


def _refused(archive: Path, target: str, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``baccarat restore`` said refusing ``archive`` into the empty database ``target``, left without a
    table."""
    assert main(["restore", str(archive), "--database", target]) == 1
    said = capsys.readouterr().err
    with create_engine(target).connect() as connection:
        assert not connection.execute(text("SELECT 1 FROM pg_tables WHERE schemaname = 'public'")).first()
    return said


def test_a_sqlite_backup_without_the_ledger_and_audit_triggers_is_refused(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]):
    """The rerun's attack: the triggers that keep the ledger balanced and the audit trail append-only dropped
    before an honest, signed backup; it restored with exit 0 and the server ran without them.  A backup lacking
    what the migrations make is refused, naming it, and nothing is written."""
    source = tmp_path / "source"
    source.mkdir()
    upgrade(sqlite_url(source))
    with closing_sqlite(source / "baccarat.sqlite3") as db:
        db.execute("DROP TRIGGER postings_balance_insert")
        db.execute("DROP TRIGGER audit_log_no_delete")
    stripped = tmp_path / "stripped.sqlite3"
    assert main(["backup", str(stripped), "--data-dir", str(source)]) == 0
    capsys.readouterr()
    target = tmp_path / "target"
    assert main(["restore", str(stripped), "--data-dir", str(target)]) == 1
    said = capsys.readouterr().err
    assert "lacks what the migrations make (trigger audit_log_no_delete; trigger postings_balance_insert)" in said, said
    assert not (target / "baccarat.sqlite3").exists()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_postgresql_archive_without_the_ledger_and_audit_triggers_is_refused(database_url: str, tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]):
    """The same on PostgreSQL: the balanced-ledger and append-only triggers dropped before the dump."""
    upgrade(database_url)
    stripped = _archive_after(database_url, tmp_path / "stripped.dump",
                              "DROP TRIGGER ledger_checks_balance ON ledger_checks",
                              "DROP TRIGGER audit_log_append_only ON audit_log")
    capsys.readouterr()
    with empty_database(database_url, tmp_path) as target:
        said = _refused(stripped, target, capsys)
        assert "lacks what the migrations make" in said, said
        assert "TRIGGER public ledger_checks ledger_checks_balance" in said, said
        assert "TRIGGER public audit_log audit_log_append_only" in said
