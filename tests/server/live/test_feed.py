"""A table's feed (:mod:`baccarat.server.live.feed`) under attack (issue 11): the watchers' tokens read once a
poll for all of a table's sockets, a socket closed (4401) within a second of its logout or at the next read
after its token expired, and every waiting socket woken by a change."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from baccarat.server.live import feed as feed_module
from baccarat.server.live import sockets as live
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.models import GameTable, Token
from baccarat.server.storage.settings import Settings

from ...conftest import ON_BOTH, api_client

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


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- 1. signed out: 4401 (attack: a socket kept after its logout or its token's expiry) ---------------------


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


# --- a crowd of waiting sockets -----------------------------------------------------------------------------


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


# --- 2. the pushes' size: the wagers once a socket ----------------------------------------------------------


def _pushed(socket: Any) -> dict[str, Any]:
    """The next state push's table view."""
    frame = json.loads(_receive_within(socket, 10.0)["text"])
    assert frame["type"] == "state"
    return frame["table"]  # type: ignore[no-any-return]


def test_a_socket_is_sent_the_wagers_in_its_first_push_and_again_only_when_they_change(manual_time, held_client):
    """The wagers are three quarters of a view: asked ``"wagers": "once"`` (the page), a push leaves them out
    when its socket has them already (a crowd's pushes a third of the size); a new socket gets them, and every
    socket gets them again when they change (an operator's new limits change each wager's maximum).  A client
    that does not ask gets them in every push."""
    ann, bob, cy = _player(held_client, "ann"), _player(held_client, "bob"), _player(held_client, "cyd")
    rest = held_client.get("/api/tables/2").json()
    with ExitStack() as stack:
        first = stack.enter_context(held_client.websocket_connect("/ws/tables/2"))
        first.send_json({"type": "auth", "token": ann, "wagers": "once"})
        every = stack.enter_context(held_client.websocket_connect("/ws/tables/2"))
        every.send_json({"type": "auth", "token": cy})
        assert _pushed(every)["wagers"] == rest["wagers"]
        view = _pushed(first)
        assert view["wagers"] == rest["wagers"] and len(json.dumps(view["wagers"])) > len(json.dumps(view)) / 2
        placed = held_client.post("/api/tables/2/bets", json={"bets": {"banker": 500}},
                                  headers={"Authorization": f"Bearer {bob}", "Idempotency-Key": "bob-bet-0001"})
        assert placed.status_code == 201, placed.text
        manual_time.advance(feed_module.POLL)
        slim = _pushed(first)  # the bet changed the view: pushed without the wagers
        assert "wagers" not in slim and set(slim) == set(view) - {"wagers"}
        assert slim["spots"]["banker"] != view["spots"].get("banker")
        assert _pushed(every) == {**slim, "wagers": rest["wagers"]}  # not asked: the whole view
        second = stack.enter_context(held_client.websocket_connect("/ws/tables/2"))
        second.send_json({"type": "auth", "token": bob, "wagers": "once"})
        assert _pushed(second)["wagers"] == rest["wagers"]  # a socket's first push has them
        with connect(held_client.settings.url) as sessions:  # type: ignore[attr-defined]
            def lower(s: Any) -> None:
                table = s.get(GameTable, 2)
                table.limits = json.dumps({**view["limits"], "maximums": {
                    code: amount // 2 for code, amount in view["limits"]["maximums"].items()}})
            transaction(sessions, lower)
        manual_time.advance(feed_module.POLL)
        for socket in (first, second):
            wagers = {w["code"]: w["maximum"] for w in _pushed(socket)["wagers"]}
            assert wagers["banker"] == view["limits"]["maximums"]["banker"] // 2
