"""The operator console's routes over HTTP: the authorization matrix of every operator and
protection route, CSV downloads, the console summary, player lookup and game recall."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

from ...conftest import api_client


@pytest.fixture
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    yield from api_client(settings)


def _log_in(client: TestClient, name: str, role: str = "player") -> dict[str, str]:
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, name, "correct horse", grant=50_000, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


#: A valid body for each route that takes one (bodies are checked before the token).
BODIES = {"/api/operator/tables": {"name": "t-1", "game": "mini"}, "/limits": {"minimum": 100},
          "/void": {"reason": "x"}, "/credit": {"amount": 100}, "/debit": {"amount": 100},
          "/api/protection/limits": {"kind": "loss", "period": "day", "amount": 100},
          "/reality-check": {"minutes": 15}, "/break": {"hours": 24},
          "/api/operator/staff": {"username": "new_boss", "password": "correct horse", "role": "cashier"},
          "/role": {"role": "cashier"}}


@pytest.mark.parametrize("who", ["nobody", "forged", "player"])
def test_every_operator_route_refuses_players_and_strangers_and_protection_needs_a_login(client, who):
    vera = _log_in(client, "vera")
    vera_id = client.get("/api/me", headers=vera).json()["id"]
    samples = {"table_id": "1", "account_id": str(vera_id), "number": "1", "seat": "1", "request_id": "1"}
    headers, status = {"nobody": ({}, 401), "forged": ({"Authorization": "Bearer forged"}, 401),
                       "player": (vera, 403)}[who]
    operator_routes, protection_routes = 0, 0
    # the OpenAPI paths, not app.routes: FastAPI 0.165 keeps an included router as one entry there
    for path, operations in client.app.openapi()["paths"].items():
        for method in (m.upper() for m in operations):
            url = path.format(**samples)
            body = next((b for end, b in BODIES.items() if path.endswith(end)), None)
            if path.startswith("/api/operator"):
                answer = client.request(method, url, json=body, headers={**headers, "Idempotency-Key": "key-0001"})
                assert answer.status_code == status, (method, path, headers, answer.text)
                operator_routes += 1
            elif path.startswith("/api/protection") and who != "player":
                answer = client.request(method, url, json=body, headers=headers)
                assert answer.status_code == 401, (method, path, answer.text)
                protection_routes += 1
    assert operator_routes >= 15 and protection_routes == (0 if who == "player" else 4)
    # none of this changed Vera's account: no break, no limit, the balance untouched
    assert client.get("/api/protection", headers=vera).json()["blocked"] is None
    assert client.get("/api/me", headers=vera).json()["balance"] == 50_000


def test_the_console_reports_lookup_and_recall_for_an_operator(client):
    boss = _log_in(client, "pit_boss", "pit_boss")
    vera = _log_in(client, "vera")
    vera_id = client.get("/api/me", headers=vera).json()["id"]
    client.post("/api/tables/1/seats", json={}, headers=vera)
    placed = client.post("/api/tables/1/bets", json={"bets": {"banker": 1_000}},
                         headers={**vera, "Idempotency-Key": "vera-0001"})
    assert placed.status_code == 201
    tables = client.get("/api/operator/console", headers=boss).json()
    mini = next(t for t in tables if t["id"] == 1)
    assert mini["seats"] == [{"seat": 1, "account_id": vera_id, "username": "vera", "away": False}]
    assert mini["round"]["bets"] == 1 and mini["round"]["staked"] == 1_000 and mini["status"] == "open"
    found = client.get("/api/operator/players", params={"q": "VER"}, headers=boss).json()
    assert [p["username"] for p in found] == ["vera"] and found[0]["balance"] == 49_000
    player = client.get(f"/api/operator/players/{vera_id}", headers=boss).json()
    assert [line["kind"] for line in player["statement"]] == ["stake", "grant"]
    assert player["statement"][0]["bets"] == [{"bet_id": 1, "wager": "banker", "amount": 1_000, "event": None,
                                              "net": None}]
    statement = client.get(f"/api/operator/players/{vera_id}", params={"format": "csv"}, headers=boss)
    assert statement.headers["content-type"].startswith("text/csv")
    assert statement.headers["content-disposition"] == 'attachment; filename="statement-vera.csv"'
    rows = list(csv.DictReader(io.StringIO(statement.text)))
    assert [(r["kind"], r["amount"], r["balance"]) for r in rows] == [("stake", "-1000", "49000"),
                                                                      ("grant", "50000", "50000")]
    recall = client.get("/api/operator/tables/1/rounds/1", headers=boss).json()
    assert recall["status"] == "betting" and recall["bets"][0]["player"] == "vera" and recall["deal"] == []
    assert client.get("/api/operator/tables/1/rounds/99", headers=boss).status_code == 404
    for kind in ("tables", "wagers"):
        report = client.get(f"/api/operator/reports/{kind}", params={"format": "csv"}, headers=boss)
        assert report.status_code == 200 and report.text.splitlines()[0].startswith(("day,", "table_id,"))
    bad = client.get("/api/operator/reports/tables", params={"from": "2026-13-01"}, headers=boss)
    assert bad.status_code == 422 and bad.json()["message"]
    assert client.get("/api/operator/players/99999", headers=boss).status_code == 404


@pytest.mark.slow
def test_generated_requests_to_the_console_s_reads_never_break_it(tmp_path: Path):
    """The operator's read routes fuzzed from the OpenAPI schema with an operator's token (dates,
    spans, formats, ids, lines): answers or refusals, never a 5xx."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    app = create_app(Settings(data_dir=tmp_path, betting_seconds=600))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    reads = [result.ok() for result in schema.get_all_operations()]
    reads = [op for op in reads
             if op.method.upper() == "GET" and op.path.startswith(("/api/operator", "/api/protection"))]
    assert len(reads) == 11
    with TestClient(app) as client:
        client.settings = Settings(data_dir=tmp_path)  # type: ignore[attr-defined]
        boss = _log_in(client, "watcher", "surveillance")  # who may read the most of them
        codes: list[int] = []

        @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=st.one_of([op.as_strategy() for op in reads]))
        def fuzz(case):
            response = case.call(headers=boss)
            codes.append(response.status_code)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            assert "Traceback" not in response.text

        fuzz()
    assert codes.count(200) > 50 and any(code in (404, 422) for code in codes)  # both answers and refusals
