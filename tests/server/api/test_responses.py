"""The answers: every route answers with a TypedDict of the services (one description of each answer, no
pydantic twin), ``/openapi.json`` carries their docstrings as descriptions, and an optional key a service
leaves out is absent from the JSON, never null."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, get_args, get_origin

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel
from typing_extensions import is_typeddict

from baccarat.server.api import requests, responses
from baccarat.server.api import routers as api_routers
from baccarat.server.api.app import create_app
from baccarat.server.api.routers.health import Readiness
from baccarat.server.api.routers.server import ServerState
from baccarat.server.house import accounts
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings
from baccarat.verify import signature

from ...conftest import api_client

#: Answers a route builds as a pydantic model: no service describes them.
BUILT_AS_MODELS = {Readiness, ServerState}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The app, not started (no database is needed for its routes and schema)."""
    folder = tmp_path_factory.mktemp("answers")
    return create_app(Settings(data_dir=folder, database_url=f"sqlite:///{folder / 'api.db'}"))


@pytest.fixture(scope="module")
def schemas(app: Any) -> dict[str, Any]:
    return dict(app.openapi()["components"]["schemas"])


def _answer(route: APIRoute) -> Any:
    model = route.response_model
    return get_args(model)[0] if get_origin(model) is list else model


def test_every_route_answers_with_a_typed_dict_of_the_services() -> None:
    answers = {_answer(route) for router in api_routers.ALL for route in router.routes
               if isinstance(route, APIRoute) and route.response_model}
    assert len(answers) > 30
    for answer in answers - BUILT_AS_MODELS:
        assert is_typeddict(answer), answer
        assert sys.modules[answer.__module__] in responses.ANSWERS, answer


def test_no_pydantic_twin_is_left() -> None:
    """The API's own pydantic models are the request bodies, the refusal and the two answers built as models."""
    assert not hasattr(responses, "TableView") and not hasattr(responses, "BetsPlaced")
    modules = [requests, *[value for value in vars(api_routers).values() if isinstance(value, ModuleType)]]
    models = {value for module in modules for value in vars(module).values()
              if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__.startswith("baccarat")}
    answers = {model for model in models if not issubclass(model, requests.Strict)}
    assert answers == {responses.Answer, responses.Refusal, *BUILT_AS_MODELS}


def _reached(schemas: dict[str, Any], node: Any, seen: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if ref.startswith("#/components/schemas/") and (name := ref.rsplit("/", 1)[1]) not in seen:
            seen.add(name)
            _reached(schemas, schemas[name], seen)
        for value in node.values():
            _reached(schemas, value, seen)
    elif isinstance(node, list):
        for value in node:
            _reached(schemas, value, seen)


def test_each_answer_in_the_schema_is_one_typed_dict_described_once(app: Any, schemas: dict[str, Any]) -> None:
    """The components of the successes (and of their parts) are the services' TypedDicts, by name, and no two
    describe the same answer (the same keys)."""
    reached: set[str] = set()
    for operations in app.openapi()["paths"].values():
        for operation in operations.values():
            for code, answer in operation["responses"].items():
                if code.startswith("2"):
                    _reached(schemas, answer, reached)
    typed = {name for module in responses.ANSWERS for name, value in vars(module).items()
             if is_typeddict(value) and value.__module__ == module.__name__}
    assert reached - typed == {model.__name__ for model in BUILT_AS_MODELS}
    keys = [frozenset(schemas[name]["properties"]) for name in reached]
    assert len(set(keys)) == len(keys)
    assert {"TableView", "TableRoads", "BetAnswer", "ProtectionStatus", "ConsoleTable", "RecallEntry"} <= reached


@pytest.mark.parametrize(("answer", "field", "words"), [
    ("TableView", "cards", "the cards shown so far, in deal order"),
    ("Pay", "odds", "net odds as an exact fraction: 19/20, 8, 0 (push), -1 (loses)"),
    ("ShoeInPlay", "merkle_root", "algorithm 3: the root of the Merkle tree over the shuffled shoe"),
    ("ConsoleTable", "today", "the drop (handle) and win so far today (UTC)"),
    ("LimitStatus", "pending", "the looser amount waiting for its 24 hours"),
    ("Me", "role", "player, or a staff role"),
    # inherited: from a base, a base's base, and the second of two bases
    ("ExportedShoe", "server_seed", "revealed when the shoe ends"),
    ("LastResult", "reasons", "player/banker -> why the hand drew or stood"),
    ("TableDay", "win", "the house's net, minor units"),
])
def test_a_fields_docstring_is_its_description(schemas: dict[str, Any], answer: str, field: str, words: str) -> None:
    assert schemas[answer]["properties"][field]["description"].startswith(words)


def test_an_answers_docstring_is_its_description(schemas: dict[str, Any]) -> None:
    assert schemas["TableView"]["description"].startswith("A table at one moment: what every player at it sees")
    assert "``from`` to the day ``to``" in schemas["TablesReport"]["description"]
    assert "description" not in schemas["TableView"]["properties"]["id"]  # no docstring, no description


@pytest.fixture
def client(manual_time: Any, database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The app on the test's own time: the dealer deals when the test moves the clock."""
    client: TestClient
    for client in api_client(Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=1.0)):
        client.time = manual_time  # type: ignore[attr-defined]
        yield client


def _log_in(client: TestClient, name: str) -> dict[str, str]:
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def _alice_bets(client: Any) -> tuple[int, int, dict[str, str]]:
    """alice, seated at a Mini-Baccarat table with a Banker bet on its round: (her id, the table, her token)."""
    alice = client.post("/api/accounts", json={"username": "alice", "password": "correct horse"}).json()["id"]
    auth = _log_in(client, "alice")
    mini = next(table["id"] for table in client.get("/api/tables").json() if table["game"] == "mini")
    assert client.post(f"/api/tables/{mini}/seats", json={}, headers=auth).status_code == 201
    placed = client.post(f"/api/tables/{mini}/bets", json={"bets": {"banker": 1_000}},
                         headers={**auth, "Idempotency-Key": "answer-bet-1"})
    assert placed.status_code == 201, placed.text
    return alice, mini, auth


def test_an_optional_key_left_out_is_absent_not_null(client: Any) -> None:
    """A punto banco round has no ``seat`` in the history, nor a shoe in play a ``server_seed``."""
    _, mini, auth = _alice_bets(client)
    client.time.advance(12)  # dealt (1 s of betting, no more bets, six cards at most), settled and shown

    (entry,) = client.get("/api/history", headers=auth).json()
    assert entry["status"] == "settled" and "seat" not in entry
    assert "player_cards" in entry["detail"] and not {"hands", "void", "decisions_at"} & set(entry["detail"])
    export = client.get("/api/history/export", headers=auth).json()
    assert "player_cards" in export["rounds"][0] and "seat" not in export["rounds"][0]
    assert {movement["table_id"] for movement in export["movements"]} == {mini}  # the stake and the payout
    (shoe,) = export["shoes"]
    assert shoe["merkle_root"] and "server_seed" not in shoe and "burned" not in shoe
    # the house's signature holds on the export as it reached the client (rounds, movements and shoes in it)
    house = signature.read_key(client.get("/api/fairness/key").json()["public_key"].encode())
    assert signature.problem(export, house) is None and export["in_play"] == []


def test_the_operator_s_look_at_a_player_leaves_out_what_is_not_there(client: Any) -> None:
    """A movement of no round has no ``table_id``, and a player who never started a session no ``session``."""
    alice, mini, _ = _alice_bets(client)
    with connect(client.settings.url) as sessions:
        transaction(sessions, lambda s: accounts.register(s, "pit_boss", "correct horse", grant=0, role="pit_boss"))
    found = client.get(f"/api/operator/players/{alice}", headers=_log_in(client, "pit_boss")).json()
    assert "session" not in found["protection"] and "table_id" not in found["statement"][-1]  # the grant
    assert found["statement"][0]["table_id"] == mini  # the stake
