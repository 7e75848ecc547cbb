"""The HTTP edge under attack and under faults (issue 11, items 4 and 8): bodies capped by the bytes
received, not the length declared; request heads capped; amounts and other body fields taken only
as the JSON type they are declared as; Starlette's own refusals in the ``{"error", "detail"}``
shape; a full, read-only or unreachable database answered 503 and logged as one line now and then;
and a server that cannot start says why in one line with its own exit code."""

from __future__ import annotations

import json
import logging
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from baccarat.cli.common import EXIT_UNAVAILABLE
from baccarat.server.api.app import create_app
from baccarat.server.api.body_limit import MAX_BODY
from baccarat.server.api.refusals import RETRY_AFTER
from baccarat.server.house import accounts
from baccarat.server.playing import views
from baccarat.server.storage import faults
from baccarat.server.storage.db import connect, make_engine, session_factory, sqlite_url, transaction
from baccarat.server.storage.settings import Settings

from ... import server_kit
from ...server_kit import Served

PASSWORD = "a long and unusual passphrase 7"
EXE = shutil.which("baccarat", path=str(Path(sys.executable).parent))


# --- a real server (uvicorn through `baccarat serve`) ---------------------------------------


def _peak_rss_mb(served: Served) -> float:
    """The server process's peak resident memory so far (VmHWM)."""
    status = Path(f"/proc/{served.pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if not Path("/proc/self/status").exists():
        pytest.skip("reads the server's memory from /proc")
    with server_kit.served(data_dir=tmp_path_factory.mktemp("served")) as server:
        yield server


def _exchange(served: Served, head: bytes, body: Iterator[bytes]) -> tuple[int, dict[str, str], bytes, int]:
    """Send ``head`` then ``body`` on a raw socket (in a thread, so that a server that stops
    reading cannot block us) and read the answer; returns status, headers, body and bytes sent."""
    sock = socket.create_connection((served.host, served.port), timeout=60)
    sent = [0]

    def send() -> None:
        try:
            sock.sendall(head)
            for piece in body:
                sock.sendall(piece)
                sent[0] += len(piece)
        except OSError:  # the server answered and closed: it read no further
            pass

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    answer = b""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
            head_end = answer.find(b"\r\n\r\n")
            if head_end >= 0:
                length = re.search(rb"content-length: (\d+)", answer[:head_end], re.IGNORECASE)
                if length and len(answer) >= head_end + 4 + int(length.group(1)):
                    break
    except ConnectionResetError:
        pass
    sender.join(timeout=60)
    sock.close()
    head_bytes, _, content = answer.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    assert lines and lines[0].startswith("HTTP/1.1 "), answer[:200]
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, content, sent[0]


def _chunked(total: int, piece: int = 65_536) -> Iterator[bytes]:
    """``total`` bytes of JSON whitespace as HTTP/1.1 chunks, then the last chunk."""
    while total > 0:
        size = min(piece, total)
        yield b"%x\r\n" % size + b" " * size + b"\r\n"
        total -= size
    yield b"0\r\n\r\n"


POST_CHUNKED = (b"POST /api/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")


@pytest.mark.slow
def test_a_chunked_body_is_cut_off_at_the_limit_not_read_whole(served: Served):
    """Before: a chunked body declares no length, the limit read only Content-Length, and the whole
    body was read (256 MB: peak RSS from 86 to 598 MB).  Now the bytes received are counted."""
    before = _peak_rss_mb(served)
    status, headers, content, sent = _exchange(served, POST_CHUNKED, _chunked(64 * 2**20))
    grown = _peak_rss_mb(served) - before
    assert status == 413, content
    assert json.loads(content) == {"error": "TooLarge", "code": "request.too_large", "params": {"limit": MAX_BODY},
                                   "detail": f"The request is too large: it may be at most {MAX_BODY} bytes.",
                                   "message": f"The request is too large: it may be at most {MAX_BODY} bytes."}
    assert headers.get("connection") == "close"  # stop taking the rest of it
    assert grown < 16, f"the server grew {grown:.0f} MB on a body it refused ({sent / 2**20:.0f} MB sent)"
    # a declared length over the limit is refused before anything is read, as before
    declared = (b"POST /api/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % (64 * 2**20))
    status, _, content, _ = _exchange(served, declared, iter([b" " * 65_536]))
    assert status == 413 and json.loads(content)["error"] == "TooLarge"


@pytest.mark.slow
def test_a_chunked_body_up_to_the_limit_is_taken(served: Served):
    """The count is of body bytes: a body of exactly MAX_BODY bytes in many chunks is read and answered."""
    payload = json.dumps({"username": "chunky", "password": PASSWORD}).encode()
    payload += b" " * (MAX_BODY - len(payload))
    pieces = [payload[i:i + 1000] for i in range(0, len(payload), 1000)]
    status, _, content, _ = _exchange(
        served, POST_CHUNKED, iter([b"%x\r\n" % len(p) + p + b"\r\n" for p in pieces] + [b"0\r\n\r\n"]))
    assert status == 201, content
    status, _, content, _ = _exchange(served, POST_CHUNKED, iter([b"%x\r\n" % (len(payload) + 1) + payload + b" \r\n",
                                                                   b"0\r\n\r\n"]))
    assert status == 413, content


@pytest.mark.slow
def test_an_endless_request_head_is_refused_not_buffered(served: Served):
    """Before: uvicorn's httptools parser held a header line of any size (128 MB: +256 MB of RSS)."""
    before = _peak_rss_mb(served)
    status, _, _, sent = _exchange(served, b"GET /health HTTP/1.1\r\nHost: test\r\nX-Filler: ",
                                   iter([b"a" * 65_536] * 512))  # 32 MB, never ending the line
    grown = _peak_rss_mb(served) - before
    assert 400 <= status < 500
    assert grown < 16, f"the server grew {grown:.0f} MB on a request head it refused ({sent / 2**20:.0f} MB sent)"
    status, _, content, _ = _exchange(served, b"GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
                                      iter([]))
    assert status == 200 and json.loads(content) == {"status": "ok"}


# --- bodies: JSON integers only -----------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path, grant=50_000)
    with TestClient(create_app(settings)) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client


def _signed_in(client: TestClient, name: str, role: str = "player") -> tuple[int, dict[str, str]]:
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        account = transaction(sessions, lambda s: accounts.register(s, name, PASSWORD, grant=50_000, role=role))
    login = client.post("/api/sessions", json={"username": name, "password": PASSWORD})
    assert login.status_code == 201, login.text
    return account.id, {"Authorization": f"Bearer {login.json()['token']}"}


AMOUNT_WORDS = "whole numbers of minor units (cents)"
#: What lax pydantic turned into amounts: "100" -> 100, "1_000" -> 1000, true -> 1; and fractions.  (1000.0 and
#: 1e3 are the number 1000, a JSON Schema ``integer`` as /openapi.json says: taken, see the next test.)
NOT_INTEGERS = ['"100"', '"1_000"', "true", '"12.50"', "[100]", "1000.5", "1e-3"]


@pytest.mark.parametrize("amount", NOT_INTEGERS)
def test_amounts_in_bodies_are_json_integers_only(client: TestClient, amount: str):
    """Every amount a body carries (credits, debits, bets, table limits) is refused unless it is a
    JSON integer, and the same body with the integer is taken."""
    player_id, player = _signed_in(client, "punter")
    _, operator = _signed_in(client, "pit_boss", role="operator")
    client.post("/api/tables/2/seats", json={}, headers=player)
    requests = [  # method, url, headers, body with %s for the amount, the field the amount is in
        ("POST", f"/api/operator/wallets/{player_id}/credit", {**operator, "Idempotency-Key": "credit-0001"},
         '{"amount": %s}', "body.amount"),
        ("POST", f"/api/operator/wallets/{player_id}/debit", {**operator, "Idempotency-Key": "debit-0001"},
         '{"amount": %s}', "body.amount"),
        ("POST", "/api/tables/2/bets", {**player, "Idempotency-Key": "bet-00001"}, '{"bets": {"banker": %s}}',
         "body.bets.banker"),
        ("PUT", "/api/operator/tables/2/limits", operator, '{"minimum": %s}', "body.minimum"),
        ("PUT", "/api/operator/tables/2/limits", operator, '{"minimum": 100, "maximums": {"tie": %s}}',
         "body.maximums.tie"),
    ]
    for method, url, headers, body, field in requests:
        answer = client.request(method, url, content=(body % amount).encode(),
                                headers={**headers, "Content-Type": "application/json"})
        assert answer.status_code == 422, (url, answer.text)
        assert answer.json()["error"] == "InvalidRequest"
        problems = answer.json()["detail"]
        assert any(p["field"] == field and AMOUNT_WORDS in p["problem"] for p in problems), problems
    assert client.get("/api/me", headers=player).json()["balance"] == 50_000  # nothing moved
    for method, url, headers, body, _ in requests:
        answer = client.request(method, url, content=(body % "1000").encode(),
                                headers={**headers, "Content-Type": "application/json"})
        assert answer.status_code < 300, (url, answer.text)
    credited, debited, bet = 1000, 1000, 1000
    assert client.get("/api/me", headers=player).json()["balance"] == 50_000 + credited - debited - bet


@pytest.mark.parametrize("amount", ["1000.0", "1e3"])
def test_a_whole_number_written_with_a_fraction_or_exponent_is_taken_as_that_integer(client: TestClient, amount: str):
    """JSON Schema's ``integer`` (what /openapi.json promises) is any number without a fraction: 1000.0 is 1000,
    and is moved, staked and stored as the integer (a schema-valid request refused was a contract failure)."""
    player_id, player = _signed_in(client, "punter")
    _, operator = _signed_in(client, "pit_boss", role="operator")
    client.post("/api/tables/2/seats", json={}, headers=player)
    credit = client.post(f"/api/operator/wallets/{player_id}/credit", content=f'{{"amount": {amount}}}'.encode(),
                         headers={**operator, "Idempotency-Key": "credit-0001", "Content-Type": "application/json"})
    assert credit.status_code == 200 and credit.json()["balance"] == 51_000, credit.text
    bet = client.post("/api/tables/2/bets", content=f'{{"bets": {{"banker": {amount}}}, "round": 1.0}}'.encode(),
                      headers={**player, "Idempotency-Key": "bet-00001", "Content-Type": "application/json"})
    assert bet.status_code == 201, bet.text
    again = client.post("/api/tables/2/bets", json={"bets": {"banker": 1000}, "round": 1},  # the same request
                        headers={**player, "Idempotency-Key": "bet-00001"})
    assert again.status_code == 201 and again.json() == bet.json()
    assert client.get("/api/me", headers=player).json()["balance"] == 50_000


#: Body fields that are not amounts and were coerced all the same: each is refused now.
COERCED = [
    ("/api/tables/1/seats", {"seat": True}, "body.seat"),
    ("/api/tables/1/seats", {"seat": "2"}, "body.seat"),
    ("/api/tables/1/seats", {"seat": 2.5}, "body.seat"),
    ("/api/operator/tables", {"name": "t1", "game": "lucky-draw", "paytable": True}, "body.paytable"),
    ("/api/operator/tables", {"name": "t1", "game": "lucky-draw", "paytable": 1.5}, "body.paytable"),
    ("/api/operator/tables", {"name": "t1", "game": "ez", "decks": "8"}, "body.decks"),
    ("/api/operator/tables", {"name": "t1", "game": "ez", "decks": True}, "body.decks"),
    ("/api/operator/tables", {"name": "t1", "game": "ez", "cut_card": 14.5}, "body.cut_card"),
    ("/api/operator/tables", {"name": "t1", "game": "ez", "betting_seconds": "15"}, "body.betting_seconds"),
    ("/api/operator/tables", {"name": "t1", "game": "ez", "betting_seconds": True}, "body.betting_seconds"),
]


def test_no_other_body_field_is_coerced(client: TestClient):
    """Seat numbers, the pay table, decks, cut card and seconds: the JSON type declared, no other.
    (A number of seconds may still be written as an integer: a JSON number is a number.)"""
    _, operator = _signed_in(client, "pit_boss", role="operator")
    for url, body, field in COERCED:
        answer = client.post(url, json=body, headers=operator)
        assert answer.status_code == 422, (body, answer.text)
        assert field in [p["field"] for p in answer.json()["detail"]], (body, answer.text)
    assert "t1" not in [table["name"] for table in client.get("/api/tables").json()]
    assert client.get("/api/tables/1").json()["seats"] == {}
    answer = client.post("/api/operator/tables", json={"name": "t1", "game": "lucky-draw", "paytable": 2,
                                                       "betting_seconds": 20}, headers=operator)
    assert answer.status_code == 201, answer.text
    assert client.post("/api/tables/1/seats", json={"seat": 2}, headers=operator).json() == {"seat": 2}


# --- Starlette's own refusals in the project's shape --------------------------------------


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


# --- storage faults -----------------------------------------------------------------------


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


def test_storage_problems_are_told_from_other_database_errors(tmp_path: Path):
    assert faults.storage_problem(_sqlite_error(tmp_path, "read-only")) == faults.READ_ONLY
    assert faults.storage_problem(_sqlite_error(tmp_path, "full")) == faults.DISK_FULL
    with pytest.raises(OperationalError) as cannot_open, create_engine(
            f"sqlite:///{tmp_path}/no/such/dir/x.sqlite3").connect():
        pass
    assert faults.storage_problem(cannot_open.value) == faults.CANNOT_OPEN
    with pytest.raises(OperationalError) as refused, create_engine(
            "postgresql+psycopg://nobody@127.0.0.1:1/x").connect():
        pass
    assert faults.storage_problem(refused.value) == faults.UNREACHABLE
    assert "\n" not in faults.describe(refused.value) and "Connection refused" in faults.describe(refused.value)
    # errors that are not the machine's fault
    engine = create_engine(f"sqlite:///{tmp_path}/fine.sqlite3")
    with pytest.raises(IntegrityError) as duplicate, engine.begin() as c:
        c.execute(text("CREATE TABLE u (x INTEGER PRIMARY KEY)"))
        c.execute(text("INSERT INTO u VALUES (1), (1)"))
    assert faults.storage_problem(duplicate.value) is None
    with pytest.raises(OperationalError) as bad_sql, engine.begin() as c:
        c.execute(text("SELECT * FROM no_such_table"))
    assert faults.storage_problem(bad_sql.value) is None
    assert faults.storage_problem(ValueError("database or disk is full")) is None  # not from a database
    psycopg = pytest.importorskip("psycopg")
    wrap = lambda orig: OperationalError("INSERT ...", {}, orig)  # noqa: E731
    assert faults.storage_problem(wrap(psycopg.errors.DiskFull("could not extend file"))) == faults.DISK_FULL
    assert faults.storage_problem(wrap(psycopg.errors.ReadOnlySqlTransaction("read-only"))) == faults.READ_ONLY
    assert faults.storage_problem(wrap(psycopg.errors.SerializationFailure("retry"))) is None
    assert faults.storage_problem(wrap(psycopg.errors.DeadlockDetected("retry"))) is None
    assert faults.storage_problem(wrap(psycopg.errors.LockNotAvailable("busy"))) is None


def test_a_postgresql_connection_lost_mid_run_is_unreachable():
    import os

    server = os.environ.get("BACCARAT_TEST_POSTGRES_URL")
    if not server:
        pytest.skip("no PostgreSQL server (BACCARAT_TEST_POSTGRES_URL)")
    engine = create_engine(server)
    try:
        with engine.connect() as victim, engine.connect() as killer:
            pid = victim.execute(text("SELECT pg_backend_pid()")).scalar()
            killer.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            with pytest.raises(DBAPIError) as lost:
                victim.execute(text("SELECT 1"))
        assert faults.storage_problem(lost.value) == faults.UNREACHABLE
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_disk_that_fills_up_is_a_storage_problem(tmp_path: Path):
    """A real full file system (a 512 KB tmpfs), where the machine lets the test mount one."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        engine = create_engine(f"sqlite:///{mount}/full.sqlite3")
        with engine.begin() as c:
            c.execute(text("CREATE TABLE t (x BLOB)"))
        with pytest.raises(OperationalError) as full:
            for _ in range(100):
                with engine.begin() as c:
                    c.execute(text("INSERT INTO t VALUES (randomblob(50000))"))
        engine.dispose()
        assert faults.storage_problem(full.value) == faults.DISK_FULL
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_the_fault_log_writes_one_line_per_reason_every_interval(ticks):
    logger = logging.getLogger("test.faults")
    lines: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record)

    keep = Keep()
    logger.addHandler(keep)
    try:
        log = faults.FaultLog(logger, interval=10.0, clock=ticks)
        error = OperationalError("INSERT INTO tokens VALUES (?)", ("secret-token",),
                                 sqlite3.OperationalError("database or disk is full"))
        written = [log.report(faults.DISK_FULL, error, consequence="answered 503") for _ in range(5)]
        assert written == [True, False, False, False, False]
        assert log.report(faults.READ_ONLY, error, consequence="answered 503")  # another reason: its own line
        ticks.value = 10.5
        assert log.report(faults.DISK_FULL, error, consequence="answered 503")
    finally:
        logger.removeHandler(keep)
    messages = [record.getMessage() for record in lines]
    assert len(messages) == 3 and not any("\n" in m for m in messages) and not any(r.exc_info for r in lines)
    assert messages[0] == "storage fault: disk full: database or disk is full; answered 503"
    assert messages[2].endswith("(4 more since the last report)")
    assert not any("secret-token" in m or "INSERT" in m for m in messages)  # never the statement or its parameters


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


# --- start-up failures ----------------------------------------------------------------------


def _serve(*options: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    assert EXE is not None
    return subprocess.run([EXE, "serve", "--port", "0", *options], capture_output=True, text=True, timeout=timeout)


def _refused_in_one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == EXIT_UNAVAILABLE, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.slow
def test_an_unreachable_postgresql_is_one_line_and_its_own_exit_code(tmp_path: Path):
    started = time.monotonic()
    done = _serve("--database", "postgresql+psycopg://nobody:hunter2@127.0.0.1:1/x", "--data-dir", str(tmp_path))
    assert time.monotonic() - started < 30
    line = _refused_in_one_line(done)
    assert line.startswith("error: cannot open the database at postgresql+psycopg://nobody:***@127.0.0.1:1/x: ")
    assert "hunter2" not in line and "unreachable" in line and "BACCARAT_DATABASE_URL" in line


@pytest.mark.slow
def test_a_data_directory_that_is_a_file_is_one_line(tmp_path: Path):
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("")
    line = _refused_in_one_line(_serve("--data-dir", str(a_file)))
    assert line == (f"error: cannot use the data directory {a_file}: it is not a directory; "
                    "check --data-dir / BACCARAT_DATA_DIR")


@pytest.mark.slow
def test_a_read_only_database_is_one_line(tmp_path: Path):
    from baccarat.server.storage.migrate import upgrade

    upgrade(sqlite_url(tmp_path))
    done = _serve("--database", f"sqlite:///file:{tmp_path / 'baccarat.sqlite3'}?mode=ro&uri=true")
    assert "database is read-only" in _refused_in_one_line(done)


@pytest.mark.parametrize(("url", "words"), [
    ("mysql://u@db.example/baccarat", "mysql is not a database this server uses: give sqlite:///PATH or "
                                      "postgresql+psycopg://USER@HOST/NAME"),
    ("nosuchdb://u@h/b", "nosuchdb is not a database this server uses"),
    ("postgresql+psycopg2://u@127.0.0.1:1/b", "its driver (postgresql+psycopg2) is not installed; write "
                                              "postgresql+psycopg://USER@HOST/NAME"),
])
@pytest.mark.slow
def test_a_database_this_server_cannot_use_is_said_in_words(url: str, words: str, tmp_path: Path):
    """Once "No module named 'MySQLdb'" and "Can't load plugin: sqlalchemy.dialects:nosuchdb"."""
    line = _refused_in_one_line(_serve("--database", url, "--data-dir", str(tmp_path)))
    assert words in line and "No module" not in line and "plugin" not in line, line


@pytest.mark.slow
def test_an_address_in_use_is_not_a_verification_mismatch(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert EXE is not None
        done = subprocess.run([EXE, "serve", "--port", str(port), "--data-dir", str(tmp_path)], capture_output=True,
                              text=True, timeout=60)
    assert done.returncode == EXIT_UNAVAILABLE, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"error: the table server did not start on 127.0.0.1:{port}"
