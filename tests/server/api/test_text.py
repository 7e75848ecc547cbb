"""Text the database cannot store (issue 29, item 4): NUL (U+0000), which PostgreSQL's text refuses, and
unpaired surrogates (U+D800 to U+DFFF), which no UTF-8 encoder writes.  Every string a client sends is
refused where it comes in, naming the field, on both databases: 422 ``request.bad_text`` over HTTP (bodies,
the keys of a body's maps, query parameters, headers), an error frame on the table's socket, which stays
open.  Before, on PostgreSQL, a socket bet with NUL in its key closed the socket with 1011 (and moved its
whole group commit off the bulk path), and a memo or a player search with NUL answered 500."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from baccarat.server.house import accounts
from baccarat.server.live.sockets import SocketCommand, bets_together
from baccarat.server.playing import bulk_bets as bulkbets
from baccarat.server.playing import tables
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.models import Bet, IdempotentRequest
from baccarat.server.storage.settings import Settings

from ...conftest import ON_POSTGRESQL, api_client, count_bulk_placements

PASSWORD = "correct horse"
UNSTORABLE = "holds a character that cannot be stored (NUL, U+0000, or half of a surrogate pair, U+D800 to U+DFFF)"


@pytest.fixture
def client(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    yield from api_client(Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600))


def _account(client: TestClient, name: str, *, role: str = "player", seat: bool = False) -> dict[str, str]:
    """A new account's ``Authorization`` header (a player seated at table 2 when ``seat``)."""
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, name, PASSWORD, grant=100_000, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": PASSWORD}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    if seat:
        assert client.post("/api/tables/2/seats", json={}, headers=headers).status_code == 201
    return headers


def _post_json(client: TestClient, path: str, body: Any, headers: dict[str, str], method: str = "POST") -> Any:
    """Send ``body`` as JSON written with ASCII escapes: a lone surrogate travels as the text ``\\ud800``, as a
    client's JSON can carry it (the test client's own encoder writes UTF-8, which cannot hold one)."""
    return client.request(method, path, content=json.dumps(body),
                          headers={**headers, "Content-Type": "application/json"})


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What was logged with a traceback: a 500, a socket closed with 1011, a bulk write that failed."""
    return [record.getMessage() for record in caplog.records if record.exc_info]


def _refused(answer: Any, field: str, *, code: str | None = "request.bad_text") -> None:
    assert answer.status_code == 422, (field, answer.status_code, answer.text)
    refusal = answer.json()  # a valid JSON answer: the bad text is not repeated in it
    assert refusal["params"]["field"] == field, (field, refusal)
    if code is not None:
        assert refusal["code"] == code, (field, refusal)
    if refusal["code"] == "request.bad_text":
        assert refusal["message"] == f"{field}: {UNSTORABLE}: remove it and try again."


# --- the three cases reported -------------------------------------------------------------------------


def _socket_answer(socket: Any) -> dict[str, Any]:
    """The next answer to a command (state pushes skipped)."""
    while True:
        answer: dict[str, Any] = socket.receive_json()
        if answer["type"] != "state":
            return answer


@pytest.mark.parametrize("key", ["nul-\x00-key-0001", "surrogate-\ud800-0001"])
@ON_POSTGRESQL
def test_a_socket_bet_with_unstorable_text_in_its_key_is_refused_naming_the_field(client, caplog, key):
    player = _account(client, "nadia", seat=True)
    token = player["Authorization"].removeprefix("Bearer ")
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"
        socket.send_text(json.dumps({"type": "bet", "key": key, "bets": {"banker": 500}}))
        refused = _socket_answer(socket)
        assert refused == {"type": "error", "error": "ConfigurationError", "code": "request.bad_text",
                           "params": {"field": "key"}, "detail": f"key: {UNSTORABLE}: remove it and try again.",
                           "message": f"key: {UNSTORABLE}: remove it and try again."}
        socket.send_json({"type": "bet", "key": "nadia-bet-0002", "bets": {"banker": 500}})  # still open
        placed = _socket_answer(socket)
        assert placed["type"] == "ok" and placed["result"]["bets"] == {"banker": 500}
        assert placed["result"]["balance"] == 99_500  # the refused bet staked nothing
    assert _tracebacks(caplog) == []


@ON_POSTGRESQL
def test_an_operator_credit_with_nul_in_its_memo_is_refused_naming_memo(client, caplog):
    operator = _account(client, "olga", role="pit_boss")
    player_id = client.get("/api/me", headers=_account(client, "pablo")).json()["id"]
    for body in ({"amount": 500, "memo": "cash\x00desk"}, {"amount": 500, "memo": "cash\udc80desk"}):
        for route in ("credit", "debit"):
            answer = _post_json(client, f"/api/operator/wallets/{player_id}/{route}", body,
                                {**operator, "Idempotency-Key": f"memo-{route}-0001"})
            _refused(answer, "memo")
    answer = client.post(f"/api/operator/wallets/{player_id}/credit", json={"amount": 500, "memo": "desk"},
                         headers={**operator, "Idempotency-Key": "key\x00with-nul"})
    _refused(answer, "header.idempotency-key")
    statement = client.get(f"/api/operator/players/{player_id}", headers=operator).json()
    assert statement["balance"] == 100_000 and len(statement["statement"]) == 1  # the grant only
    assert _tracebacks(caplog) == []


@ON_POSTGRESQL
def test_a_player_search_with_nul_is_refused_naming_q(client, caplog):
    operator = _account(client, "otto", role="pit_boss")
    _refused(client.get("/api/operator/players?q=a%00b", headers=operator), "query.q")
    assert client.get("/api/operator/players?q=ott", headers=operator).status_code == 200
    assert _tracebacks(caplog) == []


# --- one bad command never moves its batch off the bulk path -------------------------------------------


@ON_POSTGRESQL
def test_a_bad_key_in_a_group_commit_leaves_the_other_bets_on_the_bulk_path(sessions, monkeypatch, caplog):
    """Commands that reach the group commit some other way than a socket's frame (which refuses them
    first): a key with NUL or a lone surrogate is refused by itself, and the other players' bets of its batch
    are still placed together, with no fall-back to each bet alone."""
    now = datetime.now(UTC)

    def setting_up(s: Any) -> tuple[int, list[tuple[int, str]]]:
        table = tables.create_table(s, "burst", "ez", betting_seconds=600, now=now - timedelta(seconds=1))
        players = []
        for n in range(4):
            account = accounts.register(s, f"batcher{n}", PASSWORD, grant=10_000).id
            players.append((account, accounts._digest(accounts.log_in(s, f"batcher{n}", PASSWORD))))
        return table.id, players

    table_id, players = transaction(sessions, setting_up)
    frames = [{"type": "bet", "key": "good-bet-0000", "bets": {"player": 100}},
              {"type": "bet", "key": "bad-\x00-key-0001", "bets": {"banker": 100}},
              {"type": "bet", "key": "bad-\ud800-key-0002", "bets": {"banker": 100}},
              {"type": "bet", "key": "good-bet-0003", "bets": {"banker": 200}}]
    commands = [SocketCommand(table_id, account, digest, frame, now)
                for (account, digest), frame in zip(players, frames, strict=True)]
    counted = count_bulk_placements(monkeypatch)
    with caplog.at_level(logging.ERROR, logger=bulkbets.log.name):
        outcomes = batch.Batcher(sessions, bulk=bets_together)._commit(commands)
    assert not [record for record in caplog.records if "bulk bets failed" in record.getMessage()]
    assert counted == [4]  # the whole batch went the bulk way, and stayed there
    (good, first), (bad, nul), (worse, surrogate), (fine, second) = outcomes
    assert good and fine and first["bets"] == {"player": 100} and second["bets"] == {"banker": 200}
    for refused, error in ((bad, nul), (worse, surrogate)):
        assert not refused and (error.code, error.params) == ("request.bad_text", {"field": "key"}), error
    with sessions() as s:
        assert sorted(s.scalars(select(Bet.account_id))) == [players[0][0], players[3][0]]
        assert sorted(s.scalars(select(IdempotentRequest.key))) == ["good-bet-0000", "good-bet-0003"]


# --- every string field of /openapi.json, and of every socket command ----------------------------------

#: An otherwise valid body for each operation that takes one, by (method, path): a field at a time is spoilt.
VALID_BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/api/accounts"): {"username": "textcheck", "password": PASSWORD},
    ("post", "/api/sessions"): {"username": "textcheck", "password": PASSWORD},
    ("post", "/api/tables/{table_id}/seats"): {"seat": 3},
    ("post", "/api/tables/{table_id}/bets"): {"bets": {"banker": 100}},
    ("post", "/api/tables/{table_id}/decision"): {"action": "stand"},
    ("post", "/api/tables/{table_id}/take-back"): {"bets": {"banker": 100}},
    ("put", "/api/fairness/client-seed"): {"seed": "my-own-seed"},
    ("put", "/api/protection/limits"): {"kind": "loss", "period": "day", "amount": 5_000},
    ("put", "/api/protection/reality-check"): {"minutes": 30},
    ("post", "/api/protection/break"): {"hours": 24},
    ("post", "/api/operator/tables"): {"name": "text-1", "game": "mini"},
    ("put", "/api/operator/tables/{table_id}/limits"): {"minimum": 100, "maximums": {"banker": 10_000}},
    ("post", "/api/operator/tables/{table_id}/rounds/{number}/void"): {"reason": "a stuck shoe"},
    ("post", "/api/operator/wallets/{account_id}/credit"): {"amount": 100, "memo": "cashier"},
    ("post", "/api/operator/wallets/{account_id}/debit"): {"amount": 100, "memo": "cashier"},
    ("post", "/api/operator/staff"): {"username": "textstaff", "password": PASSWORD, "role": "cashier"},
    ("put", "/api/operator/accounts/{account_id}/role"): {"role": "player"},
}
#: A valid value for each header an operation takes (the token is the operator's, added to every request).
VALID_HEADERS = {"idempotency-key": "text-check-0001"}


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _strings(spec: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The string branches of ``schema`` (itself, or those of its ``anyOf``/``oneOf``)."""
    schema = _resolve(spec, schema)
    branches = [_resolve(spec, b) for b in schema.get("anyOf", schema.get("oneOf", [schema]))]
    return [{**schema, **branch} for branch in branches if branch.get("type") == "string"]


def _free(strings: list[dict[str, Any]]) -> bool:
    """Free text: the refusal must be ``request.bad_text`` (a value off a list, a date or a pattern, such as a
    digest's 64 hexadecimal digits, may say so instead)."""
    return not any("enum" in s or "format" in s or "const" in s or "pattern" in s for s in strings)


def _body_fields(spec: dict[str, Any], schema: dict[str, Any], path: tuple[str, ...] = ()
                 ) -> list[tuple[tuple[str, ...], str, bool]]:
    """(path, "value" or "key", free text) of every string in a body: a string property, or the keys of a map."""
    schema = _resolve(spec, schema)
    found: list[tuple[tuple[str, ...], str, bool]] = []
    for name, inner in schema.get("properties", {}).items():
        inner_schema = _resolve(spec, inner)
        strings = _strings(spec, inner_schema)
        if strings:
            found.append(((*path, name), "value", _free(strings)))
        if isinstance(inner_schema.get("additionalProperties"), dict):
            found.append(((*path, name), "key", True))
        if inner_schema.get("properties"):
            found += _body_fields(spec, inner_schema, (*path, name))
    return found


def _targets(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Every string a client can send, by operation: body fields and map keys, query and header parameters."""
    targets = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            concrete = path.replace("{account_id}", "{player}")
            for name in ("table_id", "number", "seat"):
                concrete = concrete.replace("{" + name + "}", "1" if name != "table_id" else "2")
            base = {"method": method, "path": concrete, "key": (method, path)}
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body is not None:
                assert (method, path) in VALID_BODIES, f"no valid body for {method} {path}: add one"
                for where, part, free in _body_fields(spec, body):
                    targets.append({**base, "in": "body", "where": where, "part": part, "free": free})
            for parameter in operation.get("parameters", []):
                strings = _strings(spec, parameter.get("schema", {}))
                if strings and parameter["in"] in ("query", "header", "path", "cookie"):
                    assert parameter["in"] in ("query", "header"), f"{method} {path}: a {parameter['in']} string"
                    targets.append({**base, "in": parameter["in"], "where": (parameter["name"],), "part": "value",
                                    "free": _free(strings)})
    return targets


def _spoil(body: dict[str, Any], where: tuple[str, ...], part: str, text: str) -> dict[str, Any]:
    spoilt = json.loads(json.dumps(body))
    holder = spoilt
    for name in where[:-1]:
        holder = holder.setdefault(name, {})
    if part == "key":
        holder[where[-1]] = {text: 100}
    else:
        holder[where[-1]] = text
    return spoilt


def _unstorable(around: st.SearchStrategy[str], *, surrogates: bool) -> st.SearchStrategy[str]:
    """Text holding at least one NUL or (where the transport can carry one) lone surrogate, amid ``around``."""
    bad = st.one_of(st.just("\x00"), st.integers(0xD800, 0xDFFF).map(chr)) if surrogates else st.just("\x00")
    return st.tuples(around, bad, around).map("".join)


#: Text as JSON carries it (no surrogates of its own: those come only from ``_unstorable``), and as a header does.
BODY_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=6)


@ON_POSTGRESQL
@pytest.mark.slow
def test_every_string_field_of_the_openapi_schema_refuses_unstorable_text(client, caplog):
    staff = [{name.lower(): value for name, value in _account(client, f"staff_{role}", role=role).items()}
             for role in ("pit_boss", "cashier", "surveillance", "admin")]
    as_whom: dict[tuple[str, str], dict[str, str]] = {}  # each operation with the token of a role that may call it
    player_id = client.get("/api/me", headers=_account(client, "penny", seat=True)).json()["id"]
    targets = _targets(client.get("/openapi.json").json())
    assert len(targets) > 25  # (the session token is no header parameter: the security scheme)
    assert {(t["in"], t["where"][-1]) for t in targets} >= {
        ("body", "memo"), ("body", "username"), ("body", "password"), ("body", "seed"), ("body", "reason"),
        ("body", "bets"), ("body", "maximums"), ("query", "q"), ("header", "idempotency-key")}
    # the session token is the schema's security scheme, not a header parameter: a token of any text is no session
    for garbage in ("Bearer not-a-session", "Bearer ", "Basic abc", "Bearer", "bearer x y"):
        assert client.get("/api/me", headers={"Authorization": garbage}).status_code == 401, garbage
    for method, path in {t["key"] for t in targets}:  # the bodies are valid: a spoilt field is what is refused
        concrete = path.replace("{account_id}", str(player_id)).replace("{table_id}", "2")
        concrete = concrete.replace("{number}", "1").replace("{seat}", "1")
        for headers in staff:
            as_whom[(method, path)] = headers
            answer = client.request(method.upper(), concrete, json=VALID_BODIES.get((method, path)),
                                    headers={**headers, **VALID_HEADERS})
            code = answer.json().get("code") if isinstance(answer.json(), dict) else None
            if code != "auth.staff_only":
                break
        assert code != "auth.staff_only", (method, path, answer.text)  # (a query may need more than the text)
        assert (method, path) not in VALID_BODIES or code not in ("request.invalid", "request.bad_text"), (
            method, path, answer.text)

    @settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def spoil_each(data: st.DataObject) -> None:
        for target in targets:
            path = target["path"].replace("{player}", str(player_id))
            body = VALID_BODIES.get(target["key"])
            headers = {**as_whom[target["key"]], **VALID_HEADERS}
            if target["in"] == "body":
                text = data.draw(_unstorable(BODY_TEXT, surrogates=True))
                answer = _post_json(client, path, _spoil(body or {}, target["where"], target["part"], text), headers,
                                    method=target["method"].upper())
                field = ".".join(target["where"])
            elif target["in"] == "query":  # a query carries no lone surrogate: %ED%A0%80 reads as U+FFFD
                text = data.draw(_unstorable(BODY_TEXT, surrogates=False))
                answer = client.request(target["method"].upper(), path, params={target["where"][0]: text},
                                        content=json.dumps(body) if body is not None else None,
                                        headers={**headers, "Content-Type": "application/json"})
                field = f"query.{target['where'][0]}"
            else:  # a header is Latin-1: NUL is the one character of the two kinds it can carry
                text = data.draw(_unstorable(HEADER_TEXT, surrogates=False))
                answer = client.request(target["method"].upper(), path, content=json.dumps(body) if body is not None
                                        else None, headers={**headers, "Content-Type": "application/json",
                                                            target["where"][0]: text})
                field = f"header.{target['where'][0]}"
            _refused(answer, field, code="request.bad_text" if target["free"] else None)

    spoil_each()
    assert _tracebacks(caplog) == []


#: Each socket command, valid, and its string fields: ("key",) a value, ("bets", "[key]") the keys of a map.
SOCKET_COMMANDS: list[tuple[dict[str, Any], list[tuple[str, ...]]]] = [
    ({"type": "bet", "key": "socket-bet-0000", "bets": {"banker": 100}, "round": 1},
     [("type",), ("key",), ("bets", "[key]")]),
    ({"type": "decision", "key": "socket-decision-0000", "action": "stand"}, [("type",), ("key",), ("action",)]),
]


@ON_POSTGRESQL
@pytest.mark.slow
def test_every_string_field_of_every_socket_command_refuses_unstorable_text(client, caplog):
    token = _account(client, "sofia", seat=True)["Authorization"].removeprefix("Bearer ")
    placed = 0

    @settings(max_examples=10, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def spoil_each(data: st.DataObject) -> None:
        nonlocal placed
        with ExitStack() as stack:  # a socket per example: the spoilt frames stay under the command rate
            socket = stack.enter_context(client.websocket_connect("/ws/tables/2"))
            socket.send_json({"type": "auth", "token": token})
            assert socket.receive_json()["type"] == "state"
            for frame, fields in SOCKET_COMMANDS:
                for field in fields:
                    text = data.draw(_unstorable(BODY_TEXT, surrogates=True))
                    spoilt = dict(frame)
                    spoilt[field[0]] = {text: 100} if field[1:] == ("[key]",) else text
                    socket.send_text(json.dumps(spoilt))  # ASCII escapes: a lone surrogate travels as \\udXXX
                    refused = _socket_answer(socket)
                    assert (refused["type"], refused["code"], refused["params"]) == (
                        "error", "request.bad_text", {"field": field[0]}), (spoilt, refused)
            placed += 1  # the socket is still open and takes a good bet
            socket.send_json({"type": "bet", "key": f"socket-good-{placed:04d}", "bets": {"banker": 100}})
            answer = _socket_answer(socket)
            assert answer["type"] == "ok" and answer["result"]["added"] == {"banker": 100}, answer

    spoil_each()
    balance = client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()["balance"]
    assert balance == 100_000 - 100 * placed  # only the good bets staked anything
    assert _tracebacks(caplog) == []
