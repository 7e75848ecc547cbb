"""Fuzzing the HTTP API from its own OpenAPI schema (Schemathesis strategies driven by
Hypothesis): no 5xx, no traceback, no ledger drift.  2,100 generated requests over all
operations; half of them carry a valid player token so that they reach past authentication."""

from __future__ import annotations

from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import seating
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

REQUESTS = 2_100


@pytest.mark.slow
def test_generated_requests_never_break_the_server(tmp_path: Path):
    settings_ = Settings(data_dir=tmp_path, betting_seconds=0.5)
    app = create_app(settings_)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 14
    cases = st.one_of([operation.as_strategy() for operation in operations])
    sent: list[int] = []
    with TestClient(app) as client:  # runs the lifespan: migrations, tables, the dealer
        with connect(settings_.url) as sessions:
            transaction(sessions, lambda s: accounts.register(s, "fuzzer", "correct horse", grant=100_000))
            transaction(sessions, lambda s: seating.sit(s, 1, 1))
        token = client.post("/api/sessions", json={"username": "fuzzer", "password": "correct horse"}).json()["token"]

        @settings(max_examples=REQUESTS, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=cases, authorized=st.booleans())
        def fuzz(case, authorized):
            headers = {"Authorization": f"Bearer {token}"} if authorized else {}
            response = case.call(headers=headers)
            sent.append(response.status_code)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            assert "Traceback" not in response.text

        fuzz()
    assert len(sent) >= 2_000
    assert any(code < 300 for code in sent) and any(code >= 400 for code in sent)
    with connect(settings_.url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
