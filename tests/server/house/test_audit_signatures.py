"""The audit trail's signatures (issue 29, item 5): the hash chain's formula is published, so whoever can
write the database could edit an entry, recompute every ``previous`` and ``digest`` and have
``baccarat audit verify`` say "intact".  Each entry is now signed with an Ed25519 key the database never
holds, and the newest head is signed into a file of its own: the rewrite, a removed signature and the
newest entries removed are each named, with the public key alone."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
import threading
from datetime import UTC
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, inspect, select, text, update
from sqlalchemy.orm import Session

from baccarat.cli.app import main
from baccarat.core.errors import ConfigurationError
from baccarat.server.api.app import create_app
from baccarat.server.house import audit, audit_heads, audit_keys
from baccarat.server.storage.db import connect, session_factory, transaction
from baccarat.server.storage.models import AuditEntry
from baccarat.server.storage.settings import Settings


@pytest.fixture
def key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A key pair of this test's own (outside its data directory), the configured one."""
    path = tmp_path_factory.mktemp("keys") / "audit-signing-key.pem"
    audit_keys.create_key(path)
    monkeypatch.setenv("BACCARAT_AUDIT_KEY_FILE", str(path))
    return path


@pytest.fixture
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test's own outside its data directory (an auditor's machine, another disk)."""
    return tmp_path_factory.mktemp("elsewhere")


def _private(path: Path) -> Ed25519PrivateKey:
    return audit_keys.parse_private(path.read_text(), where=str(path))


def _record(engine: Engine, count: int, signer: Ed25519PrivateKey | None) -> None:
    """``count`` operator actions, signed by ``signer`` (None: as before the key existed)."""
    sessions = session_factory(engine)
    if signer is not None:
        audit.use_key(sessions, signer)
    for i in range(count):
        transaction(sessions, lambda s, i=i: audit.record(s, "pit_boss", "change_limits", f"table {i + 1}",
                                                          {"balance": 0}, {"balance": 100 * (i + 1)}))


def _unprotect(s: Session) -> None:
    """What someone with the database owner's rights can do first: drop the append-only trigger."""
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("DROP TRIGGER audit_log_append_only ON audit_log"))
    else:
        s.execute(text("DROP TRIGGER audit_log_no_update"))
        s.execute(text("DROP TRIGGER audit_log_no_delete"))


def _published_digest(entry: AuditEntry, previous: str) -> str:
    """The digest as the documentation publishes it (written out here, as an attacker would)."""
    at = entry.at.astimezone(UTC) if entry.at.tzinfo is not None else entry.at.replace(tzinfo=UTC)  # in UTC
    body = json.dumps({"id": entry.id, "at": at.isoformat(), "actor_id": entry.actor_id, "actor": entry.actor,
                       "action": entry.action, "target": entry.target, "before": entry.before,
                       "after": entry.after}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def _rewrite(engine: Engine, entry_id: int, *, strip_signatures: bool = False, **changes: object) -> None:
    """Edit entry ``entry_id`` and recompute every ``previous`` and ``digest`` from there on with the
    published formula (and, if asked, remove every signature)."""
    def work(s: Session) -> None:
        _unprotect(s)
        if strip_signatures:
            s.execute(update(AuditEntry).values(signature=None))
        s.execute(update(AuditEntry).where(AuditEntry.id == entry_id).values(**changes))
        s.expire_all()
        previous = audit.GENESIS
        for entry in s.scalars(select(AuditEntry).order_by(AuditEntry.id)):
            if entry.id >= entry_id:
                s.execute(update(AuditEntry).where(AuditEntry.id == entry.id).values(
                    previous=previous, digest=_published_digest(entry, previous)))
                entry = s.get(AuditEntry, entry.id, populate_existing=True)
            previous = entry.digest
    transaction(session_factory(engine), work)


def _options(database_url: str, data_dir: Path) -> list[str]:
    return ["--data-dir", str(data_dir)] + ([] if database_url.startswith("sqlite") else ["--database", database_url])


def test_a_rewritten_trail_with_recomputed_digests_is_named_bad_signature(engine, database_url, tmp_path, key,
                                                                          elsewhere, monkeypatch, capsys):
    _record(engine, 4, _private(key))
    options = _options(database_url, tmp_path)
    assert main(["audit", "verify", *options]) == 0
    assert "intact: 4 entries, 4 signed;" in capsys.readouterr().out
    _rewrite(engine, 2, after='{"balance":999999}')
    with session_factory(engine)() as s:  # the hash chain alone (all there was before) checks
        assert audit.verify(s)["ok"] and s.get(AuditEntry, 2).after == '{"balance":999999}'
    # with the public key alone: no private key configured on this machine
    monkeypatch.setenv("BACCARAT_AUDIT_KEY_FILE", str(elsewhere / "no-key-here.pem"))
    assert main(["audit", "verify", "--public-key", str(audit_keys.public_key_path(key)), *options]) == 3
    said = capsys.readouterr().out
    assert "audit trail BROKEN at entry 2: bad signature" in said
    assert audit_keys.fingerprint(_private(key).public_key()) in said


def test_an_intact_trail_checks_with_the_public_key_alone_and_prints_its_fingerprint(engine, database_url, tmp_path,
                                                                                   key, elsewhere, monkeypatch, capsys):
    _record(engine, 3, _private(key))
    public = elsewhere / "auditor-copy.pub"
    public.write_bytes(audit_keys.public_key_path(key).read_bytes())
    monkeypatch.setenv("BACCARAT_AUDIT_KEY_FILE", str(elsewhere / "no-key-here.pem"))
    options = _options(database_url, tmp_path)
    assert main(["audit", "verify", "--public-key", str(public), *options]) == 0
    said = capsys.readouterr().out
    assert f"signatures checked with the public key {audit_keys.fingerprint(_private(key).public_key())}" in said
    assert "intact: 3 entries, 3 signed;" in said
    # without any public key the signed entries cannot be called intact
    assert main(["audit", "verify", *options]) == 2
    said = capsys.readouterr()
    assert "3 signed entries were not checked: no public key" in said.err and "intact" not in said.out
    # another key's public half: every signature is wrong
    other = elsewhere / "other.pem"
    audit_keys.create_key(other)
    assert main(["audit", "verify", "--public-key", str(audit_keys.public_key_path(other)), *options]) == 3
    assert "BROKEN at entry 1: bad signature" in capsys.readouterr().out


def test_entries_made_before_the_key_existed_are_unsigned_not_broken(engine, database_url, tmp_path, key, capsys):
    _record(engine, 2, None)
    _record(engine, 2, _private(key))
    options = _options(database_url, tmp_path)
    assert main(["audit", "verify", *options]) == 0
    assert "intact: 4 entries, 2 signed, 2 unsigned (made before the signing key existed);" in capsys.readouterr().out
    _record(engine, 1, None)  # written without the key after signed ones: not "made before the key existed"
    assert main(["audit", "verify", *options]) == 3
    assert "BROKEN at entry 5: it is unsigned after signed entries" in capsys.readouterr().out


def test_an_edit_that_also_removes_the_signatures_is_named(engine, database_url, tmp_path, key, capsys):
    _record(engine, 3, _private(key))
    _rewrite(engine, 3, signature=None, after='{"balance":1}')
    options = _options(database_url, tmp_path)
    assert main(["audit", "verify", *options]) == 3
    assert "BROKEN at entry 3: it is unsigned after signed entries" in capsys.readouterr().out


def test_removing_the_newest_entries_after_a_head_was_signed_is_caught(engine, database_url, tmp_path, key, elsewhere,
                                                                       capsys):
    signer = _private(key)
    _record(engine, 5, signer)
    heads = elsewhere / "heads.jsonl"
    with session_factory(engine)() as s:
        signed = audit_heads.sign_head(s, signer, heads)
        assert signed is not None and signed["entry"] == 5 and signed["signed_from"] == 1
        assert audit_heads.sign_head(s, signer, heads, last=signed) == signed  # unchanged: no second line
    assert len(heads.read_text().splitlines()) == 1

    def remove(s: Session) -> None:
        _unprotect(s)
        s.execute(delete(AuditEntry).where(AuditEntry.id >= 4))
    transaction(session_factory(engine), remove)
    options = _options(database_url, tmp_path)
    assert main(["audit", "verify", *options]) == 0  # the shorter chain checks on its own
    assert "intact: 3 entries" in capsys.readouterr().out
    assert main(["audit", "verify", "--heads", str(heads), *options]) == 3
    assert ("BROKEN at entry 4: it is missing, yet entry 5 was signed as the head"
            in capsys.readouterr().out)


def test_a_signed_head_catches_signatures_stripped_from_the_whole_trail(engine, database_url, tmp_path, key, capsys):
    """Removing every signature would make the whole trail look older than the key; the signed head
    says from which entry on they are signed."""
    signer = _private(key)
    _record(engine, 3, signer)
    heads = Settings(data_dir=tmp_path, database_url=database_url).audit_heads_path  # the default: checked
    # without --heads
    with session_factory(engine)() as s:
        audit_heads.sign_head(s, signer, heads)
    _record(engine, 1, signer)
    _rewrite(engine, 4, strip_signatures=True, after='{"balance":0}')  # after the head: its digest is not held
    options = _options(database_url, tmp_path)
    assert main(["audit", "verify", *options]) == 3
    assert ("BROKEN at entry 1: it is unsigned, yet a signed head says entries are signed from entry 1"
            in capsys.readouterr().out)


def test_an_edited_heads_file_is_named(engine, database_url, tmp_path, key, capsys):
    signer = _private(key)
    _record(engine, 2, signer)
    heads = Settings(data_dir=tmp_path, database_url=database_url).audit_heads_path
    with session_factory(engine)() as s:
        audit_heads.sign_head(s, signer, heads)
    line = json.loads(heads.read_text())
    heads.write_text(json.dumps({**line, "entry": 1}) + "\n")  # to make removing entry 2 pass
    assert main(["audit", "verify", *_options(database_url, tmp_path)]) == 3
    assert f"BROKEN: heads file {heads} line 1: bad signature" in capsys.readouterr().out


def test_a_last_head_line_cut_short_states_nothing(tmp_path):
    signer = Ed25519PrivateKey.generate()
    head: audit_heads.Head = {"entry": 1, "digest": "a" * 64, "at": "2026-01-01T00:00:00+00:00", "signed_from": 1}
    path = tmp_path / "heads.jsonl"
    audit_heads.append_line(path, audit_heads.head_line(signer, head))
    audit_heads.append_line(path, audit_heads.head_line(signer, {**head, "entry": 2})[:40])  # the host stopped
    assert [h["entry"] for h in audit_heads.read_heads(path, signer.public_key())] == [1]
    audit_heads.append_line(path, b"\n")  # a torn line followed by more is not a cut-short write
    with pytest.raises(audit_heads.BadHeads, match="line 2: not a signed head"):
        audit_heads.read_heads(path, signer.public_key())


def test_heads_appended_at_once_by_many_writers_stay_whole_lines(tmp_path):
    """Server processes on one database may share the heads file: one write with O_APPEND per line."""
    signer = Ed25519PrivateKey.generate()
    path = tmp_path / "heads.jsonl"

    def write(worker: int) -> None:
        for i in range(200):
            audit_heads.append_line(path, audit_heads.head_line(signer, {
                "entry": worker * 1000 + i, "digest": f"{worker:064x}", "at": "2026-01-01T00:00:00+00:00",
                "signed_from": 1}))

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(audit_heads.read_heads(path, signer.public_key())) == 1600


def test_the_server_signs_its_entries_heads_at_once_and_the_others_on_schedule(manual_time, database_url, tmp_path,
                                                                               key):
    """An entry the server records is under a signed head as soon as its transaction commits (it waited up to a
    minute: an operator's credit whose entry was deleted 3 s later was never covered); an entry another process
    recorded is signed at the next turn (``audit_head_seconds`` of the server's time); a turn whose head has not
    moved adds no line."""
    settings = Settings(data_dir=tmp_path, database_url=database_url, audit_head_seconds=2)
    heads = settings.audit_heads_path
    public = _private(key).public_key()
    with TestClient(create_app(settings)) as client:
        sessions = client.app.state.sessions  # type: ignore[attr-defined]
        transaction(sessions, lambda s: audit.record(s, "pit_boss", "change_limits", "table 1", {}, {"amount": 1}))
        signed = audit_heads.read_heads(heads, public)
        assert [h["entry"] for h in signed] == [1] and signed[0]["signed_from"] == 1  # at once, no time passed
        manual_time.advance(3 * 2)  # three turns: the head has not moved, so no line is added
        assert len(audit_heads.read_heads(heads, public)) == 1
        with sessions() as s:
            check = audit.verify(s, public=public, heads=signed)
            assert check["ok"] and check["signed"] == 1 and check["heads"] == 1
            assert s.get(AuditEntry, 1).signature is not None
        with connect(settings.url) as elsewhere:  # another process's sessions: it signs no head here
            audit.use_key(elsewhere, _private(key))
            transaction(elsewhere, lambda s: audit.record(s, "pit_boss", "change_limits", "table 1", {},
                                                          {"amount": 2}))
        assert len(audit_heads.read_heads(heads, public)) == 1
        manual_time.advance(2)
        assert [h["entry"] for h in audit_heads.read_heads(heads, public)] == [1, 2]


def test_the_server_signs_the_head_when_it_stops(database_url, tmp_path, key):
    settings = Settings(data_dir=tmp_path, database_url=database_url, audit_head_seconds=3600)
    heads = settings.audit_heads_path
    with TestClient(create_app(settings)):
        with connect(settings.url) as elsewhere:  # entries of another process: not signed here at once
            audit.use_key(elsewhere, _private(key))
            for amount in (1, 2):
                transaction(elsewhere, lambda s, a=amount: audit.record(s, "pit_boss", "change_limits", "table 1",
                                                                        {}, {"amount": a}))
        assert not heads.exists()  # the first turn is an hour away
    assert [h["entry"] for h in audit_heads.read_heads(heads, _private(key).public_key())] == [2]


def test_the_private_key_is_never_in_the_database(database_url, tmp_path, key):
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600)
    with TestClient(create_app(settings)) as client:
        sessions = client.app.state.sessions  # type: ignore[attr-defined]
        for i in range(3):
            transaction(sessions, lambda s, i=i: audit.record(s, "pit_boss", "change_limits", "table 1", {}, {"n": i}))
    private = _private(key)
    raw = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
    pem_body = "".join(key.read_text().splitlines()[1:-1])
    secrets_shown = [raw.hex(), base64.b64encode(raw).decode(), pem_body, pem_body[:40]]
    from sqlalchemy import String, cast, create_engine

    engine = create_engine(settings.url)
    try:
        dumped: list[str] = []
        with engine.connect() as connection:
            for table in inspect(engine).get_table_names():
                for column in inspect(engine).get_columns(table):
                    name = column["name"]
                    quoted = engine.dialect.identifier_preparer.quote
                    dumped += [str(value) for value in connection.execute(
                        select(cast(text(f"{quoted(table)}.{quoted(name)}"), String)).select_from(text(quoted(table)))
                    ).scalars() if value is not None]
    finally:
        engine.dispose()
    assert any(entry in " ".join(dumped) for entry in ('{"n":0}', '{"n":2}'))  # (the dump holds the trail)
    whole = "\n".join(dumped)
    assert not [shown for shown in secrets_shown if shown in whole]
    if database_url.startswith("sqlite"):  # the file itself, its journal and write-ahead log included
        for file in tmp_path.glob("baccarat.sqlite3*"):
            data = file.read_bytes()
            assert raw not in data and pem_body[:40].encode() not in data, file


def test_keygen_writes_the_private_key_for_its_owner_only_and_never_replaces_it(tmp_path, capsys):
    path = tmp_path / "keys" / "house.pem"
    assert main(["audit", "keygen", "--key-file", str(path), "--data-dir", str(tmp_path / "data")]) == 0
    said = capsys.readouterr().out
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    if os.name == "posix":
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    public = audit_keys.load_public(audit_keys.public_key_path(path))
    assert audit_keys.fingerprint(public) in said
    assert _private(path).public_key() == public
    before = path.read_bytes()
    assert main(["audit", "keygen", "--key-file", str(path), "--data-dir", str(tmp_path / "data")]) == 2
    assert "already exists" in capsys.readouterr().err and path.read_bytes() == before
    inside = tmp_path / "data" / "key.pem"
    assert main(["audit", "keygen", "--key-file", str(inside), "--data-dir", str(tmp_path / "data")]) == 2
    assert "inside the data directory" in capsys.readouterr().err and not inside.exists()


def test_the_server_makes_a_key_at_its_first_start_and_says_so(tmp_path, caplog):
    path = tmp_path / "config" / "audit-signing-key.pem"
    settings = Settings(data_dir=tmp_path / "data", audit_key_file=path, betting_seconds=600)
    with caplog.at_level("WARNING", logger="baccarat.server"), TestClient(create_app(settings)):
        pass
    fingerprint = audit_keys.fingerprint(_private(path).public_key())
    said = [record.getMessage() for record in caplog.records if "created the signing key" in record.getMessage()]
    assert len(said) == 1 and fingerprint in said[0] and str(path) in said[0]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    caplog.clear()
    with caplog.at_level("WARNING", logger="baccarat.server"), TestClient(create_app(settings)):
        pass  # the second start uses it
    assert not [r for r in caplog.records if "created" in r.getMessage()]


def test_a_key_from_the_environment_signs_and_no_file_is_made(tmp_path, monkeypatch):
    signer = Ed25519PrivateKey.generate()
    raw = signer.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                               serialization.NoEncryption())
    monkeypatch.setenv("BACCARAT_AUDIT_KEY", base64.b64encode(raw).decode())
    path = tmp_path / "config" / "unused.pem"
    settings = Settings(data_dir=tmp_path / "data", audit_key_file=path, betting_seconds=600)
    with TestClient(create_app(settings)) as client:
        sessions = client.app.state.sessions  # type: ignore[attr-defined]
        transaction(sessions, lambda s: audit.record(s, "pit_boss", "change_limits", "table 1", {}, {"amount": 1}))
        with sessions() as s:
            assert audit.verify(s, public=signer.public_key())["signed"] == 1
    assert not path.exists()


@pytest.mark.parametrize("problem", ["readable by others", "inside the data directory", "not a key"])
def test_a_key_that_cannot_be_used_is_refused_in_words(tmp_path, problem):
    path = tmp_path / "config" / "key.pem"
    data_dir = tmp_path / "data"
    if problem == "inside the data directory":
        path = data_dir / "key.pem"
    audit_keys.create_key(path)
    if problem == "readable by others":
        if os.name != "posix":
            pytest.skip("file modes are POSIX")
        path.chmod(0o644)
    if problem == "not a key":
        path.write_text("hello\n")
    expected = {"readable by others": "chmod 600", "inside the data directory": "keep the audit signing key outside",
                "not a key": "not an Ed25519 private key"}[problem]
    with pytest.raises(ConfigurationError, match=expected):
        audit_keys.ensure_key(Settings(data_dir=data_dir, audit_key_file=path))


def test_the_key_file_is_by_default_in_the_configuration_directory_not_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("BACCARAT_AUDIT_KEY_FILE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("BACCARAT_DATA_DIR", str(tmp_path / "data"))
    settings = Settings()
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert settings.audit_key_path == tmp_path / "config" / "baccarat" / "audit-signing-key.pem"
    assert not settings.audit_key_path.resolve().is_relative_to((tmp_path / "data").resolve())
    # the signed heads beside the key, one file per database (the same for every process and host naming it the
    # same way, whatever its password), never in the data directory unless told
    heads = settings.audit_heads_path
    assert heads.parent == settings.audit_key_path.parent and re.fullmatch(r"audit-heads-[0-9a-f]{12}\.jsonl",
                                                                              heads.name)
    pg = "postgresql+psycopg://casino:{}@db.example/baccarat"
    assert Settings(database_url=pg.format("one")).audit_heads_path == Settings(
        database_url=pg.format("two")).audit_heads_path != Settings(database_url=pg.format("x") + "2").audit_heads_path
    settings.check_audit_heads_place()
    inside = Settings(audit_heads_file=tmp_path / "data" / "heads.jsonl")
    with pytest.raises(ConfigurationError, match=r"is inside the data directory .*BACCARAT_AUDIT_HEADS_IN_DATA_DIR=1"):
        inside.check_audit_heads_place()
    Settings(audit_heads_file=tmp_path / "data" / "heads.jsonl", audit_heads_in_data_dir=True).check_audit_heads_place()
    monkeypatch.setenv("BACCARAT_AUDIT_HEAD_SECONDS", "0")
    with pytest.raises(ConfigurationError, match="BACCARAT_AUDIT_HEAD_SECONDS: '0' is too small"):
        Settings()
