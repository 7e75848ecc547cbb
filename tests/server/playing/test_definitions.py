"""Rules-file games kept with the data (:mod:`baccarat.server.playing.definitions`, issue 37 item 1): a definition
stored once per game code and served from the database by every process, its tables and shoes naming its digest,
and a file that would change a stored game's rules refused with both digests."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from baccarat import verify as verifier
from baccarat.cli.app import main
from baccarat.core.registry import game_codes, get_game, unregister
from baccarat.core.rulesfile import RulesError, canonical, parse_rules
from baccarat.server.api.app import create_app
from baccarat.server.house import accounts
from baccarat.server.playing import betting, definitions, history, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, read, transaction
from baccarat.server.storage.migrate import upgrade
from baccarat.server.storage.models import GameDefinition, GameTable, ShoeRow, aware
from baccarat.server.storage.settings import Settings

from ...conftest import ON_POSTGRESQL

TIGER = Path(__file__).parents[3] / "catalogue" / "tiger.toml"
EXE = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"


@pytest.fixture
def tiger_text() -> Iterator[str]:
    """The catalogue's Tiger Baccarat, taken out of this process's registry after the test."""
    yield TIGER.read_text(encoding="utf-8")
    if "tiger" in game_codes():
        unregister("tiger")


def test_the_digest_is_of_the_content_not_of_its_spelling(tiger_text: str):
    respelled = "# a comment of the house's\n" + tiger_text.replace('code = "tiger"', 'code   =   "tiger"  # same')
    assert canonical(respelled)[1] == canonical(tiger_text)[1]
    repaid = tiger_text.replace('pays = "1/2"', 'pays = "9/20"', 1)
    assert repaid != tiger_text and canonical(repaid)[1] != canonical(tiger_text)[1]
    assert parse_rules(tiger_text).source == canonical(tiger_text)[1][:16]  # the game's source is its digest


def test_a_stored_definition_is_served_by_a_process_that_never_saw_the_file(sessions, tiger_text: str):
    stored = transaction(sessions, lambda s: definitions.store(s, tiger_text, origin="tiger.toml"))
    unregister("tiger")  # another process: only the database knows the game
    assert "tiger" not in game_codes()
    loaded = transaction(sessions, definitions.load_stored)
    assert [game.code for game in loaded] == ["tiger"]
    assert get_game("tiger").source == stored.source
    assert [wager.code for wager in get_game("tiger").wagers] == [wager.code for wager in stored.wagers]


def test_tables_and_shoes_of_a_stored_game_name_its_definition(sessions, tiger_text: str):
    transaction(sessions, lambda s: definitions.store(s, tiger_text))
    digest = canonical(tiger_text)[1]
    table_id = transaction(sessions, lambda s: tables.create_table(s, "tiger-t", "tiger", betting_seconds=5).id)
    built_in = transaction(sessions, lambda s: tables.create_table(s, "mini-t", "mini", betting_seconds=5).id)
    with sessions() as s:
        assert s.get(GameTable, table_id).definition == digest
        assert s.scalars(select(ShoeRow.definition).where(ShoeRow.table_id == table_id)).all() == [digest]
        assert s.get(GameTable, built_in).definition is None  # a built-in game is the code's
        assert s.scalars(select(ShoeRow.definition).where(ShoeRow.table_id == built_in)).all() == [None]


def test_the_same_file_again_stores_nothing_more_and_a_changed_one_is_refused_with_both_digests(sessions,
                                                                                               tiger_text: str):
    transaction(sessions, lambda s: definitions.store(s, tiger_text))
    transaction(sessions, lambda s: definitions.store(s, "# again\n" + tiger_text))  # the same content
    changed = tiger_text.replace('pays = "1/2"', 'pays = "9/20"', 1)
    with pytest.raises(RulesError) as refused:
        transaction(sessions, lambda s: definitions.store(s, changed, origin="tiger-new.toml"))
    message = str(refused.value)
    assert canonical(tiger_text)[1][:16] in message and canonical(changed)[1][:16] in message
    assert message.startswith("tiger-new.toml:") and "another game code" in message
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(GameDefinition)) == 1
        assert s.scalar(select(GameDefinition.digest)) == canonical(tiger_text)[1]
    assert get_game("tiger").source == canonical(tiger_text)[1][:16]  # this process still serves the stored rules


def test_a_game_with_fees_and_struck_cards_is_stored_and_served(sessions):
    lightning = (TIGER.parent / "lightning.toml").read_text(encoding="utf-8")
    try:
        game = transaction(sessions, lambda s: definitions.store(s, lightning, origin="lightning.toml"))
        assert game.multipliers is not None and game.wager("player").fee == Fraction(1, 5)
        assert get_game("lightning") is game
    finally:
        unregister("lightning")


def test_a_stored_definition_that_no_longer_reads_stops_the_start_with_its_name(sessions, tiger_text: str):
    transaction(sessions, lambda s: definitions.store(s, tiger_text))
    with sessions.begin() as s:  # as if the vocabulary had lost a fact the stored file uses
        s.get(GameDefinition, canonical(tiger_text)[1]).text = tiger_text.replace("banker_total", "no_such_fact")
    with pytest.raises(RulesError, match=r"the stored definition [0-9a-f]{16} of 'tiger'"):
        transaction(sessions, definitions.load_stored)


def test_the_page_reads_a_stored_definition_by_its_digest(manual_time, tmp_path: Path, tiger_text: str):
    """``GET /api/games/definition?digest=``: the canonical content, whose SHA-256 is the digest, and the text;
    a digest not stored is a 404 with its code, one that is not a SHA-256 a 422."""
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    with connect(settings.url) as sessions:
        upgrade(settings.url)
        transaction(sessions, lambda s: definitions.store(s, tiger_text))
    digest = canonical(tiger_text)[1]
    with TestClient(create_app(settings)) as client:
        answer = client.get("/api/games/definition", params={"digest": digest})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert hashlib.sha256(body["content"].encode()).hexdigest() == digest
        assert body["code"] == "tiger" and body["text"] == tiger_text and body["digest"] == digest
        assert json.loads(body["content"])["game"]["code"] == "tiger"
        missing = client.get("/api/games/definition", params={"digest": "0" * 64})
        assert missing.status_code == 404 and missing.json()["code"] == "definition.unknown"
        assert missing.json()["params"] == {"digest": "0" * 64}
        assert client.get("/api/games/definition", params={"digest": "short"}).status_code == 422


PAIRS = TIGER.parent / "pairs.toml"
T0 = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
BETS = {"banker": 500, "player_pair": 100, "perfect_pair": 100}  #: values, ranks and suits


def _played_shoe(sessions) -> tuple[int, dict]:
    """A one-deck table of the catalogue's Pairs game (suits and ranks in its wagers), a player betting on
    Banker and the pair bets every window until the shoe ends; the player's export, as JSON reads it."""
    text = PAIRS.read_text(encoding="utf-8")

    def setup(s):
        definitions.store(s, text, origin="pairs.toml")
        table = tables.create_table(s, "pairs-t", "pairs", decks=1, betting_seconds=10, pace=Pace(0, 0, 0), now=T0)
        return table.id, accounts.register(s, "ann", "correct horse", grant=1_000_000).id

    table_id, ann = transaction(sessions, setup)
    while read(sessions, lambda s: s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id,
                                                                   ShoeRow.number == 2))) is None:
        current = read(sessions, lambda s: tables.open_round(s, table_id))
        closes = aware(current.closes_at)
        transaction(sessions, lambda s, at=closes - timedelta(seconds=1): betting.place_bets(s, table_id, ann, BETS,
                                                                                          now=at))
        deal_due(sessions, closes)
    with sessions() as s:
        return table_id, json.loads(json.dumps(history.export(s, ann, now=T0 + timedelta(days=1))))


def test_an_export_of_a_rules_file_game_verifies_and_an_edited_pay_is_a_mismatch(sessions, tmp_path: Path):
    try:
        table_id, doc = _played_shoe(sessions)
    finally:
        unregister("pairs")
    digest = canonical(PAIRS.read_text(encoding="utf-8"))[1]
    shoe = next(record for record in doc["shoes"] if record["table_id"] == table_id)
    assert shoe["definition"] == digest and doc["definitions"] == {digest: PAIRS.read_text(encoding="utf-8")}
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds >= 5, report.problems
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 0
    # the house pays a pair 12 to 1 where the file says 11: the edited text no longer has its digest
    edited = json.loads(json.dumps(doc))
    edited["definitions"][digest] = doc["definitions"][digest].replace('pays = "11"', 'pays = "12"', 1)
    assert edited["definitions"][digest] != doc["definitions"][digest]
    report = verifier.verify_document(edited)
    assert not report.ok and report.problems[0].startswith(f"the rules file {digest[:16]}, definition"), report.problems
    assert all("not checked" in problem for problem in report.problems[1:]) and len(report.problems) > 1
    path.write_text(json.dumps(edited))
    assert main(["verify", str(path)]) == 3
    # a payout changed in a round is named, against the verifier's own reading of the rules
    forged = json.loads(json.dumps(doc))
    round_ = next(r for r in forged["rounds"] if r["table_id"] == table_id)
    round_["net"]["banker"] += 1
    assert any("payout of banker" in problem for problem in verifier.verify_document(forged).problems)


@pytest.mark.slow
@ON_POSTGRESQL
def test_two_workers_serve_and_deal_a_rules_file_game_and_a_restart_without_the_file_still_does(
        database_url: str, serve, tiger_text: str, tmp_path: Path):
    """The issue's case: with --workers 2 every request sees the game (each worker loads it from the database),
    its table deals, and the next start without --rules serves it too; a changed file is refused at the start."""
    served = serve("--workers", "2", "--database", database_url, "--betting-seconds", "1", "--rules", str(TIGER))
    answered = 0
    deadline = time.monotonic() + 30
    while answered < 8 and time.monotonic() < deadline:
        with httpx.Client(base_url=served.url, timeout=10) as client:  # a new connection: either worker
            try:
                games = client.get("/api/games").json()
            except httpx.TransportError:  # a worker still starting resets a connection (issue 40's to mend)
                continue
            assert "tiger" in [game["code"] for game in games]  # every worker that answers serves it
            answered += 1
    assert answered == 8
    with httpx.Client(base_url=served.url, timeout=10) as client:
        client.post("/api/accounts", json={"username": "stripes", "password": "correct horse"})
        token = client.post("/api/sessions", json={"username": "stripes", "password": "correct horse"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        table = next(t for t in client.get("/api/tables").json() if t["name"] == "tiger-1")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            answer = client.post(f"/api/tables/{table['id']}/bets", json={"bets": {"banker": 100}},
                                 headers={**auth, "Idempotency-Key": f"tiger-{time.monotonic_ns()}"})
            if answer.status_code == 201:
                break
            time.sleep(0.2)  # between two windows
        assert answer.status_code == 201, answer.text
        while time.monotonic() < deadline and not client.get("/api/history", headers=auth).json():
            time.sleep(0.2)
        settled = client.get("/api/history", headers=auth).json()
        assert settled and settled[0]["table_id"] == table["id"], settled
    served.stop()
    again = serve("--database", database_url)  # no --rules
    with httpx.Client(base_url=again.url, timeout=10) as client:
        assert "tiger" in [game["code"] for game in client.get("/api/games").json()]
    again.stop()
    with connect(database_url) as sessions, sessions() as s:
        assert s.scalar(select(GameTable.definition).where(GameTable.name == "tiger-1")) == canonical(tiger_text)[1]
    changed = tmp_path / "tiger.toml"
    changed.write_text(tiger_text.replace('pays = "1/2"', 'pays = "9/20"', 1), encoding="utf-8")
    refused = subprocess.run([EXE, "serve", "--port", "0", "--database", database_url, "--data-dir", str(tmp_path),
                              "--rules", str(changed)], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "ready at" not in refused.stdout
    assert canonical(tiger_text)[1][:16] in refused.stderr and canonical(changed.read_text())[1][:16] in refused.stderr
