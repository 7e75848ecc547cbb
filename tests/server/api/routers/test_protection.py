"""The player protection routes (:mod:`baccarat.server.api.routers.protection`): a body's amount or minutes are
required, so a client's slip never removes a limit or the reality check (a review finding)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

# --- review findings (attack: a limit or the reality check removed by a field left out) ---------------------
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


def test_a_limit_or_reality_check_is_removed_only_when_asked_with_null_not_when_left_out(client):
    """``{"kind": "loss", "period": "day"}`` (the amount forgotten) asked to remove the limit, and
    ``{}`` turned the reality check off: a client's slip weakened the player's protection."""
    ivy = _log_in(client, "ivy")
    client.put("/api/protection/limits", json={"kind": "loss", "period": "day", "amount": 5_000}, headers=ivy)
    client.put("/api/protection/reality-check", json={"minutes": 30}, headers=ivy)
    for path, body in (("/api/protection/limits", {"kind": "loss", "period": "day"}),
                       ("/api/protection/reality-check", {})):
        answer = client.put(path, json=body, headers=ivy)
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"][0]["field"] in ("body.amount", "body.minutes")
    state = client.get("/api/protection", headers=ivy).json()
    assert state["reality_minutes"] == 30
    assert [(limit["amount"], limit["pending_from"]) for limit in state["limits"]] == [(5_000, None)]
