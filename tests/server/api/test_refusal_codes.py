"""Refusals as codes with parameters: every refusal, every reason a hand drew or stood and every piece
of table news carries a stable code from :data:`baccarat.core.messages.CATALOGUE` and its params, and the
page words each code in each of its languages.

* Every page catalogue (English: ``static/i18n/codes.en.js``, generated from the catalogue; Chinese:
  ``zh-CN.js`` and ``zh-Hant.js``) has a key for every code, and every code the server can send is in the
  catalogue: the codes written at the raise sites, the families' codes, the framework's
  (``tests/server/test_catalogue_js.py`` checks the generated file and the page's reading of the templates).
* Each template's named fields are exactly the params its raise sites pass; every template formats.
* REST and WebSocket refusals carry ``code`` and ``params`` beside the unchanged ``error``, ``detail``
  and ``message`` (bet limits, the balance, betting closed, seats, wrong password, rate limits, 404, 422,
  413), and table news and the reasons come with theirs.
* The page keeps no table of English sentences (no ``SERVER_SENTENCES``, no ``REASONS``).
"""

from __future__ import annotations

import ast
import asyncio
import json
import pickle
import re
import shutil
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import baccarat
from baccarat.cli.script import ScriptError
from baccarat.core import errors
from baccarat.core.coup import deal_coup, reasons
from baccarat.core.errors import BaccaratError, BetLimitError, RateLimitedError
from baccarat.core.fair import fair_cards, new_server_seed
from baccarat.core.messages import CATALOGUE, fields, render
from baccarat.core.rulesfile import RulesError
from baccarat.core.tableau import banker_reason, banker_why, player_reason, player_why
from baccarat.server.api import app as app_module
from baccarat.server.api.app import create_app
from baccarat.server.api.body_limit import MAX_BODY
from baccarat.server.house import rate_limits
from baccarat.server.storage.settings import Settings

SOURCE = Path(baccarat.__file__).parent
STATIC = SOURCE / "server" / "static"
LANGUAGES = ("en", "zh-CN", "zh-Hant")


# --- the catalogues ---------------------------------------------------------------------------------


def _page_keys(language: str) -> set[str]:
    """The keys of a page catalogue as the page reads them (``static/i18n.js``'s ``CATALOGUES``: English is the
    generated ``codes.en.js`` and ``en.js``): by Node where it is installed, else read with a regular expression."""
    if shutil.which("node"):
        script = (f"const {{ CATALOGUES }} = await import({json.dumps((STATIC / 'i18n.js').as_uri())});"
                  f"console.log(JSON.stringify(Object.keys(CATALOGUES[{json.dumps(language)}])))")
        done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
        return set(json.loads(done.stdout))
    paths = [STATIC / "i18n" / name for name in (("codes.en.js", "en.js") if language == "en" else (f"{language}.js",))]
    return {key for path in paths for key in re.findall(r'^\s*"([^"]+)":', path.read_text(encoding="utf-8"),
                                                          re.MULTILINE)}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.slow
def test_every_code_has_words_in_each_language_of_the_page(language: str):
    missing = sorted(set(CATALOGUE) - _page_keys(language))
    assert not missing, f"{language}.js has no words for {missing}"


def _coded_calls() -> list[tuple[Path, ast.Call, list[str]]]:
    """Every ``X.coded(code, ...)`` in the package, with the codes its first argument can be."""
    found = []
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "coded":
                first = node.args[0]
                branches = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
                codes = [b.value for b in branches if isinstance(b, ast.Constant) and isinstance(b.value, str)]
                found.append((path, node, codes))
    return found


def _code_literals() -> dict[str, Path]:
    """Every string in the package that reads as a code of one of the catalogue's areas (``bet.closed``),
    wherever it is written: a raise site's code given through a variable, the framework's codes."""
    areas = {code.split(".")[0] for code in CATALOGUE}
    shaped = re.compile(r"([a-z]+)\.[a-z_]+")
    formatted: set[int] = set()
    literals = {}
    for path in SOURCE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):  # the pieces of an f-string are not codes
                formatted.update(id(part) for part in node.values)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in formatted
                    and (match := shaped.fullmatch(node.value)) and match.group(1) in areas
                    and not node.value.endswith((".html", ".js", ".css", ".json", ".py"))):
                literals[node.value] = path
    return literals


@pytest.mark.slow
def test_every_code_the_server_can_send_is_in_the_catalogue():
    calls = _coded_calls()
    assert len(calls) > 120  # the raise sites were found
    unknown = [(str(path.relative_to(SOURCE)), node.lineno, code) for path, node, codes in calls for code in codes
               if code not in CATALOGUE]
    assert not unknown, unknown
    literals = _code_literals()
    assert {"request.not_found", "request.too_large", "server.error", "command.bets_round"} <= set(literals)
    assert not {code: str(path) for code, path in literals.items() if code not in CATALOGUE}
    families = [kind for kind in _subclasses(BaccaratError)]
    assert {ScriptError, RulesError, errors.ProtectionError} <= set(families)
    for kind in families:
        assert kind.family in CATALOGUE and not fields(kind.family), kind
        assert kind("words only").code == kind.family and kind("words only").params == {}


def _subclasses(kind: type) -> list[type]:
    return [sub for child in kind.__subclasses__() for sub in (child, *_subclasses(child))]


def test_each_raise_site_passes_exactly_its_template_s_fields():
    checked = 0
    for path, node, codes in _coded_calls():
        if any(keyword.arg is None for keyword in node.keywords):
            continue  # **params: checked where they are built
        given = {keyword.arg for keyword in node.keywords} - {"names"}
        for code in codes:
            assert given == fields(code), f"{path.relative_to(SOURCE)}:{node.lineno} {code}: {given} != {fields(code)}"
            checked += 1
    assert checked > 120


def _sample(field: str, spec: str) -> object:
    """A machine value for a field with this spec, as a raise site would pass it."""
    if spec == "money":
        return 1250
    if spec in ("list", "or_list"):
        return ["banker", "player"]
    if spec == "utc":
        return "2026-11-22T12:00:00+00:00"
    if spec == "word":
        return next(key.rsplit(".", 1)[1] for key in CATALOGUE if key.startswith(f"word.{field}."))
    if spec == "seconds":
        return 5
    return 7 if field in ("seat", "round", "total", "third", "seats", "shoe", "table") else "banker"


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_template_formats_with_the_params_of_a_sample_refusal(code: str):
    parsed = [(field, spec) for _, field, spec, _ in string.Formatter().parse(CATALOGUE[code]) if field]
    params = {field: _sample(field, spec or "") for field, spec in parsed}
    words = render(code, params, names={"wager": "Banker", "base": "Enter", "game": "EZ Baccarat"})
    assert words and "{" not in words and "}" not in words
    if code.startswith(("word.", "reason.", "news.")):
        return
    error = BaccaratError.coded(code, **params)  # without names: a field's code stands for its name
    assert str(error) == render(code, params) and error.code == code and error.params == params
    assert pickle.loads(pickle.dumps(error)).params == params  # to a worker process and back


def test_a_refusal_s_words_are_the_catalogue_s():
    error = BetLimitError.coded("bet.above_maximum", wager="dragon_bonus_player", amount=60_000, maximum=50_000,
                                names={"wager": "Dragon Bonus on Player"})
    assert str(error) == "Dragon Bonus on Player bet 600.00 is above its maximum of 500.00: take chips off."
    assert error.params == {"wager": "dragon_bonus_player", "amount": 60_000, "maximum": 50_000}
    limited = RateLimitedError.coded("rate.limited", seconds=30, rule="username")
    assert str(limited) == "Too many failed sign-ins for this username: try again in 30 seconds."
    assert limited.retry_after == 30
    assert rate_limits.BUSY == "Too many sign-ins at once: try again in a few seconds."


def test_the_reasons_a_hand_drew_or_stood_are_codes_whose_words_are_the_rule_card_s():
    for total in range(10):
        assert render(*player_why(total)) == player_reason(total)
    for total in range(8):
        for third in (None, *range(10)):
            assert render(*banker_why(total, third)) == banker_reason(total, third)
    for _ in range(40):
        cards = iter(fair_cards(new_server_seed(), 1))
        coup = deal_coup(cards.__next__)
        why = reasons(coup)
        assert render(*why["player"]) == coup.player_reason and render(*why["banker"]) == coup.banker_reason


def test_the_page_keeps_no_table_of_english_sentences():
    page = (STATIC / "i18n.js").read_text(encoding="utf-8")
    assert "SERVER_SENTENCES" not in page and "REASONS" not in page
    assert "data.code" in page  # refusals are worded from their codes


# --- on the wire ------------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path, manual_clock, monkeypatch: pytest.MonkeyPatch):
    async def no_dealer(*_: Any) -> None:  # the rounds stay as the clock leaves them
        await asyncio.Event().wait()

    monkeypatch.setattr(app_module, "_deal_forever", no_dealer)
    settings = Settings(data_dir=tmp_path, betting_seconds=600, grant=1_000)
    with TestClient(create_app(settings)) as test_client:
        test_client.clock = manual_clock  # type: ignore[attr-defined]
        yield test_client


def _player(client: TestClient, name: str) -> dict[str, str]:
    assert client.post("/api/accounts", json={"username": name, "password": "correct horse"}).status_code == 201
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def _refusal(answer: Any, code: str, params: dict[str, Any]) -> dict[str, Any]:
    """The refusal, checked: its code and params, the English from the catalogue as message and detail."""
    body = answer if isinstance(answer, dict) else answer.json()
    assert body["code"] == code and body["params"] == params, body
    if code != "request.invalid":  # a 422's words are pydantic's, its detail a list of problems
        assert body["message"] == body["detail"]
    return body


def _bet(client: TestClient, auth: dict[str, str], bets: dict[str, int], key: str) -> Any:
    return client.post("/api/tables/2/bets", json={"bets": bets}, headers={**auth, "Idempotency-Key": key})


def test_rest_refusals_carry_code_and_params(client: TestClient):
    auth = _player(client, "ana")
    above = _refusal(_bet(client, auth, {"banker": 999_999}, "rest-key-0001"), "bet.above_maximum",
                     {"wager": "banker", "amount": 999_999, "maximum": 2_500})
    assert above["error"] == "BetLimitError" and above["message"] == (
        "Banker bet 9999.99 is above its maximum of 25.00: take chips off.")
    _refusal(_bet(client, auth, {"tie": 50}, "rest-key-0002"), "bet.below_minimum",
             {"wager": "tie", "amount": 50, "minimum": 100})
    short = _refusal(_bet(client, auth, {"banker": 2_000}, "rest-key-0003"), "bet.balance",
                     {"amount": 2_000, "balance": 1_000})
    assert short["error"] == "InsufficientFundsError" and short["message"] == (
        "Bets of 20.00 are more than your balance of 10.00: take chips off.")
    _refusal(client.post("/api/tables/2/bets", json={"bets": {"banker": 100}, "round": 5},
                         headers={**auth, "Idempotency-Key": "rest-key-0004"}),
             "bet.round_not_open_other", {"round": 5, "open": 1})
    client.clock.advance(seconds=700)  # type: ignore[attr-defined]
    closed = _refusal(_bet(client, auth, {"banker": 100}, "rest-key-0005"), "bet.closed", {"round": 1})
    assert closed["message"] == "No more bets: betting closed for round 1. Bet on the next round."
    wrong = client.post("/api/sessions", json={"username": "ana", "password": "wrong horse"})
    assert wrong.status_code == 401
    _refusal(wrong, "auth.wrong_password", {})
    _refusal(client.get("/api/me"), "auth.log_in_first", {})
    _refusal(client.get("/api/nothing-here"), "request.not_found", {})
    invalid = client.post("/api/accounts", json={"username": "al", "password": "correct horse"})
    assert invalid.status_code == 422 and invalid.json()["error"] == "InvalidRequest"
    _refusal(invalid, "request.invalid", {"field": "username", "problem": "string_too_short"})
    too_large = client.post("/api/accounts", content=b" " * (MAX_BODY + 1),
                            headers={"Content-Type": "application/json"})
    assert too_large.status_code == 413
    _refusal(too_large, "request.too_large", {"limit": MAX_BODY})


def test_seat_refusals_and_table_news_carry_code_and_params(client: TestClient):
    players = [_player(client, f"seat{n}") for n in range(8)]
    assert client.post("/api/tables/3/seats", json={"seat": 2}, headers=players[0]).status_code == 201
    taken = client.post("/api/tables/3/seats", json={"seat": 2}, headers=players[1])
    assert taken.status_code == 409
    _refusal(taken, "seat.taken", {"seat": 2})
    for auth in players[1:7]:
        assert client.post("/api/tables/3/seats", json={}, headers=auth).status_code == 201
    _refusal(client.post("/api/tables/3/seats", json={}, headers=players[7]), "table.full", {"place": 1, "minutes": 5})
    assert client.delete("/api/tables/3/seats", headers=players[0]).status_code == 204
    news = client.get("/api/tables/3").json()["announcements"]
    assert news[0]["code"] == "news.seated" and news[0]["params"] == {"seat": 2, "name": "seat0"}
    assert news[-2]["code"] == "news.left" and news[-2]["params"] == {"seat": 2, "name": "seat0"}
    # the seat freed went to the player in line
    assert news[-1]["code"] == "news.seated" and news[-1]["params"] == {"seat": 2, "name": "seat7"}
    for item in news:  # the English beside the code is the catalogue's
        assert item["text"] == render(item["code"], item["params"])


def test_rate_limited_sign_ins_carry_the_seconds_to_wait(client: TestClient):
    _player(client, "bob")
    for _ in range(rate_limits.LOGIN_FAILURES):
        assert client.post("/api/sessions", json={"username": "bob", "password": "wrong horse"}).status_code == 401
    limited = client.post("/api/sessions", json={"username": "bob", "password": "wrong horse"})
    assert limited.status_code == 429
    body = limited.json()
    assert body["code"] == "rate.limited" and body["params"]["rule"] == "username"
    assert body["params"]["seconds"] == int(limited.headers["retry-after"]) >= 1
    assert body["message"] == render("rate.limited", body["params"])


def _answer(socket: Any) -> dict[str, Any]:
    message = socket.receive_json()
    while message["type"] == "state":
        message = socket.receive_json()
    return message


def test_websocket_refusals_carry_code_and_params(client: TestClient):
    auth = _player(client, "cyd")
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": auth["Authorization"].split()[1]})
        socket.receive_json()
        for key, bets, code, params in (
                ("ws-key-0001", {"banker": 999_999}, "bet.above_maximum",
                 {"wager": "banker", "amount": 999_999, "maximum": 2_500}),
                ("ws-key-0002", {"tie": 50}, "bet.below_minimum", {"wager": "tie", "amount": 50, "minimum": 100}),
                ("ws-key-0003", {"banker": 2_000}, "bet.balance", {"amount": 2_000, "balance": 1_000})):
            socket.send_json({"type": "bet", "key": key, "bets": bets})
            assert _refusal(_answer(socket), code, params)["type"] == "error"
        socket.send_text("not json")
        _refusal(_answer(socket), "frame.not_json", {})
        client.clock.advance(seconds=700)  # type: ignore[attr-defined]
        socket.send_json({"type": "bet", "key": "ws-key-0004", "bets": {"banker": 100}})
        closed = _refusal(_answer(socket), "bet.closed", {"round": 1})
        assert closed["error"] == "IllegalActionError"
        assert closed["message"] == "No more bets: betting closed for round 1. Bet on the next round."
