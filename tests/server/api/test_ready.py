"""Liveness and readiness: ``GET /health`` answers while the process runs; ``GET /ready`` answers 200 with
what it checked when the database answers, its schema is this server's and a process of the service holds
the dealer's lock, and 503 with a coded reason (``ready.database``, ``ready.migrations``, ``ready.no_dealer``)
and ``Retry-After`` when one of them is not so, on both databases; ready again once it is so again."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from baccarat.core.messages import render
from baccarat.server.api.refusals import RETRY_AFTER
from baccarat.server.live.leader import LOCK_KEY, TRY_EVERY, Leadership
from baccarat.server.storage import metrics
from baccarat.server.storage.db import make_engine, session_factory
from baccarat.server.storage.migrate import code_heads
from baccarat.server.storage.schema_watch import CHECK_SECONDS
from baccarat.server.storage.settings import Settings

from ...conftest import ON_BOTH, ON_POSTGRESQL, api_client, signed_in


def _settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=1.0)


@pytest.fixture
def client(manual_time: Any, database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The app on the test's own time: its loops (the dealer's election among them) run when the test says."""
    client: TestClient
    for client in api_client(_settings(database_url, tmp_path)):
        client.time = manual_time  # type: ignore[attr-defined]
        yield client


def _ready_within(client: Any, seconds: float = 0.0) -> Any:
    """``GET /ready`` once the loops that start with the app have run (the election's first turn takes the dealer's
    lock) and ``seconds`` of the server's time have passed."""
    client.time.advance(seconds)
    return client.get("/ready")


def _served_ready(http: httpx.Client, seconds: float = 10.0) -> httpx.Response:
    """``GET /ready`` on a real server process until it answers 200 (its lock is taken just after the start), or
    the last answer."""
    deadline = time.monotonic() + seconds
    while True:
        answer = http.get("/ready")
        if answer.status_code == 200 or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


def _refused(answer: Any, code: str, **params: Any) -> None:
    assert answer.status_code == 503, answer.text
    words = render(code, params)
    assert answer.json() == {"error": "NotReady", "code": code, "params": params, "detail": words, "message": words}
    assert answer.headers["retry-after"] == str(RETRY_AFTER)


def test_ready_says_what_it_checked(client: TestClient, database_url: str):
    assert client.get("/health").json() == {"status": "ok"}
    answer = _ready_within(client)
    assert answer.status_code == 200, answer.text
    kind = "postgresql" if database_url.startswith("postgresql") else "sqlite"
    # this process deals: on PostgreSQL the database names it (the lock connection's application_name)
    assert answer.json() == {"status": "ready", "database": kind, "migrations": sorted(code_heads()),
                             "dealer": os.getpid(), "dealing_here": True}


@ON_POSTGRESQL
def test_a_database_that_does_not_answer_is_not_ready(client: TestClient, database_url: str, tmp_path: Path):
    assert _ready_within(client).status_code == 200
    # PostgreSQL: a port nobody listens on; SQLite: a file in a folder that does not exist
    away = ("postgresql+psycopg://baccarat@127.0.0.1:1/gone" if database_url.startswith("postgresql")
            else f"sqlite:///{tmp_path / 'no-such-folder' / 'gone.sqlite3'}")
    engine = make_engine(away)
    working = client.app.state.sessions  # type: ignore[attr-defined]
    client.app.state.sessions = session_factory(engine)  # type: ignore[attr-defined]
    try:
        answer = client.get("/ready")
        assert client.get("/health").status_code == 200  # alive all the same
    finally:
        client.app.state.sessions = working  # type: ignore[attr-defined]
        engine.dispose()
    _refused(answer, "ready.database")
    assert "127.0.0.1" not in answer.text and str(tmp_path) not in answer.text  # no address or path given away
    assert client.get("/ready").status_code == 200


def test_a_schema_behind_the_code_is_not_ready(client: TestClient, database_url: str):
    assert _ready_within(client).status_code == 200
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            current = sorted(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())
            connection.execute(text("DELETE FROM alembic_version"))
            connection.execute(text("INSERT INTO alembic_version (version_num) VALUES ('0010')"))
        answer = client.get("/ready")
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM alembic_version"))
            for revision in current:
                connection.execute(text("INSERT INTO alembic_version (version_num) VALUES (:r)"), {"r": revision})
    finally:
        engine.dispose()
    _refused(answer, "ready.migrations", database=["0010"], expected=sorted(code_heads()))
    assert client.get("/ready").status_code == 200


@ON_BOTH
def test_without_a_dealer_it_is_not_ready_and_another_process_dealing_makes_it_ready(
        manual_time: Any, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """This process never gets the dealer's lock: not ready while nobody holds it (on SQLite its own election is the
    only one; on PostgreSQL the database says nobody holds the lock).  On PostgreSQL, another process taking the lock
    (here a connection named as a server's dealer is) makes this one ready too, naming that process."""
    tries: list[float] = []
    monkeypatch.setattr(Leadership, "try_take", lambda self: tries.append(manual_time.monotonic()) or False)
    for client in api_client(_settings(database_url, tmp_path)):
        manual_time.advance(4 * TRY_EVERY)  # four more of the election's turns
        assert tries == [n * TRY_EVERY for n in range(5)]
        _refused(client.get("/ready"), "ready.no_dealer")
        if not database_url.startswith("postgresql"):
            continue
        other = create_engine(database_url, isolation_level="AUTOCOMMIT")
        try:
            with other.connect() as connection:
                connection.execute(text("SELECT set_config('application_name', 'baccarat dealer pid=4242', false)"))
                assert connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": LOCK_KEY}).scalar()
                answer = client.get("/ready")
                assert answer.status_code == 200, answer.text
                assert (answer.json()["dealer"], answer.json()["dealing_here"]) == (4242, False)
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})
                _refused(client.get("/ready"), "ready.no_dealer")  # the lock let go: nobody deals
        finally:
            other.dispose()


@pytest.mark.slow  # a real server process
def test_a_served_process_is_ready_and_names_itself_as_the_dealer(serve):
    server = serve("--betting-seconds", "1")
    with httpx.Client(base_url=server.url, timeout=5) as http:
        answer = _served_ready(http)
    assert answer.status_code == 200, answer.text
    assert answer.json()["dealer"] == server.pid and answer.json()["dealing_here"] is True


@pytest.mark.slow
def test_a_database_host_that_says_nothing_is_given_up_on(monkeypatch: pytest.MonkeyPatch):
    """A host that accepts the connection and never answers (a dead PostgreSQL behind a live port, a black-holed
    route) holds a request, or ``/ready``, only for libpq's ``connect_timeout``, not for ever."""
    from sqlalchemy.exc import OperationalError

    from baccarat.server.storage import db

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # the kernel completes the handshake; nothing ever reads or writes
        url = f"postgresql+psycopg://nobody:nothing@127.0.0.1:{silent.getsockname()[1]}/baccarat"
        monkeypatch.setattr(db, "CONNECT_SECONDS", 2)  # libpq's least (it takes 1 as 2)
        for engine in (make_engine(url), make_engine(url + "?connect_timeout=3")):  # the URL's own, if it says
            started = time.monotonic()
            with pytest.raises(OperationalError, match="timeout"):
                engine.connect().close()
            took = time.monotonic() - started
            assert 1.5 < took < 8, took
            engine.dispose()


def _stamp(database_url: str, revisions: list[str]) -> list[str]:
    """The database's schema revisions set to ``revisions`` (as another version's migration would); the old ones."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            before = sorted(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())
            connection.execute(text("DELETE FROM alembic_version"))
            for revision in revisions:
                connection.execute(text("INSERT INTO alembic_version (version_num) VALUES (:r)"), {"r": revision})
    finally:
        engine.dispose()
    return before


def _bet(client: Any, auth: dict[str, str], key: str) -> Any:
    return client.post("/api/tables/2/bets", json={"bets": {"banker": 100}}, headers={**auth, "Idempotency-Key": key})


@ON_BOTH
def test_on_a_schema_not_its_own_a_process_takes_no_write_and_deals_nothing(
        client: TestClient, database_url: str, caplog: pytest.LogCaptureFixture):
    """Issue 40 item 8: with the schema changed under it (another version's migration), a process answered /ready
    503 and still took bets.  Within a second it refuses every write, REST and socket alike (503
    ``server.upgrading``, ``Retry-After``), reads go on, its dealer deals nothing, and the log says so once; once
    the schema is its own again, it takes writes.  (That the round which waited is then dealt and settled is
    ``tests/server/storage/test_schema_watch.py``'s, with two real processes.)"""
    auth = signed_in(client, "wanda", grant=10_000)
    assert _bet(client, auth, "schema-bet-01").status_code == 201
    ours = _stamp(database_url, ["0010"])
    client.time.advance(CHECK_SECONDS)  # the window closes meanwhile: the round waits, bet in escrow
    for key in ("schema-bet-02", "schema-bet-03"):
        refused = _bet(client, auth, key)
        assert refused.status_code == 503 and refused.json()["code"] == "server.upgrading", refused.text
        assert refused.headers["retry-after"] == str(RETRY_AFTER)
    credentials = {"username": "wanda", "password": "correct horse"}
    assert client.post("/api/sessions", json=credentials).status_code == 503
    assert client.get("/api/me", headers=auth).json()["balance"] == 9_900  # reads go on
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": auth["Authorization"].split()[1]})
        socket.receive_json()
        socket.send_json({"type": "bet", "key": "schema-bet-04", "bets": {"banker": 100}})
        answer = socket.receive_json()
        while answer["type"] == "state":
            answer = socket.receive_json()
        assert (answer["type"], answer["code"]) == ("error", "server.upgrading"), answer
    client.time.advance(2 * CHECK_SECONDS)
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:  # nothing dealt: the round waits, its window closed
            assert connection.execute(text("SELECT status FROM rounds WHERE table_id = 2 AND number = 1")
                                      ).scalar_one() == "betting"
    finally:
        engine.dispose()
    said = [r for r in caplog.records if "ready.migrations" in r.getMessage()]
    assert len(said) == 1 and "0010" in said[0].getMessage(), [r.getMessage() for r in said]
    assert metrics.SCHEMA_CURRENT._value.get() == 0  # for the alert (deploy/prometheus)
    _stamp(database_url, ours)
    client.time.advance(CHECK_SECONDS)
    assert client.delete("/api/sessions", headers=auth).status_code == 204  # writes taken again (a log-out)
    assert any("writes are taken" in r.getMessage() for r in caplog.records)
    assert metrics.SCHEMA_CURRENT._value.get() == 1
