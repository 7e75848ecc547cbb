"""Operators' actions (:mod:`baccarat.server.operator.actions`): crediting an account that does not exist is
404 saying what to do (a review finding), and a round voided over REST and from the command line (every
stake refunded, a second void refused)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

# --- review findings (attack: money moved to an account that does not exist) --------------------------------
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


def test_crediting_an_account_that_does_not_exist_is_404_and_says_what_to_do(client):
    cashier = _log_in(client, "cashier", "cashier")
    answer = client.post("/api/operator/wallets/999/credit", json={"amount": 100},
                         headers={**cashier, "Idempotency-Key": "credit-999-1"})
    assert answer.status_code == 404, answer.text
    assert answer.json()["message"] == "There is no account 999: look the player up by name first."
    assert client.get("/api/operator/audit", headers=_log_in(client, "watcher", "surveillance")).json() == []


# --- rounds that must never stop a table: operators void rounds ---------------------------------------------


def test_an_operator_voids_a_round_over_rest_and_from_the_command_line(tmp_path):
    from fastapi.testclient import TestClient

    from baccarat.cli.app import main
    from baccarat.server.api.app import create_app
    from baccarat.server.storage.db import connect
    from baccarat.server.storage.settings import Settings

    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    with TestClient(create_app(settings)) as client:
        with connect(settings.url) as s:
            transaction(s, lambda x: accounts.register(x, "pit_boss", "correct horse", grant=0, role="pit_boss"))
        boss = {"Authorization": "Bearer " + client.post(
            "/api/sessions", json={"username": "pit_boss", "password": "correct horse"}).json()["token"]}
        client.post("/api/accounts", json={"username": "vera", "password": "correct horse"})
        vera = {"Authorization": "Bearer " + client.post(
            "/api/sessions", json={"username": "vera", "password": "correct horse"}).json()["token"]}
        table = client.get("/api/tables").json()[0]
        client.post(f"/api/tables/{table['id']}/seats", json={}, headers=vera)
        placed = client.post(f"/api/tables/{table['id']}/bets", json={"bets": {"banker": 1_000}, "round": 1},
                             headers={**vera, "Idempotency-Key": "void-test-1"})
        assert placed.status_code == 201, placed.text
        url = f"/api/operator/tables/{table['id']}/rounds/1/void"
        assert client.post(url, json={"reason": "x"}, headers=vera).status_code == 403
        voided = client.post(url, json={"reason": "card misdealt on the felt"}, headers=boss)
        assert voided.status_code == 200, voided.text
        assert voided.json()["refunded"] == 1_000
        assert client.get("/api/me", headers=vera).json()["balance"] == settings.grant
        again = client.post(url, json={"reason": "again"}, headers=boss)
        assert again.status_code == 409 and "already void" in again.json()["detail"]
        history = client.get("/api/history", headers=vera).json()
        assert history[0]["status"] == "void" and history[0]["detail"]["void"] == "card misdealt on the felt"
        # round 2 is open with nothing on it; the command line voids it
        code = main(["void-round", str(table["id"]), "2", "--reason", "testing the command",
                     "--data-dir", str(tmp_path)])
        assert code == 0
        assert client.get(f"/api/tables/{table['id']}").json()["round"]["number"] == 3
        assert main(["void-round", str(table["id"]), "2", "--reason", "again", "--data-dir", str(tmp_path)]) == 1
