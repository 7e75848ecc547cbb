"""The API's contract: ``/openapi.json`` and the server agree.

* Every operation has a short stable ``operationId`` (pinned here) and every schema a plain, unique name.
* ``OPTIONS`` and a 405 name every method an address answers (``Allow``).
* Schemathesis (``st run --checks all``, not only "no 5xx") over every operation of a real ``baccarat serve``:
  no failure, and a schema-valid request never refused 400 or 422 (422 is the schema's refusal; a rule the schema
  cannot state, a bet under the table's minimum, a wager the table's game lacks, a common password, is 409).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

from ... import server_kit

#: Schemathesis's command, from this interpreter's environment.
ST = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"

#: Every operation's id, pinned: a generated client's function names, so changing one breaks its users.
OPERATION_IDS = {
    "GET /health": "health",
    "GET /ready": "ready",
    "POST /api/accounts": "register",
    "POST /api/sessions": "logIn",
    "DELETE /api/sessions": "logOut",
    "GET /api/me": "whoAmI",
    "GET /api/games": "games",
    "GET /api/games/definition": "gameDefinition",
    "GET /api/tables": "listTables",
    "GET /api/tables/{table_id}": "showTable",
    "GET /api/tables/{table_id}/you": "yourState",
    "POST /api/tables/{table_id}/seats": "takeSeat",
    "DELETE /api/tables/{table_id}/seats": "leaveSeat",
    "POST /api/tables/{table_id}/bets": "bet",
    "POST /api/tables/{table_id}/decision": "decision",
    "POST /api/tables/{table_id}/take-back": "takeBack",
    "GET /api/tables/{table_id}/roads": "roads",
    "GET /api/tables/{table_id}/strategy": "strategy",
    "GET /api/tables/{table_id}/shoes/{number}": "shoe",
    "GET /api/history": "history",
    "GET /api/history/export": "historyExport",
    "GET /api/fairness/client-seed": "yourClientSeed",
    "PUT /api/fairness/client-seed": "setClientSeed",
    "GET /api/fairness/key": "houseKey",
    "GET /api/protection": "yourProtection",
    "PUT /api/protection/limits": "setLimit",
    "PUT /api/protection/reality-check": "setRealityCheck",
    "POST /api/protection/break": "takeBreak",
    "POST /api/operator/tables": "openNewTable",
    "POST /api/operator/tables/{table_id}/close": "closeTable",
    "POST /api/operator/tables/{table_id}/open": "reopenTable",
    "PUT /api/operator/tables/{table_id}/limits": "changeLimits",
    "POST /api/operator/tables/{table_id}/rounds/{number}/void": "voidRound",
    "POST /api/operator/tables/{table_id}/seats/{seat}/stand": "standPlayer",
    "POST /api/operator/wallets/{account_id}/credit": "credit",
    "POST /api/operator/wallets/{account_id}/debit": "debit",
    "GET /api/operator/console": "console",
    "GET /api/operator/reports/tables": "tablesReport",
    "GET /api/operator/reports/wagers": "wagersReport",
    "GET /api/operator/players": "findPlayers",
    "GET /api/operator/players/{account_id}": "player",
    "GET /api/operator/tables/{table_id}/rounds/{number}": "recall",
    "GET /api/operator/audit": "auditTrail",
    "GET /api/operator/audit/verify": "verifyAudit",
    "GET /api/operator/staff": "staffList",
    "POST /api/operator/staff": "newStaff",
    "PUT /api/operator/accounts/{account_id}/role": "setRole",
    "GET /api/operator/credits": "creditsWaiting",
    "POST /api/operator/credits/{request_id}/approve": "approveCredit",
    "POST /api/operator/credits/{request_id}/reject": "rejectCredit",
    "GET /api/server": "serverState",
}


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The app's schema (the app is not started: no database is needed for it)."""
    folder = tmp_path_factory.mktemp("openapi")
    return create_app(Settings(data_dir=folder, database_url=f"sqlite:///{folder / 'api.db'}")).openapi()


def test_every_operation_has_its_short_stable_id(openapi: dict[str, Any]):
    ids = {f"{method.upper()} {path}": operation["operationId"]
           for path, operations in openapi["paths"].items() for method, operation in operations.items()}
    assert ids == OPERATION_IDS
    assert len(set(ids.values())) == len(ids)  # unique, as OpenAPI requires
    assert all(re.fullmatch(r"[a-z][A-Za-z]{1,19}", name) for name in ids.values())


def test_every_schema_has_a_plain_name_of_its_own(openapi: dict[str, Any]):
    """FastAPI names two models of one name after their modules (``baccarat__server__...__RoundRecall``), and a
    model whose input and output differ twice (``X-Input``, ``X-Output``); a generated client lost one of the
    two ``RoundRecall`` models.  Every name is a plain class name, and every model class behind them is one."""
    names = list(openapi["components"]["schemas"])
    assert [name for name in names if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name)] == []
    assert {"RecallEntry", "RecalledRound", "Refusal"} <= set(names)  # the player's round, and the operator's recall


def test_the_refusals_the_schema_cannot_see_are_written_into_it(openapi: dict[str, Any]):
    """A route that reads a body may answer 400 (not UTF-8) and 413 (too large); the idempotency key the
    money-moving routes refuse to go without is a required header of 8 to 128 characters."""
    keyed = []
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                assert {"400", "413"} <= set(operation["responses"]), (method, path)
                assert operation["responses"]["413"]["content"]["application/json"]["schema"]["$ref"].endswith(
                    "/Refusal")
            keyed += [operation["operationId"] for parameter in operation.get("parameters", [])
                      if parameter["name"].lower() == "idempotency-key"
                      and parameter["required"] and parameter["schema"]["minLength"] == 8]
    assert sorted(keyed) == ["bet", "credit", "debit", "decision", "takeBack"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("allow")
    with TestClient(create_app(Settings(data_dir=folder))) as test_client:
        yield test_client


@pytest.mark.parametrize(("path", "allowed"), [
    ("/api/sessions", "POST, DELETE"), ("/api/tables/1/seats", "POST, DELETE"),
    ("/api/fairness/client-seed", "GET, PUT"), ("/api/tables", "GET"), ("/api/operator/tables/1/limits", "PUT")])
def test_options_and_a_wrong_method_name_every_method_of_the_address(client: TestClient, path: str, allowed: str):
    """Starlette named only the first route at an address (``Allow: POST`` for ``/api/sessions``, which
    answers DELETE too), and answered OPTIONS 405."""
    options = client.options(path)
    assert options.status_code == 204 and options.headers["allow"] == allowed and options.content == b""
    wrong = client.patch(path, json={})
    assert wrong.status_code == 405 and wrong.headers["allow"] == allowed
    assert wrong.json()["code"] == "request.method_not_allowed"
    assert wrong.json()["params"] == {"method": "PATCH", "allowed": allowed}


def test_a_break_is_exactly_one_of_hours_and_months_as_the_schema_says(client: TestClient):
    """The schema: one property of the two, an integer (``minProperties``/``maxProperties`` 1, no null); the
    server refuses the rest, and takes a whole number written 24.0."""
    credentials = {"username": "breaker", "password": PASSWORD}
    assert client.post("/api/accounts", json=credentials).status_code == 201
    auth = {"Authorization": f"Bearer {client.post('/api/sessions', json=credentials).json()['token']}"}
    for body in ({}, {"hours": None}, {"hours": 24, "months": None}, {"hours": 24, "months": 6}, {"hours": 24.5}):
        refused = client.post("/api/protection/break", json=body, headers=auth)
        assert refused.status_code == 422, (body, refused.text)
    assert client.get("/api/protection", headers=auth).json()["blocked"] is None  # nothing was taken
    taken = client.post("/api/protection/break", json={"hours": 24.0}, headers=auth)
    assert taken.status_code == 201 and taken.json()["blocked"]["kind"] == "time-out", taken.text
    schema = client.app.openapi()["components"]["schemas"]["BreakBody"]
    assert (schema["minProperties"], schema["maxProperties"]) == (1, 1)
    assert {name: field["type"] for name, field in schema["properties"].items()} == {"hours": "integer",
                                                                                     "months": "integer"}


@pytest.mark.parametrize("path", ["/health", "/ready", "/api/tables", "/openapi.json", "/", "/operator",
                                  "/static/i18n.js"])
def test_head_is_answered_wherever_get_is_with_the_get_s_headers_and_no_body(client: TestClient, path: str):
    """Issue 40 item 7: ``HEAD /health`` was 405 (a load balancer's or nginx's probe by HEAD saw the server down)."""
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == got.headers["content-length"]
    assert head.headers["content-type"] == got.headers["content-type"]


def test_head_where_there_is_no_get_is_refused_naming_the_methods(client: TestClient):
    refused = client.head("/api/sessions")
    assert refused.status_code == 405 and refused.headers["allow"] == "POST, DELETE" and refused.content == b""


def test_an_address_outside_the_schema_is_left_to_the_router(client: TestClient):
    assert client.options("/api/no-such-thing").status_code == 404
    assert client.options("/").status_code == 405  # the page: GET only
    assert client.get("/api/tables").status_code == 200


# --- Schemathesis, every check, against `baccarat serve` -------------------------------------------------

OPERATOR, PASSWORD = "contract_boss", "correct horse battery"
HOOKS = Path(__file__).with_name("contract_hooks.py")
#: ``st run``'s configuration: the same cases every run (a failure is the contract's, not a draw's luck), a
#: bounded number per operation and phase (the run takes about a minute), every phase.  A schema-valid request may
#: be answered 2xx, or refused for who asks (401, 403), what is not there (404), a rule in force (409) or a limit
#: (429): never 400 or 422.  No NUL in generated text: Schemathesis drops the schema's pattern for text (its
#: validator's Rust regex has no surrogates in a class) and would call a NUL valid; its UTF-8 codec already keeps
#: lone surrogates out.
CONFIG = """
seed = 29
[generation]
max-examples = 12
allow-x00 = false
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "409", "429"]
"""


@pytest.mark.slow
def test_the_server_keeps_the_contract_with_every_check(tmp_path: Path):
    """``st run --checks all``: status codes documented, answers matching their schemas, content types and
    headers, schema-valid requests taken and invalid ones refused, missing required headers refused, methods
    outside the schema refused 405 with ``Allow``, and the rest; no failure, on a real server."""
    data = tmp_path / "data"
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    with server_kit.served("--betting-seconds", "1", data_dir=data) as server:
        url = Settings(data_dir=data).url
        with connect(url) as sessions:
            for role in ("player", "cashier", "pit_boss", "surveillance", "admin"):  # the hooks' accounts
                transaction(sessions, lambda s, role=role: accounts.register(
                    s, f"{OPERATOR}_{role}", PASSWORD, grant=1_000_000, role=role))
        env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS), "BACCARAT_CONTRACT_DATABASE": url,
               "BACCARAT_CONTRACT_USER": OPERATOR, "BACCARAT_CONTRACT_PASSWORD": PASSWORD}
        run = subprocess.run([ST, "--no-color", "--config-file", str(config), "run", f"{server.url}/openapi.json",
                              "--checks", "all", "--workers", "1", "--report-dir", str(tmp_path / "reports")],
                             env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        summary = run.stdout[run.stdout.rfind("SUMMARY"):]
        assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-5_000:]
        assert re.search(rf"Tested: {len(OPERATION_IDS)}\b", summary), summary  # every operation
        assert " 0 failures" in summary or "failures" not in summary.lower(), summary
    with connect(url) as sessions, sessions() as s:  # whatever was generated, the books balance
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


# --- a client generated from the schema plays a round ---------------------------------------------------

#: openapi-python-client's command, from this interpreter's environment.
GENERATE = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent)) or "openapi-python-client"


@pytest.mark.slow
def test_a_client_generated_from_the_schema_plays_a_round(tmp_path: Path, serve: Any):
    """openapi-python-client makes a client of ``/openapi.json`` with no warning (every schema kept: two
    ``RoundRecall`` lost one), whose functions are the operation ids; with it a player registers, logs in,
    sits, bets, and reads the table until the round is dealt and the bet settled."""
    server = serve("--betting-seconds", "2")
    (tmp_path / "openapi.json").write_bytes(httpx.get(f"{server.url}/openapi.json").content)
    made = subprocess.run([GENERATE, "generate", "--path", "openapi.json", "--meta", "none",
                           "--output-path", "baccarat_client", "--fail-on-warning"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        _play_a_round(server.url)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.split(".")[0] == "baccarat_client"]:
            del sys.modules[name]


def _play_a_round(url: str) -> None:
    from baccarat_client import AuthenticatedClient, Client  # type: ignore[import-not-found]
    from baccarat_client.api.accounts import log_in, register, who_am_i  # type: ignore[import-not-found]
    from baccarat_client.api.tables import bet, show_table, take_seat, your_state  # type: ignore[import-not-found]
    from baccarat_client.models import (  # type: ignore[import-not-found]
        BetAnswer,
        BetsBody,
        BetsBodyBets,
        Credentials,
        Refusal,
        SeatBody,
    )

    with Client(base_url=url, raise_on_unexpected_status=True) as anyone:
        credentials = Credentials(username="generated", password=PASSWORD)
        account = register.sync(client=anyone, body=credentials)
        assert account.username == "generated" and account.balance > 0, account
        token = log_in.sync(client=anyone, body=credentials).token
    # the schema's security scheme: the client is given the token once, every call that needs it sends it
    with AuthenticatedClient(base_url=url, token=token, raise_on_unexpected_status=True) as client:
        assert take_seat.sync(1, client=client, body=SeatBody()).seat == 1
        assert show_table.sync(1, client=client).game == "mini"
        placed = None
        for attempt in range(10):  # a window may close between two requests: the next one opens soon
            answer = bet.sync(1, client=client, body=BetsBody(bets=BetsBodyBets.from_dict({"banker": 1_000})),
                              idempotency_key=f"generated-bet-{attempt}")
            if isinstance(answer, BetAnswer):
                placed = answer
                break
            assert isinstance(answer, Refusal) and answer.code.startswith("bet."), answer
            time.sleep(0.5)
        assert placed is not None and placed.bets.to_dict() == {"banker": 1_000}
        assert placed.balance == account.balance - 1_000
        deadline = time.monotonic() + 60
        while (state := your_state.sync(1, client=client)).settlement is None:
            assert time.monotonic() < deadline, state
            time.sleep(0.5)
        assert state.round_ == placed.round_ and state.settlement.bets["banker"].amount == 1_000  # round_: a builtin
        net = state.settlement.net  # won (950: commission), lost (-1000) or tied (0: the banker bet pushes)
        assert net in (950, -1_000, 0), state
        assert who_am_i.sync(client=client).balance == account.balance + net
