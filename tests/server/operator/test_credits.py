"""The four-eyes rule on credits (:mod:`baccarat.server.operator.credits`): a cashier's credit that takes a player's
credits of the day above the house's threshold moves nothing until a second member of staff approves it; whoever
asked cannot approve; a decided request is decided once (two approvers at once make one credit).  On both
databases: money moves here."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from baccarat.server.storage.settings import Settings

from ...conftest import ON_BOTH, ON_POSTGRESQL, api_client, signed_in

THRESHOLD = 100_000  # 1,000.00


@pytest.fixture
def client(tmp_path: Path, database_url: str):
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600,
                        credit_approval_above=THRESHOLD)
    yield from api_client(settings)


def _credit(client: TestClient, headers: dict[str, str], account: int, amount: int, key: str) -> Any:
    return client.post(f"/api/operator/wallets/{account}/credit", json={"amount": amount, "memo": "comp"},
                       headers={**headers, "Idempotency-Key": key})


@ON_BOTH
def test_a_credit_above_the_threshold_waits_for_a_second_member_of_staff(client):
    cashier, second = signed_in(client, "cashier_a", "cashier"), signed_in(client, "cashier_b", "cashier")
    boss, watcher = signed_in(client, "pit_boss", "pit_boss"), signed_in(client, "watcher", "surveillance")
    vera = signed_in(client, "vera")
    vera_id = client.get("/api/me", headers=vera).json()["id"]
    at_threshold = _credit(client, cashier, vera_id, THRESHOLD, "credit-small")  # at the threshold: at once
    assert at_threshold.json() == {"account_id": vera_id, "balance": 10_000 + THRESHOLD, "awaiting_approval": None}
    asked = _credit(client, cashier, vera_id, THRESHOLD + 1, "credit-big")
    assert asked.status_code == 200, asked.text
    request = asked.json()["awaiting_approval"]
    assert request is not None and asked.json()["balance"] == 10_000 + THRESHOLD  # nothing moved
    assert _credit(client, cashier, vera_id, THRESHOLD + 1, "credit-big").json() == asked.json()  # a retry: the same
    waiting = client.get("/api/operator/credits", headers=second).json()
    assert [(c["id"], c["player"], c["amount"], c["requested_by"], c["state"]) for c in waiting] == [
        (request, "vera", THRESHOLD + 1, "cashier_a", "pending")]
    own = client.post(f"/api/operator/credits/{request}/approve", headers=cashier)
    assert own.status_code == 409 and own.json()["code"] == "credit.own_request", own.text
    assert client.post(f"/api/operator/credits/{request}/approve", headers=watcher).status_code == 403
    approved = client.post(f"/api/operator/credits/{request}/approve", headers=second)
    assert approved.status_code == 200 and approved.json()["state"] == "approved", approved.text
    assert approved.json()["decided_by"] == "cashier_b" and approved.json()["transaction_id"] is not None
    assert client.get("/api/me", headers=vera).json()["balance"] == 10_000 + 2 * THRESHOLD + 1
    again = client.post(f"/api/operator/credits/{request}/reject", headers=boss)
    assert again.status_code == 409 and again.json()["code"] == "credit.decided", again.text
    assert again.json()["params"] == {"request": request, "state": "approved"}
    # a second request, rejected: nothing moves, and it cannot be approved afterwards
    rejected = _credit(client, second, vera_id, 5 * THRESHOLD, "credit-bigger").json()["awaiting_approval"]
    assert client.post(f"/api/operator/credits/{rejected}/reject", headers=boss).json()["state"] == "rejected"
    late = client.post(f"/api/operator/credits/{rejected}/approve", headers=cashier)
    assert late.status_code == 409 and late.json()["params"]["state"] == "rejected"
    assert client.get("/api/me", headers=vera).json()["balance"] == 10_000 + 2 * THRESHOLD + 1
    assert client.get("/api/operator/credits", headers=boss).json() == []
    unknown = client.post("/api/operator/credits/999/approve", headers=boss)
    assert unknown.status_code == 404 and unknown.json()["code"] == "credit.unknown"
    # the trail: who asked, who approved, the movement linked; and it verifies
    trail = [(e["actor"], e["action"]) for e in client.get("/api/operator/audit", headers=watcher).json()]
    assert trail == [("cashier_a", "credit"), ("cashier_a", "request_credit"), ("cashier_b", "credit"),
                     ("cashier_b", "request_credit"), ("pit_boss", "reject_credit")]
    made = client.get("/api/operator/audit", headers=watcher).json()[2]["after"]
    assert made["requested_by"] == "cashier_a" and made["request"] == request and made["amount"] == THRESHOLD + 1
    check = client.get("/api/operator/audit/verify", headers=watcher).json()
    assert check["ok"] and check["movements"] == 2, check


@ON_BOTH
def test_credits_split_under_the_threshold_reach_it_together(client):
    """The rerun's insider attack: a cashier credited just under the threshold any number of times (to an account of
    their own, say) with no second pair of eyes.  The threshold is on a player's credits of the last day: the credit
    that takes them over it waits for approval; another player's is counted apart; debits do not count."""
    cashier = signed_in(client, "cashier_a", "cashier")
    vera = client.get("/api/me", headers=signed_in(client, "vera")).json()["id"]
    walt = client.get("/api/me", headers=signed_in(client, "walt")).json()["id"]
    below = THRESHOLD - 1
    assert _credit(client, cashier, vera, below, "credit-split-1").json()["awaiting_approval"] is None
    assert _credit(client, cashier, vera, 1, "credit-split-2").json()["awaiting_approval"] is None  # at the threshold
    waits = _credit(client, cashier, vera, below, "credit-split-3").json()
    assert waits["awaiting_approval"] is not None and waits["balance"] == 10_000 + THRESHOLD  # nothing moved
    assert _credit(client, cashier, walt, below, "credit-split-4").json()["awaiting_approval"] is None  # walt's own day
    debit = client.post(f"/api/operator/wallets/{walt}/debit", json={"amount": 500, "memo": "cash out"},
                        headers={**cashier, "Idempotency-Key": "credit-split-5"})
    assert debit.status_code == 200, debit.text
    assert _credit(client, cashier, walt, 2, "credit-split-6").json()["awaiting_approval"] is not None


@ON_POSTGRESQL
def test_two_approvers_at_once_make_one_credit(client):
    """Each approval locks its request first: of two at once, one makes the credit and the other finds it
    decided (on PostgreSQL, where the two transactions run side by side)."""
    cashier = signed_in(client, "cashier_a", "cashier")
    approvers = [signed_in(client, "cashier_b", "cashier"), signed_in(client, "pit_boss", "pit_boss")]
    vera_id = client.get("/api/me", headers=signed_in(client, "vera")).json()["id"]
    request = _credit(client, cashier, vera_id, 2 * THRESHOLD, "credit-race").json()["awaiting_approval"]
    codes: list[int] = []
    threads = [threading.Thread(target=lambda h=h: codes.append(
        client.post(f"/api/operator/credits/{request}/approve", headers=h).status_code)) for h in approvers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200, 409]
    assert client.get("/api/operator/players/" + str(vera_id), headers=approvers[1]).json()["balance"] == (
        10_000 + 2 * THRESHOLD)
