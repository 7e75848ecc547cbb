"""The server's logs (``baccarat serve --log-format json|text --log-level``): one JSON object per line with its
context (request id, table, round, account), an access line per request and per socket, uvicorn's lines in the
same form, and never a password, a token or a seed before its reveal."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect
from websockets.typing import Origin

from baccarat.server.house import seed_keys
from baccarat.server.live.access import RequestLog
from baccarat.server.storage import logs

from ...server_kit import EXE

PASSWORD = "Tr0ub4dor-and-3-horses"  # a test account's, looked for in the logs
KEYS = {"time", "level", "logger", "event"}


def _lines(stderr: str) -> list[dict]:
    """Every stderr line as JSON (fails on a line that is not one object)."""
    parsed = []
    for line in stderr.splitlines():
        entry = json.loads(line)
        assert isinstance(entry, dict) and entry.keys() >= KEYS, line
        parsed.append(entry)
    return parsed


def _wait_for(lines, stderr, test, count: int = 1, timeout: float = 10) -> list[dict]:
    """The lines that pass ``test``, read again until ``count`` do or ``timeout`` has passed: the process
    writes after it answers."""
    deadline = time.monotonic() + timeout
    while True:
        found = [entry for entry in lines(stderr()) if test(entry)]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.mark.slow
def test_json_lines_name_request_table_account_and_hold_no_secret(tmp_path: Path, serve):
    """A sign-up, a log-in, requests with a token (one also in the query), a table socket that bets in a round
    dealt and settled: every line is a JSON object; the access lines and socket lines carry what they should;
    neither the password, nor the token, nor the shoe's unrevealed seed is anywhere in the log."""
    server = serve("--log-format", "json", "--betting-seconds", "1")
    base = server.url
    with httpx.Client(base_url=base, timeout=10) as client:
        assert client.post("/api/accounts", json={"username": "lena", "password": PASSWORD}).status_code == 201
        token = client.post("/api/sessions", json={"username": "lena", "password": PASSWORD}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        # a client's own id is not taken (it is no trusted proxy): the server makes one and says it
        me = client.get("/api/me", params={"token": token}, headers={**auth, "X-Request-ID": "picked-by-client"})
        assert me.status_code == 200
        request_id = me.headers["x-request-id"]
        assert request_id != "picked-by-client" and re.fullmatch(r"[0-9a-f]{32}", request_id)
        account_id = me.json()["id"]
        assert client.post("/api/tables/1/seats", json={}, headers=auth).json() == {"seat": 1}
        # a client that puts its token in the socket's URL too: uvicorn names the URL, the query is cut off
        with ws_connect(base.replace("http://", "ws://") + f"/ws/tables/1?token={token}") as socket:
            socket.send(json.dumps({"type": "auth", "token": token}))
            assert json.loads(socket.recv(timeout=10))["type"] == "state"
            for attempt in range(1, 4):  # a 1 s window can close before a loaded machine sends the bet: the next
                socket.send(json.dumps({"type": "bet", "key": f"bet-log-000{attempt}", "bets": {"banker": 100}}))
                while (frame := json.loads(socket.recv(timeout=10)))["type"] not in ("ok", "error"):
                    assert frame["type"] == "state", frame
                if frame["type"] == "ok":
                    break
                assert frame["code"] == "bet.closed" and attempt < 3, frame
                while not ((frame := json.loads(socket.recv(timeout=30)))["type"] == "state"
                           and frame["table"]["phase"] == "betting"):
                    pass  # until the next window opens
            deadline, history = time.monotonic() + 30, []
            while time.monotonic() < deadline and not (history and history[0]["status"] == "settled"):
                time.sleep(0.2)
                history = client.get("/api/history", headers=auth).json()
            assert history and history[0]["status"] == "settled", history
        with pytest.raises(InvalidStatus):  # a page of another site: refused before it is accepted
            ws_connect(base.replace("http://", "ws://") + "/ws/tables/2", origin=Origin("http://elsewhere.example"))
    with sqlite3.connect(tmp_path / "baccarat.sqlite3") as db:
        unrevealed = [seed_keys.opened(seed, commitment) for seed, commitment in db.execute(  # (the session's key)
            "SELECT server_seed, commitment FROM shoes WHERE revealed_at IS NULL")]
    assert unrevealed and all(len(seed) == 64 for seed in unrevealed)

    assert len(_wait_for(_lines, server.stderr, lambda e: e["event"] == "socket closed", 2)) == 2
    entries = _lines(server.stderr())
    said = server.stderr()
    assert PASSWORD not in said and token not in said
    assert not [seed for seed in unrevealed if seed in said]
    assert {e["logger"] for e in entries} >= {"uvicorn.error", "baccarat.access"}  # uvicorn's lines too
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", e["time"]) for e in entries)
    # the one warning there may be: the audit trail's signing key made at the session's first start (the key
    # file is the test session's, so an earlier test may have made it; in JSON too: logging is set up first)
    assert [e["event"][:31] for e in entries if e["level"] != "info"] in ([], ["audit trail: created the signin"])

    [asked] = [e for e in entries if e.get("request_id") == request_id]
    assert asked["logger"] == "baccarat.access" and asked["event"] == "request"
    assert asked["method"] == "GET" and asked["path"] == "/api/me" and asked["status"] == 200
    assert asked["account_id"] == account_id and asked["client"] == "127.0.0.1"
    assert isinstance(asked["duration_ms"], float) and asked["duration_ms"] >= 0
    [sat] = [e for e in entries if e.get("path") == "/api/tables/1/seats"]
    assert sat["table_id"] == 1 and sat["account_id"] == account_id and sat["method"] == "POST"
    [signed_up] = [e for e in entries if e.get("path") == "/api/accounts"]
    assert signed_up["status"] == 201 and signed_up["account_id"] == account_id
    assert len({e["request_id"] for e in entries if e["event"] == "request"}) == len(
        [e for e in entries if e["event"] == "request"])  # one id each

    assert [e["event"].split(" - ")[1] for e in entries if "WebSocket" in e["event"]] == [
        '"WebSocket /ws/tables/1" [accepted]', '"WebSocket /ws/tables/2" 403']  # uvicorn's lines, no query
    [opened] = [e for e in entries if e["event"] == "socket open"]
    assert opened["path"] == "/ws/tables/1" and opened["table_id"] == 1
    closed = sorted((e for e in entries if e["event"] == "socket closed"), key=lambda e: e["table_id"])
    assert [(e.get("code"), e.get("status"), e["table_id"]) for e in closed] == [(1000, None, 1), (None, 403, 2)]
    assert closed[0]["request_id"] == opened["request_id"] and closed[0]["account_id"] == account_id
    assert closed[0]["duration_ms"] > 0 and "account_id" not in closed[1]


@pytest.mark.slow
def test_text_lines_are_readable_and_a_trusted_proxy_names_the_request(serve):
    """``--log-format text``: ``TIME LEVEL LOGGER: EVENT key=value ...``; behind ``--trusted-proxy`` its sane
    ``X-Request-ID`` is the request's (and said back), an insane one is replaced."""
    server = serve("--log-format", "text", "--trusted-proxy", "127.0.0.1")
    with httpx.Client(base_url=server.url, timeout=10) as client:
        given = client.get("/api/tables", headers={"X-Request-ID": "edge-7f3a:1", "X-Forwarded-For": "203.0.113.9"})
        bad = client.get("/health", headers={"X-Request-ID": "two words"})
        # a path that would start a line of its own and clear the reader's screen, and a query on a socket's URL
        forged = "/x%0A2026-01-01 00:00:00.000Z CRITICAL baccarat.audit: ledger tampered%1B[2J%C2%9B"
        assert client.get(forged).status_code == 404
    with ws_connect(server.url.replace("http://", "ws://") + f"/ws/tables/1?password={PASSWORD}"):
        pass
    assert given.headers["x-request-id"] == "edge-7f3a:1"
    assert re.fullmatch(r"[0-9a-f]{32}", bad.headers["x-request-id"])
    found = _wait_for(lambda said: said.splitlines(), server.stderr, lambda line: "request_id=edge-7f3a:1" in line)
    assert len(found) == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z INFO +baccarat\.access: request "
                        r"request_id=edge-7f3a:1 method=GET path=/api/tables client=203\.0\.113\.9 status=200 "
                        r"duration_ms=[0-9.]+", found[0]), found[0]
    lines = server.stderr().splitlines()
    assert any(re.search(r" INFO +uvicorn\.error: Application startup complete\.$", line) for line in lines), lines
    assert not any(line.lstrip().startswith("{") for line in lines)
    assert _wait_for(lambda said: said.splitlines(), server.stderr, lambda line: " socket closed " in line)
    lines, said = server.stderr().splitlines(), server.stderr()
    assert not [line for line in lines if re.match(r"\S+ \S+ CRITICAL ", line)] and not re.search("[\x1b\x9b]", said)
    [line] = [line for line in lines if "path=/x" in line]
    assert (" path=/x\\x0a2026-01-01 00:00:00.000Z CRITICAL baccarat.audit: ledger tampered\\x1b[2J\\x9b "
            "client=127.0.0.1 status=404 ") in line, line
    assert PASSWORD not in said and any('"WebSocket /ws/tables/1" [accepted]' in line for line in lines)


@pytest.mark.slow
def test_an_unknown_log_format_or_level_is_refused_in_words(tmp_path: Path):
    assert EXE is not None
    for option, value, words in (("--log-format", "xml", "'xml' is not one of 'json', 'text'"),
                                 ("--log-level", "loud", "'loud' is not one of")):
        done = subprocess.run([EXE, "serve", "--port", "0", "--data-dir", str(tmp_path), option, value],
                              capture_output=True, text=True, timeout=60)
        flat = " ".join(re.sub("[│╭╮╰╯─]", " ", done.stderr).split())  # out of Typer's box, unwrapped
        assert done.returncode == 2 and f"Invalid value for '{option}'" in flat and words in flat, done.stderr
        assert not (tmp_path / "baccarat.sqlite3").exists()  # nothing started


@pytest.mark.slow
def test_a_quieter_level_leaves_the_access_lines_out(serve):
    server = serve("--log-format", "json", "--log-level", "warning")
    assert httpx.get(server.url + "/health", timeout=10).status_code == 200
    time.sleep(0.3)
    assert server.stderr() == ""


@pytest.mark.slow
def test_debug_lines_hold_no_token(serve):
    """At ``--log-level debug`` the WebSocket library would log each frame, the auth frame's token with it:
    the table socket's protocol keeps its frames out of the log."""
    server = serve("--log-format", "json", "--log-level", "debug")
    with httpx.Client(base_url=server.url, timeout=10) as client:
        client.post("/api/accounts", json={"username": "dora", "password": PASSWORD})
        token = client.post("/api/sessions", json={"username": "dora", "password": PASSWORD}).json()["token"]
    with ws_connect(server.url.replace("http://", "ws://") + "/ws/tables/1") as socket:
        socket.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(socket.recv(timeout=10))["type"] == "state"
    assert _wait_for(_lines, server.stderr, lambda e: e["event"] == "socket closed")
    said = server.stderr()
    assert token not in said and PASSWORD not in said
    assert "debug" in {e["level"] for e in _lines(said)}  # debug lines were written


# --- in this process -------------------------------------------------------------------------------------


def test_the_default_form_is_text_on_a_terminal_and_json_elsewhere(monkeypatch):
    class Terminal:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    monkeypatch.setattr("sys.stderr", Terminal(True))
    assert logs.default_format() == "text"
    monkeypatch.setattr("sys.stderr", Terminal(False))
    assert logs.default_format() == "json"


def test_a_line_carries_its_context_and_its_own_fields():
    record = logging.LogRecord("baccarat.dealer", logging.ERROR, __file__, 1, "cannot deal %s", ("round 7",), None)
    record.status = 503
    with logs.context(request_id="r-1", table_id=3):
        logs.note(account_id=42)
        with logs.context(round_id=7):
            logs.ContextFilter().filter(record)
    logs.note(account_id=1)  # outside any context: nothing to add to
    line = json.loads(logs.JsonFormatter().format(record))
    assert list(line) == ["time", "level", "logger", "event", "request_id", "table_id", "round_id", "account_id",
                          "status"]
    assert line["event"] == "cannot deal round 7" and line["level"] == "error" and line["status"] == 503
    text = logs.TextFormatter().format(record)
    assert text.endswith("ERROR    baccarat.dealer: cannot deal round 7 request_id=r-1 table_id=3 round_id=7 "
                         "account_id=42 status=503")


def test_what_a_client_sent_cannot_forge_a_line_or_drive_a_terminal():
    """A path with a newline, an escape sequence, a C1 control, DEL and a line separator: the text line is one line
    with each written as its escape; the JSON line escapes them all and still reads back as sent; a traceback's
    lines are indented, its own controls escaped."""
    sent = "/x\n2026-01-01 00:00:00.000Z CRITICAL forged\x1b[2J\x9b\x7f\u2028\r"
    record = logging.LogRecord("baccarat.access", logging.INFO, __file__, 1, "request", None, None)
    record.path = sent
    text = logs.TextFormatter().format(record)
    assert "\n" not in text and text.endswith(
        " path=/x\\x0a2026-01-01 00:00:00.000Z CRITICAL forged\\x1b[2J\\x9b\\x7f\\u2028\\x0d")
    line = logs.JsonFormatter().format(record)
    assert line.isprintable() and json.loads(line)["path"] == sent
    try:
        raise ValueError("bad\nWARNING forged\x1b[31m")
    except ValueError:
        record.exc_info = sys.exc_info()
    first, *after = logs.TextFormatter().format(record).split("\n")
    assert first == text and after[0] == "    Traceback (most recent call last):"
    assert all(each.startswith("    ") and each.isprintable() for each in after), after
    assert after[-2:] == ["    ValueError: bad", "    WARNING forged\\x1b[31m"]


def test_no_query_string_reaches_a_line():
    """uvicorn names a socket's URL with its query (a token or a password a client put there): the filter every
    line passes cuts it off, whatever the path holds; other arguments are left alone."""
    assert "no_query" in logs.config("json", "info")["handlers"]["stderr"]["filters"]
    for path, kept in (("/ws/tables/1?token=abc", "/ws/tables/1"), ("/a b?password=x y\nz", "/a b"),
                       ("/ws/tables/1", "/ws/tables/1")):
        record = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" [accepted]',
                                   ("127.0.0.1:5000", path), None)
        assert logs.NoQuery().filter(record)
        assert record.getMessage() == f'127.0.0.1:5000 - "WebSocket {kept}" [accepted]'
    asked = logging.LogRecord("x", logging.INFO, __file__, 1, "%s? %d", ("why", 3), None)
    assert logs.NoQuery().filter(asked) and asked.getMessage() == "why? 3"


def test_a_request_id_is_taken_only_from_a_trusted_address_and_only_when_sane():
    def scope(host: str, given: str) -> dict:
        return {"type": "http", "client": (host, 5000), "headers": [(b"x-request-id", given.encode())]}

    behind = RequestLog(lambda *_: None, frozenset({"10.0.0.2"}))  # type: ignore[arg-type]
    assert behind.request_id(scope("10.0.0.2", "abc-123")) == "abc-123"
    for host, given in (("10.0.0.3", "abc-123"), ("10.0.0.2", "a b"), ("10.0.0.2", "x" * 129),
                        ("10.0.0.2", "id\nforged line"), ("10.0.0.2", "")):
        made = behind.request_id(scope(host, given))
        assert made != given and uuid.UUID(made).hex == made


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_every_worker_logs_the_same_way(database_url: str, serve):
    """``--workers 2``: the supervisor's lines and each process's (uvicorn's start, the access lines of the
    requests each answered) are JSON objects of the same form."""
    server = serve("--workers", "2", "--database", database_url, "--log-format", "json")
    ids: dict[int, set[str]] = {}
    deadline = time.monotonic() + 30
    while len(ids) < 2 and time.monotonic() < deadline:
        with httpx.Client(base_url=server.url, timeout=5) as client:  # a new connection each time
            answer = client.get("/api/server")
        ids.setdefault(answer.json()["process"], set()).add(answer.headers["x-request-id"])
    assert len(ids) == 2, ids  # both processes answered
    every = set().union(*ids.values())
    found = _wait_for(_lines, server.stderr, lambda e: e.get("request_id") in every, len(every))
    assert {e["request_id"] for e in found} == every
    assert all(e["path"] == "/api/server" and e["status"] == 200 for e in found)
    started = [e["event"] for e in _lines(server.stderr()) if e["event"].startswith("Started server process")]
    # (a superset: under load the supervisor may replace a worker that was slow to answer its ping)
    assert {f"Started server process [{pid}]" for pid in ids} <= set(started), started


def test_a_refused_request_s_access_line_says_its_code_and_params(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """Issue 40 item 9: a refusal was logged with its status alone.  Its access line now says the refusal's code and
    params (machine values: never the password sent, which no code's params hold); an answer has neither."""
    from fastapi.testclient import TestClient

    from baccarat.server.api.app import create_app
    from baccarat.server.storage.settings import Settings

    caplog.set_level(logging.INFO, logger="baccarat.access")
    caplog.handler.addFilter(logs.ContextFilter())  # as the server's handler: the context's fields on each line
    with TestClient(RequestLog(create_app(Settings(data_dir=tmp_path, betting_seconds=600)))) as client:
        assert client.post("/api/accounts", json={"username": "rhea", "password": PASSWORD}).status_code == 201
        token = client.post("/api/sessions", json={"username": "rhea", "password": PASSWORD}).json()["token"]
        auth = {"Authorization": f"Bearer {token}", "Idempotency-Key": "log-refusal-01"}
        assert client.post("/api/tables/2/bets", json={"bets": {"tie": 50}}, headers=auth).status_code == 409
        assert client.post("/api/sessions", json={"username": "rhea", "password": "wrong " + PASSWORD}
                           ).status_code == 401
        assert client.post("/api/accounts", json={"username": "x"}).status_code == 422
    lines = {(r.method, r.path, r.status): r for r in caplog.records if r.getMessage() == "request"}  # type: ignore[attr-defined]
    below = lines[("POST", "/api/tables/2/bets", 409)]
    assert (below.refusal, below.refusal_params) == (  # type: ignore[attr-defined]
        "bet.below_minimum", {"wager": "tie", "amount": 50, "minimum": 100})
    assert lines[("POST", "/api/sessions", 401)].refusal == "auth.wrong_password"  # type: ignore[attr-defined]
    invalid = lines[("POST", "/api/accounts", 422)]
    assert (invalid.refusal, invalid.refusal_params["problem"]) == ("request.invalid", "string_too_short")  # type: ignore[attr-defined]
    assert not hasattr(lines[("POST", "/api/accounts", 201)], "refusal")
    assert PASSWORD not in caplog.text
