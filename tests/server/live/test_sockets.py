"""The table WebSocket: authentication, Origin check, live state, commands with idempotency keys,
and 10,000 malformed frames that change nothing.  Under attack (issue 11): no command taken after logout,
malformed input refused without a traceback, every frame capped (the first one too, and before it is buffered
on a real server), a cap on sockets per account, and the Origin allow-list."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import re
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from baccarat.server.api.app import create_app
from baccarat.server.live import feed as feed_module
from baccarat.server.live import sockets as live
from baccarat.server.storage import db as db_module
from baccarat.server.storage.db import connect, session_factory, transaction
from baccarat.server.storage.settings import Settings, parse_origins

from ... import server_kit
from ...conftest import ON_BOTH, api_client, until
from ...server_kit import Served


@pytest.fixture
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    yield from api_client(settings)


def _token(client: TestClient, name: str) -> str:
    client.post("/api/accounts", json={"username": name, "password": "correct horse"})
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    client.post("/api/tables/2/seats", json={}, headers={"Authorization": f"Bearer {token}"})
    return token


def _receive_within(socket: Any, seconds: float) -> dict[str, Any]:
    """The next message the server sends, or TimeoutError (the test client's own receive waits forever)."""
    async def receive() -> dict[str, Any]:
        with anyio.fail_after(seconds):
            message: dict[str, Any] = await socket._send_rx.receive()
            return message
    return socket.portal.call(receive)  # type: ignore[no-any-return]


def _answer(socket: Any) -> dict[str, Any]:
    """The next answer to a command, or the close (state pushes skipped)."""
    while True:
        message = _receive_within(socket, 10)
        if message["type"] == "websocket.close":
            return {"type": "close", "code": message.get("code"), "reason": message.get("reason")}
        answer: dict[str, Any] = json.loads(message["text"])
        if answer["type"] != "state":
            return answer


@pytest.mark.slow
def test_state_bets_and_replayed_commands(client):
    token = _token(client, "ivy")
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        state = socket.receive_json()
        assert state["type"] == "state" and state["table"]["name"] == "ez-1"
        assert state["you"] == {"seat": 1, "name": "ivy", "balance": 100_000, "round": 1, "bets": {},
                                "settlement": None, "decision": None, "notice": None}
        assert "server_seed" not in json.dumps(state)
        command = {"type": "bet", "key": "ws-bet-0001", "bets": {"banker": 500}}
        socket.send_json(command)
        ok = _answer(socket)
        assert ok["type"] == "ok" and ok["result"]["balance"] == 99_500
        assert socket.receive_json()["you"]["bets"] == {"banker": 500}
        socket.send_json(command)  # a replay: the stored answer, no second stake
        assert _answer(socket) == ok
        socket.send_json({"type": "bet", "key": "ws-bet-0002", "bets": {"banker": 10**9}})
        assert _answer(socket)["type"] == "error"
    assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["balance"] == 99_500


@pytest.mark.parametrize("first", [{"type": "auth", "token": "forged"}, {"type": "hello"}, "not json", [1, 2]])
def test_unauthenticated_sockets_are_closed(client, first):
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/tables/2") as socket:
        socket.send_text(first if isinstance(first, str) else json.dumps(first))
        socket.receive_json()
    assert closed.value.code == 1008


def test_a_foreign_origin_is_refused(client):
    token = _token(client, "jack")
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(
            "/ws/tables/2", headers={"Origin": "https://evil.example"}) as socket:
        socket.send_json({"type": "auth", "token": token})
        socket.receive_json()
    assert closed.value.code == 1008


@pytest.mark.slow
def test_ten_thousand_malformed_frames_change_nothing(client):
    token = _token(client, "kate")
    rng = random.Random(7)
    samples = ["", "{", "null", "[]", "1e999", '{"type": 5}', '{"type": "bet"}', '{"type": "bet", "key": 1}',
               '{"type": "bet", "key": "k", "bets": []}', '{"type": "bet", "key": "k", "bets": {"banker": "1"}}',
               '{"type": "decision", "key": "k", "action": "fold"}', '{"type": "unknown", "key": "k"}',
               '{"type": "bet", "key": "kk", "bets": {"banker": -5}}', '{"type": "bet", "key": "kk", "bets": {"x": 1}}',
               '{"type": "decision", "key": "key-00001", "action": "draw"}', "\u0000\u0001", '"just a string"']
    answered = 0
    while answered < 10_000:  # a fresh connection every 45 frames keeps under the rate limit
        with client.websocket_connect("/ws/tables/2") as socket:
            socket.send_json({"type": "auth", "token": token})
            socket.receive_json()
            for _ in range(45):
                if answered % 3 == 0:
                    frame = rng.choice(samples)
                else:
                    frame = "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(1, 60)))
                socket.send_text(frame)
                answer = socket.receive_json()
                while answer["type"] == "state":  # a state push may come between answers
                    answer = socket.receive_json()
                assert answer["type"] == "error", (frame, answer)
                answered += 1
    assert answered >= 10_000
    assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["balance"] == 100_000


def test_oversized_frames_close_the_socket(client):
    token = _token(client, "liam")
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        socket.receive_json()
        socket.send_text("x" * 5000)
        socket.receive_json()
    assert closed.value.code == 1009


# --- the table WebSocket under attack (issue 11) ------------------------------------------------------------


PASSWORD = "correct horse"


@pytest.fixture
def any_client(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    """SQLite and PostgreSQL: for the token checks, which are queries of their own."""
    yield from api_client(Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600))


def _player(client: TestClient, name: str, *, table: int | None = 2) -> str:
    """A new account's session token, seated at ``table``."""
    assert client.post("/api/accounts", json={"username": name, "password": PASSWORD}).status_code == 201
    token = client.post("/api/sessions", json={"username": name, "password": PASSWORD}).json()["token"]
    if table is not None:
        client.post(f"/api/tables/{table}/seats", json={}, headers={"Authorization": f"Bearer {token}"})
    return str(token)


def _joined(stack: ExitStack, client: TestClient, token: str, table: int = 2) -> Any:
    socket = stack.enter_context(client.websocket_connect(f"/ws/tables/{table}"))
    socket.send_json({"type": "auth", "token": token})
    assert socket.receive_json()["type"] == "state"
    return socket


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    # the dealer's own records (rounds it failed to deal) are another test's business
    return [record.getMessage() for record in caplog.records
            if (record.exc_info or record.levelno >= logging.ERROR) and not record.name.startswith("baccarat.dealer")
            and "deal" not in record.getMessage()]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _account_id(client: TestClient, token: str) -> int:
    return int(client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["id"])


# --- 1. signed out: 4401 (attack: a command sent after its logout) ------------------------------------------


def test_no_command_is_taken_after_logout_even_before_the_feed_notices(any_client, monkeypatch):
    monkeypatch.setattr(feed_module, "POLL", 30.0)  # the feed's next look at the tokens is far away
    token = _player(any_client, "uma")
    with ExitStack() as stack:
        socket = _joined(stack, any_client, token)
        any_client.delete("/api/sessions", headers={"Authorization": f"Bearer {token}"})
        socket.send_json({"type": "bet", "key": "uma-bet-0001", "bets": {"banker": 500}})
        assert _answer(socket) == {"type": "close", "code": live.SIGNED_OUT, "reason": "signed out: log in again"}
    again = any_client.post("/api/sessions", json={"username": "uma", "password": PASSWORD}).json()["token"]
    me = any_client.get("/api/me", headers={"Authorization": f"Bearer {again}"}).json()
    assert me["balance"] == 100_000  # no stake taken


@ON_BOTH
def test_a_logout_waits_for_a_command_in_flight_and_the_next_command_finds_it(any_client):
    """The token check holds the token's row (FOR KEY SHARE on PostgreSQL, the writer lock on SQLite):
    a logout cannot commit between a command's check and its commit.  The command goes on only once the
    logout is seen waiting for it (queued for the lock, or for the row), so the order is the database's."""
    token = _player(any_client, "vic", table=None)
    account_id = _account_id(any_client, token)
    checked = threading.Event()
    order: list[str] = []

    def command(s: Any) -> None:
        live._check_signed_in(s, _digest(token), account_id)
        checked.set()
        _until_another_waits(s)  # the rest of the command (the bet, the wallet, the ledger) meets the logout
        order.append("command")

    def log_out() -> None:
        answer = any_client.delete("/api/sessions", headers={"Authorization": f"Bearer {token}"})
        order.append(f"logout {answer.status_code}")

    with connect(any_client.settings.url) as sessions:  # type: ignore[attr-defined]
        in_flight = threading.Thread(target=transaction, args=(sessions, command))
        in_flight.start()
        assert checked.wait(10)
        logout = threading.Thread(target=log_out)
        logout.start()
        in_flight.join()
        logout.join()
        assert order == ["command", "logout 204"]
        with pytest.raises(live.Close) as closed:
            transaction(sessions, lambda s: live._check_signed_in(s, _digest(token), account_id))
        assert (closed.value.code, closed.value.reason) == (live.SIGNED_OUT, "signed out: log in again")


def _until_another_waits(session: Any, seconds: float = 10.0) -> None:
    """Until another transaction waits for this one: queued for this process's SQLite writer lock, or waiting
    for a lock this PostgreSQL transaction holds (seen from a connection of its own)."""
    bind = session.get_bind()
    if bind.dialect.name == "sqlite":
        lock = db_module._writer_lock(session_factory(bind))
        until(lambda: lock._next_ticket - lock._serving >= 2, seconds, says="nothing waited for the command")
        return
    with bind.connect() as looking:
        def waiting() -> object:
            looking.rollback()  # each look a fresh snapshot
            return looking.exec_driver_sql(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()").scalar()
        until(waiting, seconds, says="nothing waited for the command")


# --- 6. malformed input: a fixed answer, never a traceback --------------------------------------------------


AUTH_FIRST = "authenticate first: send your session token"


@pytest.mark.parametrize("first", [
    pytest.param(b'{"type": "auth", "token": "x"}', id="binary"),
    pytest.param("[" * 2000 + "]" * 2000, id="nested-2000"),
    pytest.param('{"type": "auth", "token": ' + "[" * 2000 + "]" * 2000 + "}", id="nested-token"),
    pytest.param('{"type": "auth", "token": ["a"]}', id="token-list"),
    pytest.param('{"type": "auth", "token": {"a": 1}}', id="token-object"),
    pytest.param('{"type": "auth", "token": 7}', id="token-number"),
    pytest.param('{"type": "auth", "token": "\\ud800"}', id="token-lone-surrogate"),
    pytest.param('{"type": "auth", "token": "abcd\\u0000efgh"}', id="token-nul"),
    pytest.param('{"type": "auth", "token": "two words"}', id="token-space"),
    pytest.param("\u0000", id="not-json"),
])
def test_a_malformed_first_frame_gets_a_fixed_close_reason(client, caplog, first):
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/tables/2") as socket:
        if isinstance(first, bytes):
            socket.send_bytes(first)
        else:
            socket.send_text(first)
        socket.receive_json()
    assert (closed.value.code, closed.value.reason) == (1008, AUTH_FIRST)
    assert _tracebacks(caplog) == []


@pytest.mark.parametrize("table", ["9223372036854775808", "2147483648", "0", "1" + "0" * 40])
def test_a_table_id_out_of_range_is_refused_before_any_query(client, caplog, table):
    token = _player(client, "vera", table=None)
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(f"/ws/tables/{table}") as socket:
        socket.send_json({"type": "auth", "token": token})
        socket.receive_json()
    assert (closed.value.code, closed.value.reason) == (1008, "no such table")
    assert _tracebacks(caplog) == []


def test_malformed_commands_get_fixed_error_frames(client, caplog):
    token = _player(client, "wade")
    unstorable = "holds a character that cannot be stored (NUL, U+0000, or half of a surrogate pair, U+D800 to U+DFFF)"
    deep = "The table could not read the last message (it is nested too deep): send it again."
    frames: list[tuple[str | bytes, str, dict[str, str], str]] = [
        (b'{"type": "bet", "key": "wade-bet-0001", "bets": {"banker": 500}}', "frame.binary", {},
         "The table could not read the last message (a frame is JSON text, not binary): send it again."),
        ("[" * 2000 + "]" * 2000, "frame.too_deep", {}, deep),
        ('{"type": "bet", "key": ' + "[" * 2000 + "]" * 2000 + "}", "frame.too_deep", {}, deep),
        # text the database cannot hold, anywhere in the frame: refused naming the field (baccarat.core.text)
        ('{"type": "bet", "key": "\\ud800-wade-0002", "bets": {"banker": 500}}', "request.bad_text",
         {"field": "key"}, f"key: {unstorable}: remove it and try again."),
        ('{"type": "bet", "key": "wade-bet-0003", "bets": {"\\udfff": 500}}', "request.bad_text",
         {"field": "bets"}, f"bets: {unstorable}: remove it and try again."),
        ("{", "frame.not_json", {}, "The table could not read the last message (it is not JSON): send it again."),
    ]
    with ExitStack() as stack:
        socket = _joined(stack, client, token)
        for frame, code, params, detail in frames:
            if isinstance(frame, bytes):
                socket.send_bytes(frame)
            else:
                socket.send_text(frame)
            assert _answer(socket) == {"type": "error", "error": "ConfigurationError", "code": code, "params": params,
                                       "detail": detail, "message": detail}, frame[:60]
    assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["balance"] == 100_000
    assert _tracebacks(caplog) == []


# --- 3. every frame capped, the first one too, before it is buffered ----------------------------------------


@pytest.mark.parametrize("binary", [False, True])
def test_the_first_frame_is_capped_like_every_other(client, binary):
    token = _player(client, "xena", table=None)
    frame = json.dumps({"type": "auth", "token": token, "padding": "x" * live.MAX_FRAME})
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/tables/2") as socket:
        if binary:
            socket.send_bytes(frame.encode())
        else:
            socket.send_text(frame)
        socket.receive_json()
    assert (closed.value.code, closed.value.reason) == (1009, "frame too large")


#: A server as ``baccarat serve`` runs one, on a port of its own choosing (printed first).
SERVER = """
import socket, sys
from pathlib import Path
import uvicorn
from baccarat.server.live import sockets as live
from baccarat.server.api.app import create_app
from baccarat.server.storage.settings import Settings

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
print(f"ready at http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
app = create_app(Settings(data_dir=Path(sys.argv[1]), betting_seconds=600))
uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_max_size=live.MAX_FRAME)).run(sockets=[listener])
"""


@pytest.fixture(params=["uvicorn", "baccarat serve"])
def real_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, int, Served]]:
    """A real server in a process of its own: its address, process id and the process (its stderr in a
    log file).  ``uvicorn``: started with ``ws_max_size=live.MAX_FRAME`` here; ``baccarat serve``: the
    command as shipped."""
    log = tmp_path / "server.log"
    if request.param == "uvicorn":
        command = [sys.executable, "-c", SERVER, str(tmp_path / "data")]
    else:
        command = server_kit.serve_command("--betting-seconds", "600", data_dir=tmp_path / "data")
    server = server_kit.start(command, log=log)
    try:
        base = server.url
        for _ in range(200):
            try:
                if httpx.get(base + "/health").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield base, server.pid, server
    finally:
        server.stop()


def _rss(pid: int, field: str = "VmRSS") -> int:
    """Bytes of the process's resident set (``VmHWM``: its peak since the last reset)."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB", status, re.MULTILINE)
    assert match, status
    return int(match.group(1)) * 1024


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's RSS from /proc")
def test_16_mb_first_frames_are_refused_before_they_are_buffered(real_server):
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import ConnectionClosed

    base, pid, server = real_server
    url = base.replace("http://", "ws://") + "/ws/tables/2"
    httpx.post(base + "/api/accounts", json={"username": "yuri", "password": PASSWORD})
    token = httpx.post(base + "/api/sessions", json={"username": "yuri", "password": PASSWORD}).json()["token"]
    big = '{"type": "auth", "token": "' + "x" * 16_000_000 + '"}'

    async def play() -> str:
        async with ws_connect(url) as socket:
            await socket.send(json.dumps({"type": "auth", "token": token}))
            return str(json.loads(await socket.recv())["type"])

    async def attack() -> int | None:
        # no compression: 16 MB of "x" would deflate to 16 KB
        async with ws_connect(url, compression=None, close_timeout=5) as socket:
            try:
                await socket.send(big)
                await socket.recv()
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None
        return None

    async def main() -> list[int | None]:
        assert await play() == "state"
        return list(await asyncio.gather(*(attack() for _ in range(8))))

    # the peak, not a sample: VmHWM reset to the current RSS (clear_refs 5), read after the attack
    peak_reset = True
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        peak_reset = False
    before = _rss(pid)
    codes = asyncio.run(main())
    grown = (_rss(pid, "VmHWM") if peak_reset else _rss(pid)) - before
    assert codes == [1009] * 8
    assert grown < 8 * 2**20, f"the server's RSS grew by {grown / 2**20:.1f} MiB under 8 frames of 16 MB"
    assert asyncio.run(play()) == "state"  # and it still serves
    assert "Traceback" not in server.stderr()


# --- 4. sockets per account ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_an_account_holds_at_most_max_sockets_table_sockets(client):
    token, other = _player(client, "zoe", table=None), _player(client, "abel", table=None)
    account_id = _account_id(client, token)
    with ExitStack() as stack:
        sockets = [_joined(stack, client, token, 1 + n % 3) for n in range(live.MAX_SOCKETS)]
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect("/ws/tables/1") as extra:
            extra.send_json({"type": "auth", "token": token})
            extra.receive_json()
        assert (refused.value.code, refused.value.reason) == (
            1008, "too many open tables for this account: close one first")
        _joined(stack, client, other)  # another account is not counted with this one
        sockets[0].close()
        for _ in range(50):  # the server counts the closed one out as soon as it sees it go
            if client.app.state.table_sockets[account_id] < live.MAX_SOCKETS:
                break
            time.sleep(0.02)
        with client.websocket_connect("/ws/tables/1") as again:
            again.send_json({"type": "auth", "token": token})
            assert again.receive_json()["type"] == "state"
    assert not client.app.state.table_sockets  # every socket counted out


# --- 8. Origin allow-list -----------------------------------------------------------------------------------


def _origin_allowed(client: TestClient, token: str, origin: str, host: str | None = None) -> bool:
    headers = {"origin": origin} | ({"host": host} if host else {})
    try:
        with client.websocket_connect("/ws/tables/1", headers=headers) as socket:
            socket.send_json({"type": "auth", "token": token})
            return bool(socket.receive_json()["type"] == "state")
    except WebSocketDisconnect as closed:
        assert (closed.code, closed.reason) == (1008, "origin not allowed")
        return False


def test_origins_the_server_s_own_and_no_hard_coded_port(tmp_path, monkeypatch):
    monkeypatch.delenv("BACCARAT_ALLOWED_ORIGINS", raising=False)
    assert Settings().allowed_origins == ()
    with TestClient(create_app(Settings(data_dir=tmp_path / "a"))) as client:
        token = _player(client, "olga", table=None)
        assert _origin_allowed(client, token, "http://testserver")  # the page's own
        assert _origin_allowed(client, token, "http://127.0.0.1:9000", host="127.0.0.1:9000")  # on any port
        assert not _origin_allowed(client, token, "http://127.0.0.1:8000")
        assert not _origin_allowed(client, token, "http://localhost:8000")
        assert not _origin_allowed(client, token, "https://casino.example")


def test_origins_configured_are_allowed_and_no_other(tmp_path, monkeypatch):
    monkeypatch.setenv("BACCARAT_ALLOWED_ORIGINS", " https://casino.example, https://Mirror.example/ ,")
    settings = Settings(data_dir=tmp_path / "b")
    assert settings.allowed_origins == ("https://casino.example", "https://mirror.example")
    assert Settings.from_options(data_dir=tmp_path / "b").allowed_origins == settings.allowed_origins
    with TestClient(create_app(settings)) as client:
        token = _player(client, "olga", table=None)
        assert _origin_allowed(client, token, "https://casino.example")
        assert _origin_allowed(client, token, "https://mirror.example")
        assert not _origin_allowed(client, token, "http://127.0.0.1:8000")
        assert not _origin_allowed(client, token, "https://evil.example")
    assert parse_origins("") == ()
