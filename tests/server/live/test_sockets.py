"""The table WebSocket: authentication, Origin check, live state, commands with idempotency keys,
and 10,000 malformed frames that change nothing."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from baccarat.server.storage.settings import Settings

from ...conftest import api_client


@pytest.fixture
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    yield from api_client(settings)


def _token(client: TestClient, name: str) -> str:
    client.post("/api/accounts", json={"username": name, "password": "correct horse"})
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    client.post("/api/tables/2/seats", json={}, headers={"Authorization": f"Bearer {token}"})
    return token


def _answer(socket):
    """The next answer to a command (state pushes may come in between)."""
    message = socket.receive_json()
    while message["type"] == "state":
        message = socket.receive_json()
    return message


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
