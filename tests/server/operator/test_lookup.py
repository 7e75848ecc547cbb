"""Looking players up (:mod:`baccarat.server.operator.lookup`): a lookup by a number the id column cannot hold
(or that is not ASCII) is matched by name, never a 500 (a review finding)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

# --- review findings (attack: a player looked up by an odd number) ------------------------------------------
# (red-team findings: each test failed before its fix; see the commit that brought it)


@pytest.fixture
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client
    with connect(settings.url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


def _log_in(client: TestClient, name: str, role: str = "player") -> dict[str, str]:
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, name, "correct horse", grant=50_000, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("q", ["99999999999999999999", "2147483648", "\u00b2", "\u0663"])
def test_player_lookup_by_an_odd_number_answers_not_500(client, q):
    boss = _log_in(client, "pit_boss", "pit_boss")
    answer = client.get("/api/operator/players", params={"q": q}, headers=boss)
    assert answer.status_code == 200, answer.text
    assert answer.json() == []
