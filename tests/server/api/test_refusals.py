"""Refusals over HTTP (:mod:`baccarat.server.api.refusals`) under attack and under faults (issue 11, items 4
and 8): Starlette's own refusals in the ``{"error", "detail"}`` shape, and a full, read-only or unreachable
database answered 503 with ``Retry-After`` and logged as one line now and then."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import OperationalError

from baccarat.server.api.app import create_app
from baccarat.server.api.body_limit import MAX_BODY
from baccarat.server.api.refusals import RETRY_AFTER
from baccarat.server.playing import views
from baccarat.server.storage import faults
from baccarat.server.storage.db import make_engine, session_factory
from baccarat.server.storage.settings import Settings

PASSWORD = "a long and unusual passphrase 7"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path, grant=50_000)
    with TestClient(create_app(settings)) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client


# --- Starlette's own refusals in the project's shape --------------------------------------------------------


def test_the_framework_s_own_refusals_have_the_error_shape(client: TestClient):
    missing = client.get("/api/no-such-thing")
    assert missing.status_code == 404
    assert missing.json() == {"error": "NotFound", "code": "request.not_found", "params": {},
                              "detail": "There is nothing at this address.",
                              "message": "There is nothing at this address."}  # the code, and words
    assert client.get("/static/no-such-file.js").json()["error"] == "NotFound"
    wrong = client.delete("/api/tables")
    assert wrong.status_code == 405 and wrong.headers["allow"] == "GET"
    assert wrong.json() == {"error": "MethodNotAllowed", "code": "request.method_not_allowed",
                            "params": {"method": "DELETE", "allowed": "GET"},
                            "detail": "This address does not answer DELETE: it answers GET.",
                            "message": "This address does not answer DELETE: it answers GET."}
    unreadable = client.post("/api/accounts", content=b'{"username": "\xff\xfe", "password": "x"}',
                             headers={"Content-Type": "application/json"})
    assert unreadable.status_code == 400
    assert unreadable.json()["error"] == "BadRequest" and "UTF-8" in unreadable.json()["detail"]
    assert unreadable.json()["code"] == "request.unreadable"
    malformed = client.post("/api/accounts", content=b'{"username": ', headers={"Content-Type": "application/json"})
    assert malformed.status_code == 422
    assert malformed.json()["error"] == "InvalidRequest"
    assert malformed.json()["detail"][0]["field"] == "body"
    assert malformed.json()["detail"][0]["problem"].startswith("the body is not valid JSON")
    assert malformed.json()["code"] == "request.invalid"
    assert malformed.json()["params"] == {"field": "body", "problem": "json_invalid"}
    declared = client.post("/api/accounts", content=b" " * (MAX_BODY + 1), headers={"Content-Type": "application/json"})
    assert declared.status_code == 413 and declared.json()["error"] == "TooLarge"
    assert declared.json()["code"] == "request.too_large" and declared.json()["params"] == {"limit": MAX_BODY}


# --- storage faults answered 503 (attack: a full, read-only or unreachable database) ------------------------


def _sqlite_error(tmp_path: Path, how: str) -> OperationalError:
    """A real error from SQLite: a write to a read-only database, or to one that is full."""
    path = tmp_path / f"{how}.sqlite3"
    with create_engine(f"sqlite:///{path}").begin() as c:
        c.execute(text("CREATE TABLE t (x BLOB)"))
    if how == "read-only":
        engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    else:
        engine = create_engine(f"sqlite:///{path}")
        event.listen(engine, "connect", lambda connection, _: connection.execute("PRAGMA max_page_count=2"))
    with pytest.raises(OperationalError) as raised, engine.begin() as c:
        c.execute(text("INSERT INTO t VALUES (randomblob(100000))"))
    engine.dispose()
    return raised.value


def _storage_log(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    assert not any(r.exc_info for r in records if r.name == "baccarat.server"), "a traceback was logged"
    return [r for r in records if r.name == "baccarat.server" and r.getMessage().startswith("storage fault")]


def test_a_database_that_turns_read_only_mid_run_is_503_with_retry_after(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture):
    """The app's sessions switched, mid-run, to the same database opened read-only: a real SQLite
    error on every write, logged once; reads still work; and all is well again when it is writable."""
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client:
        read_only = make_engine(f"sqlite:///file:{tmp_path / 'baccarat.sqlite3'}?mode=ro&uri=true")
        writable = client.app.state.sessions  # type: ignore[attr-defined]
        client.app.state.sessions = session_factory(read_only)  # type: ignore[attr-defined]
        try:
            with caplog.at_level(logging.INFO, logger="baccarat.server"):
                answers = [client.post("/api/accounts", json={"username": f"player{i}", "password": PASSWORD})
                           for i in range(5)]
                assert client.get("/api/tables/1").status_code == 200  # reading still works
        finally:
            client.app.state.sessions = writable  # type: ignore[attr-defined]
            read_only.dispose()
        for answer in answers:
            assert answer.status_code == 503, answer.text
            assert answer.json() == {"error": "Unavailable", "code": "server.unavailable", "params": {},
                                     "detail": "The table server cannot save right now: try again in a moment.",
                                     "message": "The table server cannot save right now: try again in a moment."}
            assert answer.headers["retry-after"] == str(RETRY_AFTER)
        logged = _storage_log(caplog.records)
        assert len(logged) == 1, [r.getMessage() for r in logged]  # one line, not one per request
        assert faults.READ_ONLY in logged[0].getMessage()
        assert client.post("/api/accounts", json={"username": "after", "password": PASSWORD}).status_code == 201


def test_a_full_disk_is_503_and_one_log_line(client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture):
    full = _sqlite_error(tmp_path, "full")

    def work(*_: object, **__: object) -> None:
        raise full

    monkeypatch.setattr(views, "table_view", work)
    with caplog.at_level(logging.INFO, logger="baccarat.server"):
        answers = [client.get("/api/tables/1") for _ in range(20)]
    assert {a.status_code for a in answers} == {503}
    assert all(a.json()["error"] == "Unavailable" and a.headers["retry-after"] == str(RETRY_AFTER) for a in answers)
    logged = _storage_log(caplog.records)
    assert [r.getMessage() for r in logged] == [
        "storage fault: disk full: database or disk is full; requests that need the database are answered 503"]


def test_other_database_errors_stay_internal_errors(client: TestClient, monkeypatch: pytest.MonkeyPatch):
    def broken(*_: object, **__: object) -> None:
        raise OperationalError("SELECT ...", {}, sqlite3.OperationalError("no such column: rounds.nope"))

    monkeypatch.setattr(views, "table_view", broken)
    answer = client.get("/api/tables/1")
    assert answer.status_code == 500 and answer.json() == {"error": "InternalError", "code": "server.error",
                                                           "params": {}, "detail": "internal error",
                                                           "message": "Something went wrong on the server: try again."}

    def down(*_: object, **__: object) -> None:
        import psycopg

        raise OperationalError("SELECT ...", {}, psycopg.OperationalError("connection failed: Connection refused"))

    pytest.importorskip("psycopg")
    monkeypatch.setattr(views, "table_view", down)
    answer = client.get("/api/tables/1")
    assert answer.status_code == 503 and answer.json()["error"] == "Unavailable"
