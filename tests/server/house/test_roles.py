"""Staff roles with separated duties (:mod:`baccarat.server.house.roles`): every staff route called with the token of
every role (and a player's) answers 403 exactly where the role may not take its action; staff do not play.

The expected matrix is written out here, from the duties (issue 38): a cashier moves money, a pit boss runs the
tables, surveillance reads everything and changes nothing, an administrator gives the roles.  It is not read from
the module it tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baccarat.server.house import roles
from baccarat.server.storage.settings import Settings

from ...conftest import api_client, signed_in

CASHIER, PIT_BOSS, SURVEILLANCE, ADMIN = "cashier", "pit_boss", "surveillance", "admin"
#: (method, path) -> the roles that may call it, and a valid body.
ROUTES: dict[tuple[str, str], tuple[set[str], dict[str, Any] | None]] = {
    ("POST", "/api/operator/tables"): ({PIT_BOSS}, {"name": "t-{role}", "game": "mini"}),
    ("POST", "/api/operator/tables/{table_id}/close"): ({PIT_BOSS}, None),
    ("POST", "/api/operator/tables/{table_id}/open"): ({PIT_BOSS}, None),
    ("PUT", "/api/operator/tables/{table_id}/limits"): ({PIT_BOSS}, {"minimum": 100}),
    ("POST", "/api/operator/tables/{table_id}/rounds/{number}/void"): ({PIT_BOSS}, {"reason": "misdeal"}),
    ("POST", "/api/operator/tables/{table_id}/seats/{seat}/stand"): ({PIT_BOSS}, None),
    ("POST", "/api/operator/wallets/{account_id}/credit"): ({CASHIER}, {"amount": 100}),
    ("POST", "/api/operator/wallets/{account_id}/debit"): ({CASHIER}, {"amount": 100}),
    ("GET", "/api/operator/credits"): ({CASHIER, PIT_BOSS}, None),
    ("POST", "/api/operator/credits/{request_id}/approve"): ({CASHIER, PIT_BOSS}, None),
    ("POST", "/api/operator/credits/{request_id}/reject"): ({CASHIER, PIT_BOSS}, None),
    ("GET", "/api/operator/console"): ({PIT_BOSS, SURVEILLANCE}, None),
    ("GET", "/api/operator/reports/tables"): ({PIT_BOSS, SURVEILLANCE}, None),
    ("GET", "/api/operator/reports/wagers"): ({PIT_BOSS, SURVEILLANCE}, None),
    ("GET", "/api/operator/players"): ({CASHIER, PIT_BOSS, SURVEILLANCE}, None),
    ("GET", "/api/operator/players/{account_id}"): ({CASHIER, PIT_BOSS, SURVEILLANCE}, None),
    ("GET", "/api/operator/tables/{table_id}/rounds/{number}"): ({PIT_BOSS, SURVEILLANCE}, None),
    ("GET", "/api/operator/audit"): ({SURVEILLANCE, ADMIN}, None),
    ("GET", "/api/operator/audit/verify"): ({SURVEILLANCE, ADMIN}, None),
    ("GET", "/api/operator/staff"): ({ADMIN}, None),
    ("POST", "/api/operator/staff"): ({ADMIN}, {"username": "new_{role}", "password": "correct horse",
                                                "role": CASHIER}),
    ("PUT", "/api/operator/accounts/{account_id}/role"): ({ADMIN}, {"role": "player"}),
}
#: The ids in the paths: nothing there (a route a role may call answers 404 and changes nothing), except the
#: reads' table and round (a recall of a round in play).
IDS = {"table_id": "999", "number": "1", "seat": "1", "account_id": "999", "request_id": "999"}


@pytest.fixture
def client(tmp_path: Path):
    yield from api_client(Settings(data_dir=tmp_path, betting_seconds=600))


def test_the_matrix_names_every_staff_route_and_me_says_what_each_role_may(client):
    staff_paths = {(method.upper(), path) for path, operations in client.app.openapi()["paths"].items()
                   for method in operations if path.startswith("/api/operator")}
    assert staff_paths == set(ROUTES)  # a new staff route is added here, with its roles
    tokens = {role: signed_in(client, f"the_{role}", role) for role in ("player", *roles.STAFF)}
    shown = {role: client.get("/api/me", headers=headers).json()["actions"] for role, headers in tokens.items()}
    assert shown["player"] == [] and "move_money" in shown[CASHIER] and "recall_in_play" in shown[SURVEILLANCE]
    assert not {"move_money", "open_tables", "staff"} & set(shown[SURVEILLANCE])
    assert set(shown[ADMIN]) == {"audit", "staff"}


@pytest.mark.parametrize("role", ["player", *roles.STAFF])
def test_every_staff_route_answers_a_role_only_if_it_is_its_duty(client, role):
    headers = signed_in(client, f"the_{role}", role)
    for (method, path), (allowed, body) in ROUTES.items():
        sent = None if body is None else {k: v.format(role=role) if isinstance(v, str) else v for k, v in body.items()}
        answer = client.request(method, path.format(**IDS), json=sent,
                                headers={**headers, "Idempotency-Key": f"roles-{role}-{len(path)}"})
        if role in allowed:
            assert answer.status_code != 403, (method, path, role, answer.text)
            assert answer.status_code < 500, (method, path, role, answer.text)
        else:
            assert answer.status_code == 403, (method, path, role, answer.text)
            refusal = answer.json()
            assert refusal["code"] == "auth.staff_only" and set(refusal["params"]["roles"]) == allowed, refusal


def test_staff_do_not_play_and_hold_no_money(client):
    """A staff account sits nowhere and bets on nothing, over REST and on the table's socket (which it may watch);
    a cashier's credit to a staff wallet (their own) is refused; a staff account is made with no grant."""
    cashier = signed_in(client, "cash", CASHIER)
    me = client.get("/api/me", headers=cashier).json()
    assert me["role"] == CASHIER and me["balance"] == 0  # registered with a grant of 50,000: none given
    sat = client.post("/api/tables/2/seats", json={}, headers=cashier)
    assert sat.status_code == 403 and sat.json()["code"] == "auth.staff_cannot_play", sat.text
    bet = client.post("/api/tables/2/bets", json={"bets": {"banker": 100}},
                      headers={**cashier, "Idempotency-Key": "staff-bet-01"})
    assert bet.status_code == 403 and bet.json()["code"] == "auth.staff_cannot_play", bet.text
    back = client.post("/api/tables/2/take-back", json={"bets": {"banker": 100}},
                       headers={**cashier, "Idempotency-Key": "staff-back-01"})
    assert back.status_code == 403 and back.json()["code"] == "auth.staff_cannot_play", back.text
    own = client.post(f"/api/operator/wallets/{me['id']}/credit", json={"amount": 100},
                      headers={**cashier, "Idempotency-Key": "own-credit-01"})
    assert own.status_code == 409 and own.json()["code"] == "operator.staff_wallet", own.text
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": cashier["Authorization"].removeprefix("Bearer ")})
        assert socket.receive_json()["type"] == "state"  # watching is allowed
        socket.send_json({"type": "bet", "key": "socket-bet-0001", "bets": {"banker": 100}})
        refused = socket.receive_json()
        while refused["type"] != "error":
            refused = socket.receive_json()
        assert refused["code"] == "auth.staff_cannot_play", refused
    assert client.get("/api/me", headers=cashier).json()["balance"] == 0
