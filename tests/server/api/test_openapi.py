"""``/openapi.json`` documents every answer: each route has a response model for its success and the
shared refusal shape for its errors, and what a route returns passes through its model unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.storage.settings import Settings


@pytest.fixture
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'api.db'}", grant=50_000)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _operations(client: TestClient):
    for path, operations in client.get("/openapi.json").json()["paths"].items():
        for method, operation in operations.items():
            yield path, method, operation


def test_every_route_documents_its_answer_and_its_refusals(client):
    seen = 0
    for path, method, operation in _operations(client):
        if path == "/":
            continue  # the page itself
        success = [code for code in operation["responses"] if code.startswith("2")]
        assert len(success) == 1, (method, path)
        if success[0] == "204":
            continue
        content = operation["responses"][success[0]].get("content", {}).get("application/json", {})
        schema = content.get("schema", {})
        assert schema and schema != {}, f"{method.upper()} {path} has no response model"
        refs = schema.get("$ref", "") + schema.get("items", {}).get("$ref", "")
        assert refs.startswith("#/components/schemas/"), (method, path, schema)
        seen += 1
        if path.startswith("/api/") and path not in ("/api/games", "/api/server"):  # these two never refuse
            for code in ("401", "409", "422", "503"):
                refusal = operation["responses"].get(code, {}).get("content", {}).get("application/json", {})
                assert refusal.get("schema", {}).get("$ref", "").endswith("/Refusal"), (method, path, code)
    assert seen >= 20


def test_a_table_view_passes_through_its_model_unchanged(client):
    """The answer models keep every field the views write (none dropped, none renamed)."""
    from baccarat.server.playing import game_info, views
    from baccarat.server.storage.db import read

    shown = client.get("/api/tables/1").json()
    direct = read(client.app.state.sessions, lambda s: views.table_view(s, 1))
    ignore = {"server_time", "phase", "phase_started_at", "phase_ends_at"}  # moments apart
    assert set(shown) == set(direct)
    assert {k: v for k, v in shown.items() if k not in ignore} == {k: v for k, v in direct.items() if k not in ignore}
    games = client.get("/api/games").json()
    assert games == game_info.games_json()
