"""The administrator's work (:mod:`baccarat.server.operator.staff`): staff accounts made and given roles, each
change in the audit trail; nobody changes their own role; a player becomes staff only with nothing left to play
with, and a role changed ends the account's sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.storage.settings import Settings

from ...conftest import api_client, signed_in


@pytest.fixture
def client(tmp_path: Path):
    yield from api_client(Settings(data_dir=tmp_path, betting_seconds=600))


def _session(client: TestClient, name: str, password: str = "correct horse") -> dict[str, str]:
    token = client.post("/api/sessions", json={"username": name, "password": password}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_the_administrator_makes_staff_and_gives_roles(client):
    admin = signed_in(client, "head", "admin")
    made = client.post("/api/operator/staff", json={"username": "cass", "password": "a long password",
                                                   "role": "cashier"}, headers=admin)
    assert made.status_code == 201, made.text
    cass_id = made.json()["account_id"]
    assert client.post("/api/operator/staff", json={"username": "cass", "password": "a long password",
                                                   "role": "cashier"}, headers=admin).status_code == 409  # taken
    player_role = client.post("/api/operator/staff", json={"username": "pete", "password": "a long password",
                                                          "role": "player"}, headers=admin)
    assert player_role.status_code == 422  # staff only: a player registers as one
    listed = client.get("/api/operator/staff", headers=admin).json()
    assert listed["roles"] == ["cashier", "pit_boss", "surveillance", "admin"]
    assert [(m["username"], m["role"]) for m in listed["staff"]] == [("cass", "cashier"), ("head", "admin")]
    cass = _session(client, "cass", "a long password")
    assert client.get("/api/me", headers=cass).json()["actions"] == ["move_money", "approve_credits", "players"]
    # a new role: the account's sessions end, it logs in again as pit boss
    moved = client.put(f"/api/operator/accounts/{cass_id}/role", json={"role": "pit_boss"}, headers=admin)
    assert moved.status_code == 200 and moved.json()["role"] == "pit_boss", moved.text
    assert client.get("/api/me", headers=cass).status_code == 401
    assert client.get("/api/me", headers=_session(client, "cass", "a long password")).json()["role"] == "pit_boss"
    me = client.get("/api/me", headers=admin).json()["id"]
    own = client.put(f"/api/operator/accounts/{me}/role", json={"role": "cashier"}, headers=admin)
    assert own.status_code == 409 and own.json()["code"] == "staff.own_role", own.text
    unknown = client.put("/api/operator/accounts/999/role", json={"role": "cashier"}, headers=admin)
    assert unknown.status_code == 404
    made_up = client.put(f"/api/operator/accounts/{cass_id}/role", json={"role": "croupier"}, headers=admin)
    assert made_up.status_code == 422  # not a role the schema lists
    trail = client.get("/api/operator/audit", headers=admin).json()
    assert [(e["actor"], e["action"], e["after"]["role"]) for e in trail] == [
        ("head", "create_staff", "cashier"), ("head", "set_role", "pit_boss")]
    assert trail[1]["before"] == {"role": "cashier"}


def test_a_player_becomes_staff_only_with_nothing_left_to_play_with(client):
    admin, cashier = signed_in(client, "head", "admin"), signed_in(client, "cass", "cashier")
    vera = signed_in(client, "vera")
    vera_id = client.get("/api/me", headers=vera).json()["id"]
    role = f"/api/operator/accounts/{vera_id}/role"
    refused = client.put(role, json={"role": "surveillance"}, headers=admin)
    assert refused.status_code == 409 and refused.json()["code"] == "staff.wallet_not_empty", refused.text
    assert refused.json()["params"] == {"username": "vera", "balance": 10_000}
    assert client.post("/api/tables/2/seats", json={}, headers=vera).status_code == 201
    assert client.post(f"/api/operator/wallets/{vera_id}/debit", json={"amount": 10_000},
                       headers={**cashier, "Idempotency-Key": "debit-vera"}).status_code == 200
    seated = client.put(role, json={"role": "surveillance"}, headers=admin)
    assert seated.status_code == 409 and seated.json()["code"] == "staff.still_playing", seated.text
    assert client.delete("/api/tables/2/seats", headers=vera).status_code == 204
    assert client.put(role, json={"role": "surveillance"}, headers=admin).json()["role"] == "surveillance"
    assert client.get("/api/me", headers=vera).status_code == 401  # that session ended
    # and back: a member of staff made a player again plays again (after a cashier's credit)
    assert client.put(role, json={"role": "player"}, headers=admin).json()["role"] == "player"
    assert client.post(f"/api/operator/wallets/{vera_id}/credit", json={"amount": 500},
                       headers={**cashier, "Idempotency-Key": "credit-vera"}).json()["balance"] == 500
