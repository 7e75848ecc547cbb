"""Seeds sealed (issue 38 item 12): a shoe's server seed was stored in clear, so whoever read the database or a
backup learnt every card to come.  Now it is stored sealed under a key the database never holds
(:mod:`baccarat.server.house.seed_keys`), and in clear only once the shoe ends; the server restarted with the key
deals on, and without it refuses to start, naming the key, and replaces no shoe in play."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import String, cast, create_engine, inspect, select, text

from baccarat.cli.app import main
from baccarat.core.errors import ConfigurationError
from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, seed_keys
from baccarat.server.playing import betting, fairness, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.storage.db import connect, read, transaction
from baccarat.server.storage.models import ShoeRow, aware
from baccarat.server.storage.settings import Settings

from ...conftest import ON_BOTH


def _shoes(url: str) -> dict[int, tuple[str, str, datetime | None]]:
    """Each shoe's stored seed, commitment and reveal."""
    with connect(url) as sessions, sessions() as s:
        return {row.id: (row.server_seed, row.commitment, row.revealed_at) for row in s.scalars(select(ShoeRow))}


def _every_value(url: str) -> str:
    """Every value of every column of every table, as text."""
    engine = create_engine(url)
    dumped: list[str] = []
    try:
        with engine.connect() as connection:
            quoted = engine.dialect.identifier_preparer.quote
            for table in inspect(engine).get_table_names():
                for column in inspect(engine).get_columns(table):
                    dumped += [str(value) for value in connection.execute(
                        select(cast(text(f"{quoted(table)}.{quoted(column['name'])}"), String))
                        .select_from(text(quoted(table)))).scalars() if value is not None]
    finally:
        engine.dispose()
    return "\n".join(dumped)


def _opens_to_a_commitment(found: str, commitments: set[str]) -> bool:
    """Whether any run of 64 hex digits in ``found`` is a seed whose SHA-256 is one of ``commitments``."""
    return any(hashlib.sha256(bytes.fromhex(run)).hexdigest() in commitments
               for run in re.findall(r"(?=([0-9a-f]{64}))", found))


@ON_BOTH
def test_nothing_in_the_database_or_a_backup_hashes_to_a_shoe_in_play_s_commitment(database_url, tmp_path, capsys):
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600)
    with TestClient(create_app(settings)):
        pass
    shoes = _shoes(settings.url)
    in_play = {commitment for _, commitment, revealed in shoes.values() if revealed is None}
    assert len(in_play) >= 3  # the default tables' shoes
    assert all(seed_keys.is_sealed(seed) for seed, _, revealed in shoes.values() if revealed is None)
    seeds = [fairness.seed_keys.opened(seed, commitment) for seed, commitment, _ in shoes.values()]
    assert {hashlib.sha256(bytes.fromhex(seed)).hexdigest() for seed in seeds} >= in_play  # they do open
    whole = _every_value(settings.url)
    assert not _opens_to_a_commitment(whole, in_play) and not any(seed in whole for seed in seeds)
    if database_url.startswith("sqlite"):  # the file, and a backup of it
        backup = tmp_path / "backup.sqlite3"
        assert main(["backup", str(backup), "--data-dir", str(tmp_path)]) == 0
        capsys.readouterr()
        for file in [*tmp_path.glob("baccarat.sqlite3*"), backup]:
            data = file.read_bytes()
            assert not any(bytes.fromhex(seed) in data or seed.encode() in data for seed in seeds), file


def test_the_server_restarted_with_its_key_deals_on_and_without_it_refuses_and_replaces_nothing(tmp_path, database_url):
    key_file = tmp_path / "keys" / "seed-key"
    settings = Settings(data_dir=tmp_path / "data", database_url=database_url, betting_seconds=10,
                        seed_key_file=key_file)
    with TestClient(create_app(settings)):
        pass
    key = seed_keys.read_key_file(key_file)  # made at the first start
    before = _shoes(settings.url)
    assert {seed.split(":")[1] for seed, _, _ in before.values()} == {seed_keys.key_id(key)}

    elsewhere = Settings(data_dir=tmp_path / "data", database_url=database_url, seed_key_file=tmp_path / "none")
    with pytest.raises(ConfigurationError) as refused, TestClient(create_app(elsewhere)):
        pass
    words = str(refused.value)
    assert f"sealed with the seed key {seed_keys.key_id(key)}, which this server does not have" in words
    assert "BACCARAT_SEED_KEY" in words and "not replaced" in words
    assert _shoes(settings.url) == before and not (tmp_path / "none").exists()  # nothing replaced, no key made
    other = tmp_path / "other-key"
    seed_keys.create_key(other)
    wrong = Settings(data_dir=tmp_path / "data", database_url=database_url, seed_key_file=other)
    with pytest.raises(ConfigurationError, match=f"sealed with the seed key {seed_keys.key_id(key)}, and this "), \
            TestClient(create_app(wrong)):
        pass

    with TestClient(create_app(settings)) as client:  # the key back: a round dealt from the sealed shoe
        sessions = client.app.state.sessions  # type: ignore[attr-defined]
        ann = transaction(sessions, lambda s: accounts.register(s, "ann", "correct horse", grant=10_000).id)
        table = transaction(sessions, lambda s: tables.create_table(s, "sealed-t", "mini", betting_seconds=10).id)
        transaction(sessions, lambda s: betting.place_bets(s, table, ann, {"banker": 100}))
        closes = read(sessions, lambda s: aware(tables.round_in_play(s, table).closes_at))  # type: ignore[union-attr]
        assert deal_due(sessions, now=closes + timedelta(seconds=1)) >= 1
        assert read(sessions, lambda s: tables.round_in_play(s, table).number) == 2  # type: ignore[union-attr]


def test_an_ended_shoe_s_seed_is_stored_in_clear_and_a_sealed_seed_opens_only_for_its_own_shoe(sessions):
    table = transaction(sessions, lambda s: tables.create_table(s, "reveal-t", "mini", betting_seconds=10))
    with sessions() as s:
        shoe = s.scalar(select(ShoeRow).where(ShoeRow.table_id == table.id))
        stored, committed, seed = shoe.server_seed, shoe.commitment, fairness.server_seed(shoe)
    assert seed_keys.is_sealed(stored) and hashlib.sha256(bytes.fromhex(seed)).hexdigest() == committed
    other = transaction(sessions, lambda s: tables.create_table(s, "other-t", "mini", betting_seconds=10))
    with sessions() as s:
        their = s.scalar(select(ShoeRow.commitment).where(ShoeRow.table_id == other.id))
    with pytest.raises(ConfigurationError, match="does not open under its commitment"):
        seed_keys.opened(stored, their)  # moved to another shoe
    transaction(sessions, lambda s: fairness.end_shoe(s, s.get(ShoeRow, shoe.id), datetime.now(UTC), "test"))
    with sessions() as s:
        assert s.get(ShoeRow, shoe.id).server_seed == seed  # revealed: in clear, as the verifier reads it


def test_reseal_moves_every_shoe_in_play_to_a_new_key(tmp_path, capsys):
    key_file, new_file = tmp_path / "keys" / "seed-key", tmp_path / "keys" / "seed-key-2"
    settings = Settings(data_dir=tmp_path / "data", seed_key_file=key_file)
    with TestClient(create_app(settings)):
        pass
    before = _shoes(settings.url)
    old = seed_keys.read_key_file(key_file)
    seeds = {shoe: seed_keys._open(seed, commitment, old) for shoe, (seed, commitment, _) in before.items()}
    options = ["--data-dir", str(tmp_path / "data")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BACCARAT_SEED_KEY_FILE", str(key_file))
        assert main(["seeds", "reseal", "--new-key-file", str(key_file), *options]) == 2  # the same key: refused
        assert main(["seeds", "reseal", "--new-key-file", str(new_file), *options]) == 0
    said = capsys.readouterr().out
    new = seed_keys.read_key_file(new_file)
    assert f"{len(before)} shoes in play resealed from key {seed_keys.key_id(old)} to key {seed_keys.key_id(new)}" \
        in said
    after = _shoes(settings.url)
    assert {shoe: seed_keys._open(seed, commitment, new) for shoe, (seed, commitment, _) in after.items()} == seeds
    with TestClient(create_app(Settings(data_dir=tmp_path / "data", seed_key_file=new_file))):
        pass  # the servers start with the new key


def test_keygen_writes_the_key_for_its_owner_only_outside_the_data_directory_and_never_replaces_it(tmp_path, capsys):
    path = tmp_path / "conf" / "seed-key"
    options = ["--data-dir", str(tmp_path / "data")]
    assert main(["seeds", "keygen", "--key-file", str(path), *options]) == 0
    assert path.stat().st_mode & 0o777 == 0o600 and len(seed_keys.read_key_file(path)) == 32
    assert f"(key {seed_keys.key_id(seed_keys.read_key_file(path))})" in capsys.readouterr().out
    assert main(["seeds", "keygen", "--key-file", str(path), *options]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["seeds", "keygen", "--key-file", str(tmp_path / "data" / "k"), *options]) == 2
    assert "inside the data directory" in capsys.readouterr().err
    for text_, words in (("not base64!", "not a seed key"), ("c2hvcnQ=", "not a seed key")):
        with pytest.raises(ConfigurationError, match=words):
            seed_keys.parse_key(text_, where="BACCARAT_SEED_KEY")
