"""The table WebSocket under attack (issue 11): sockets closed on logout and token expiry (4401),
malformed input refused without a traceback, every frame capped (the first one too, and before it is
buffered on a real server), a cap on sockets per account, the Origin allow-list and the page's CSP."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from starlette.websockets import WebSocketDisconnect

from baccarat.server.api.app import create_app
from baccarat.server.live import feed as feed_module
from baccarat.server.live import sockets as live
from baccarat.server.storage import db as db_module
from baccarat.server.storage.db import connect, session_factory, transaction
from baccarat.server.storage.models import Token
from baccarat.server.storage.settings import Settings, parse_origins

from ... import server_kit
from ...conftest import ON_BOTH, api_client, until
from ...server_kit import Served

PASSWORD = "correct horse"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """SQLite: for what does not depend on the database."""
    yield from api_client(Settings(data_dir=tmp_path, betting_seconds=600))


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


def _receive_within(socket: Any, seconds: float) -> dict[str, Any]:
    """The next message the server sends, or TimeoutError (the test client's own receive waits forever)."""
    async def receive() -> dict[str, Any]:
        with anyio.fail_after(seconds):
            message: dict[str, Any] = await socket._send_rx.receive()
            return message
    return socket.portal.call(receive)  # type: ignore[no-any-return]


def _closed_within(socket: Any, seconds: float) -> tuple[int, str]:
    """The close code and reason, the server closing within ``seconds`` (state pushes skipped)."""
    deadline = time.monotonic() + seconds
    while True:
        message = _receive_within(socket, max(0.0, deadline - time.monotonic()))
        if message["type"] == "websocket.close":
            return message.get("code", 1000), message.get("reason", "")


def _answer(socket: Any) -> dict[str, Any]:
    """The next answer to a command, or the close (state pushes skipped)."""
    while True:
        message = _receive_within(socket, 10)
        if message["type"] == "websocket.close":
            return {"type": "close", "code": message.get("code"), "reason": message.get("reason")}
        answer: dict[str, Any] = json.loads(message["text"])
        if answer["type"] != "state":
            return answer


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    # the dealer's own records (rounds it failed to deal) are another test's business
    return [record.getMessage() for record in caplog.records
            if (record.exc_info or record.levelno >= logging.ERROR) and not record.name.startswith("baccarat.dealer")
            and "deal" not in record.getMessage()]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- 1. signed out: 4401 ------------------------------------------------------------------------


@ON_BOTH
@pytest.mark.slow
def test_logout_closes_the_account_s_sockets_with_4401_within_a_second(any_client):
    token, other = _player(any_client, "ruth"), _player(any_client, "sam")
    with ExitStack() as stack:
        mine = [_joined(stack, any_client, token, table) for table in (1, 2)]
        theirs = _joined(stack, any_client, other)
        assert any_client.delete("/api/sessions", headers={"Authorization": f"Bearer {token}"}).status_code == 204
        started = time.monotonic()
        for socket in mine:
            assert _closed_within(socket, 1.0) == (live.SIGNED_OUT, "signed out: log in again")
        assert time.monotonic() - started < 1.0
        theirs.send_json({"type": "bet", "key": "sam-bet-0001", "bets": {"banker": 500}})
        assert _answer(theirs)["type"] == "ok"  # another account's socket on the same table plays on


@pytest.fixture
def held_client(manual_time, tmp_path: Path) -> Iterator[TestClient]:
    """:func:`client` on the test's own time (``manual_time``): the table feeds read when the test moves it."""
    yield from api_client(Settings(data_dir=tmp_path, betting_seconds=600))


def test_an_expired_token_closes_its_sockets_with_4401_at_the_feed_s_next_read(manual_time, held_client):
    """The feed looks at the tokens at every read (every POLL without LISTEN/NOTIFY): a socket whose token
    expired is closed at the next one, and not before it (a socket whose token is never looked at again would
    stay open for good)."""
    token = _player(held_client, "tess")
    with ExitStack() as stack:
        socket = _joined(stack, held_client, token)
        with connect(held_client.settings.url) as sessions:  # type: ignore[attr-defined]
            def expire(s: Any) -> None:
                s.get(Token, _digest(token)).expires_at = manual_time.now() - timedelta(seconds=1)
            transaction(sessions, expire)
        manual_time.advance(feed_module.POLL / 2)  # the feed's next read is not due yet: the socket stays open
        with pytest.raises(anyio.WouldBlock):
            socket._send_rx.receive_nowait()
        manual_time.advance(feed_module.POLL / 2)
        assert _closed_within(socket, 10.0) == (live.SIGNED_OUT, "signed out: log in again")


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


@pytest.mark.slow
def test_one_token_query_per_poll_for_all_of_a_table_s_sockets(client):
    engine = client.app.state.sessions.kw["bind"]
    looked: list[str] = []

    def count(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if re.search(r"\bFROM tokens\b", statement):
            looked.append(statement)

    with ExitStack() as stack:
        for n in range(6):
            _joined(stack, client, _player(client, f"watcher{n}", table=None))
        event.listen(engine, "before_cursor_execute", count)
        try:
            time.sleep(1.0)
        finally:
            event.remove(engine, "before_cursor_execute", count)
    assert 1 <= len(looked) <= 1.0 / feed_module.POLL + 2, len(looked)  # not one per socket and poll


# --- 6. malformed input: a fixed answer, never a traceback ----------------------------------------

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


# --- 3. every frame capped, the first one too, before it is buffered ---------------------------


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


# --- 4. sockets per account ---------------------------------------------------------------------


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


def _account_id(client: TestClient, token: str) -> int:
    return int(client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["id"])


# --- 8. Origin allow-list and CSP connect-src ---------------------------------------------------


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


def _connect_src(client: TestClient, host: str | None = None) -> str:
    policy = client.get("/", headers={"host": host} if host else {}).headers["content-security-policy"]
    directives = dict(directive.split(" ", 1) for directive in policy.split("; "))
    return directives["connect-src"]


def test_csp_connect_src_is_the_page_s_own_host_only(client):
    assert _connect_src(client) == "'self' ws://testserver wss://testserver"
    assert _connect_src(client, "127.0.0.1:9000") == "'self' ws://127.0.0.1:9000 wss://127.0.0.1:9000"
    assert _connect_src(client, "[::1]:8000") == "'self' ws://[::1]:8000 wss://[::1]:8000"
    for host in ("evil.example; script-src *", "a b", "x/y", "[::1", "-bad.example", "x" * 300, "host:123456"):
        assert _connect_src(client, host) == "'self'", host


def test_a_change_wakes_every_waiting_socket_and_a_closed_one_leaves_the_others_waiting():
    """The feed wakes thousands of sockets in one pass (each waits on a future of its own, not on a shared
    condition whose lock every woken socket re-acquires in turn), a slice at a time with the event loop
    free in between; a socket that closes while waiting takes only its own wait with it."""

    async def scenario() -> None:
        feed = live.TableFeed(None, 1)  # type: ignore[arg-type] - no database: the waits alone
        woken: list[int] = []

        async def socket(index: int) -> None:
            await feed.wait_newer(0)
            woken.append(index)
        tasks = [asyncio.create_task(socket(i)) for i in range(3000)]
        gone = asyncio.create_task(feed.wait_newer(0, "digest-of-a-closed-socket"))
        await asyncio.sleep(0)
        assert len(feed.waiting) == 3001 and not woken
        gone.cancel()
        await asyncio.sleep(0)
        assert len(feed.waiting) == 3000 and not any(task.done() for task in tasks)
        await feed._wake()  # woken with no newer view: they wait again
        await asyncio.sleep(0)
        assert len(feed.waiting) == 3000 and not woken
        feed.version += 1
        waking = asyncio.create_task(feed._wake())
        while not woken:  # this task (standing for a bet read from the network) runs between the slices
            await asyncio.sleep(0)
        assert len(woken) <= 2 * feed_module.SLICE and not waking.done()
        await waking
        await asyncio.gather(*tasks)
        assert sorted(woken) == list(range(3000)) and not feed.waiting
        signed_out = asyncio.create_task(feed.wait_newer(1, "a-token"))  # up to date: waits for a sign-out
        await asyncio.sleep(0)
        feed.signed_out.add("a-token")
        await feed._wake()
        await asyncio.wait_for(signed_out, 1)

    asyncio.run(scenario())
