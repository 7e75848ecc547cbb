"""The HTTP API on a real SQLite file (FastAPI's test client): accounts, wallets, operator
movements, authorization, idempotency, strict bodies, and no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings
from baccarat.verify import verify_shoe


@pytest.fixture
def client(tmp_path: Path, database_url: str):
    settings = Settings(data_dir=tmp_path, database_url=database_url, grant=50_000)
    with TestClient(create_app(settings)) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client
    with connect(settings.url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


def _player(client: TestClient, name: str) -> tuple[int, dict[str, str]]:
    created = client.post("/api/accounts", json={"username": name, "password": "correct horse"})
    assert created.status_code == 201, created.text
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return created.json()["id"], {"Authorization": f"Bearer {token}"}


def _staff(client: TestClient, role: str = "cashier") -> dict[str, str]:
    """A member of staff's headers (the account is named after its role)."""
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, role, "correct horse", grant=0, role=role))
    token = client.post("/api/sessions", json={"username": role, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_health_register_log_in_and_me(client):
    assert client.get("/health").json() == {"status": "ok"}
    account_id, auth = _player(client, "alice")
    me = client.get("/api/me", headers=auth).json()
    assert me == {"id": account_id, "username": "alice", "role": "player", "actions": [], "balance": 50_000}
    assert client.get("/api/me").status_code == 401
    assert client.delete("/api/sessions", headers=auth).status_code == 204
    assert client.get("/api/me", headers=auth).status_code == 401


def test_wrong_password_taken_name_and_unknown_fields(client):
    _player(client, "bob")
    assert client.post("/api/sessions", json={"username": "bob", "password": "wrong horse"}).status_code == 401
    assert client.post("/api/accounts", json={"username": "bob", "password": "correct horse"}).status_code == 409
    answer = client.post("/api/accounts", json={"username": "eve", "password": "correct horse", "balance": 10**9})
    assert answer.status_code == 422 and "balance" in answer.text
    assert client.post("/api/accounts", content=b"{not json", headers={"Content-Type": "application/json"}
                       ).status_code == 422


def test_a_cashiers_credit_and_debit_are_idempotent_and_for_cashiers_only(client):
    player_id, player = _player(client, "carol")
    operator = _staff(client)
    url = f"/api/operator/wallets/{player_id}/credit"
    headers = {**operator, "Idempotency-Key": "credit-0001"}
    first = client.post(url, json={"amount": 2_500, "memo": "promotion"}, headers=headers)
    again = client.post(url, json={"amount": 2_500, "memo": "promotion"}, headers=headers)
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert first.json()["balance"] == 52_500
    assert client.post(url, json={"amount": 9, "memo": "promotion"}, headers=headers).status_code == 409
    assert client.post(url, json={"amount": 1}, headers=operator).status_code == 422  # no key
    debit = client.post(f"/api/operator/wallets/{player_id}/debit", json={"amount": 10**8},
                        headers={**operator, "Idempotency-Key": "debit-0001"})
    assert debit.status_code == 409 and "more than the balance" in debit.json()["detail"]
    # a player cannot move money, not even into their own wallet
    forbidden = client.post(url, json={"amount": 1}, headers={**player, "Idempotency-Key": "credit-0002"})
    assert forbidden.status_code == 403
    assert client.get("/api/me", headers=player).json()["balance"] == 52_500


@pytest.mark.parametrize("amount", [0, -5, 10**15, "12.50", 1.5, None])
def test_bad_amounts_are_refused(client, amount):
    player_id, _ = _player(client, "dave")
    operator = _staff(client)
    answer = client.post(f"/api/operator/wallets/{player_id}/credit", json={"amount": amount},
                         headers={**operator, "Idempotency-Key": "credit-bad-1"})
    assert answer.status_code == 422
    assert "Traceback" not in answer.text


@pytest.mark.slow
def test_serve_prints_its_address_and_answers(tmp_path: Path, serve):
    """The real command: a uvicorn process on a free port with SQLite in the data directory (the ``serve``
    fixture fails unless its first line is ``... ready at http://HOST:PORT ...``)."""
    import subprocess

    import httpx

    from ...server_kit import EXE

    made = subprocess.run([EXE, "staff", "boss", "--data-dir", str(tmp_path)], input="correct horse\n",
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0 and "admin boss created" in made.stdout
    server = serve()
    base = server.url
    assert httpx.get(f"{base}/health", timeout=10).json() == {"status": "ok"}
    login = httpx.post(f"{base}/api/sessions", json={"username": "boss", "password": "correct horse"}, timeout=10)
    token = login.json()["token"]
    me = httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    assert me["role"] == "admin" and me["balance"] == 0 and me["actions"] == ["audit", "staff"]
    assert (tmp_path / "baccarat.sqlite3").exists()
    # no warning or error on stderr, before the ready line or after it: info lines only (as JSON, off a terminal)
    assert {json.loads(line)["level"] for line in server.stderr().splitlines()} == {"info"}


@pytest.mark.slow
def test_a_player_sits_bets_and_the_dealer_settles_the_round(client):
    import time

    from baccarat.server.playing import tables as server_tables

    _, auth = _player(client, "gina")  # before the table: its first window opens as it is made
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        table_id = transaction(sessions, lambda s: server_tables.create_table(
            s, "quick-ez", "ez", betting_seconds=2.0, pace=Pace(0.2, 0.1, 0.5)).id)
    listed = client.get("/api/tables").json()
    assert {t["name"] for t in listed} == {"mini-1", "ez-1", "lucky-draw-1", "mini-squeeze", "quick-ez"}
    assert all(len(t["shoe"]["commitment"]) == 64 and "server_seed" not in t["shoe"] for t in listed)
    lucky = next(t["id"] for t in listed if t["game"] == "lucky-draw")  # Lucky Draw's hands are its seats'
    assert client.post(f"/api/tables/{lucky}/bets", json={"bets": {"enter": 100}},
                       headers={**auth, "Idempotency-Key": "bet-00000001"}).status_code == 409  # not seated
    assert client.post(f"/api/tables/{table_id}/seats", json={}, headers=auth).json() == {"seat": 1}
    headers = {**auth, "Idempotency-Key": "bet-00000002"}
    placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 1_000, "panda_8": 100}},
                         headers=headers)
    assert placed.status_code == 201, placed.text
    assert placed.json()["balance"] == 48_900
    retry = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 1_000, "panda_8": 100}},
                        headers=headers)
    assert retry.json() == placed.json()  # answered from the stored result, no second stake
    assert client.post(f"/api/tables/{table_id}/bets", json={"bets": {"dragon_bonus_player": 100}},
                       headers={**auth, "Idempotency-Key": "bet-00000003"}).status_code == 409  # not EZ's
    assert client.get("/api/tables/999", headers=auth).status_code == 404
    deadline = time.monotonic() + 10
    history: list = []
    while time.monotonic() < deadline and not history:
        time.sleep(0.1)
        history = client.get("/api/history", headers=auth).json()
    assert history and history[0]["table"] == "quick-ez" and history[0]["status"] == "settled"
    balance = client.get("/api/me", headers=auth).json()["balance"]
    assert balance == history[0]["balance_after"] == 50_000 + sum(b["net"] for b in history[0]["bets"].values())
    shoe = client.get(f"/api/tables/{table_id}/shoes/1")
    assert shoe.status_code == 409  # the shoe is still in play: no seed yet
    # ... but its rounds shown so far are proven at once against its Merkle root (algorithm 3)
    in_play = client.get(f"/api/tables/{table_id}/shoes/1?in_play=true").json()
    assert "server_seed" not in in_play and "burned" not in in_play and len(in_play["merkle_root"]) == 64
    assert history[0]["round"] in [r["round"] for r in in_play["rounds"]]
    proven = verify_shoe(in_play)
    assert proven.ok and proven.proven, proven.problems
    # the round is on the scoreboards, with the same winner and flags the core gives its coup
    detail = history[0]["detail"]
    roads = client.get(f"/api/tables/{table_id}/roads").json()
    assert roads["shoe"] == 1 and roads["stats"]["hands"] == 1  # rounds without bets are not dealt
    assert roads["bead_plate"][0]["outcome"] == {"banker": "B", "player": "P", "tie": "T"}[history[0]["winner"]]
    assert detail["reasons"]["player"] and detail["reasons"]["banker"]  # why each hand drew or stood
    assert detail["hand"]["player_pair"] == (detail["player_cards"][0][0] == detail["player_cards"][1][0])
    assert client.get("/api/tables/3/roads").status_code == 409  # Lucky Draw has no Banker/Player roads


def test_authorization_matrix(client):
    """Every route that acts for a player needs that player's token; no route reaches another
    player's wallet, seat, bets or history."""
    alice_id, alice = _player(client, "alice")
    bob_id, bob = _player(client, "bobby")
    public = {("GET", "/health"), ("GET", "/ready"), ("POST", "/api/accounts"), ("POST", "/api/sessions"),
              ("GET", "/api/tables"), ("GET", "/api/tables/{table_id}"),
              ("GET", "/api/tables/{table_id}/shoes/{number}"),
              ("GET", "/api/tables/{table_id}/roads"), ("GET", "/api/tables/{table_id}/strategy"),
              ("GET", "/api/games"), ("GET", "/api/games/definition"), ("GET", "/api/server"), ("GET", "/"),
              ("GET", "/api/fairness/key"),  # the house's public key: anyone checks an export with it
              ("GET", "/operator"),
              ("GET", "/openapi.json"), ("GET", "/docs"), ("GET", "/redoc"), ("GET", "/docs/oauth2-redirect")}
    samples = {"table_id": "1", "account_id": str(alice_id), "number": "1", "seat": "1", "request_id": "1"}
    checked = 0
    # every route the API documents (routers are included lazily: app.routes does not list theirs)
    for template, operations in client.get("/openapi.json").json()["paths"].items():
        for method in (m.upper() for m in operations):
            if (method, template) in public or template.startswith("/api/operator"):
                continue  # (the staff's routes: test_console_api and house/test_roles, token by token)
            path = template.format(**samples)
            for headers in ({}, {"Authorization": "Bearer not-a-token"}):
                answer = client.request(method, path, json={"bets": {"banker": 100}, "amount": 1},
                                        headers={**headers, "Idempotency-Key": f"authz-{checked:04d}"})
                assert answer.status_code in (401, 403, 422), (method, path, answer.status_code)
                checked += 1
    assert checked >= 16  # the player's routes, without a token and with a forged one
    # another player's ids: Bob can neither move Alice's money nor see her rounds
    for action in ("credit", "debit"):
        answer = client.post(f"/api/operator/wallets/{alice_id}/{action}", json={"amount": 100},
                             headers={**bob, "Idempotency-Key": f"bob-{action}-01"})
        assert answer.status_code == 403
    client.post("/api/tables/2/seats", json={}, headers=alice)
    assert client.post("/api/tables/2/seats", json={"seat": 1}, headers=bob).status_code == 409  # Alice's seat
    client.post("/api/tables/2/bets", json={"bets": {"banker": 100}}, headers={**alice, "Idempotency-Key": "al-001"})
    assert client.delete("/api/tables/2/seats", headers=bob).status_code == 204  # Bob had no seat: nothing happens
    assert client.post("/api/operator/tables/2/seats/1/stand", headers=bob).status_code == 403  # nor stand her up
    seats = client.get("/api/tables/2").json()["seats"]
    assert seats == {"1": "alice"}
    assert client.get("/api/history", headers=bob).json() == []
    assert client.get("/api/me", headers=bob).json()["id"] == bob_id


@pytest.mark.slow
def test_a_lucky_draw_round_through_the_api(client):
    import time

    from baccarat.server.playing import tables as server_tables

    _, auth = _player(client, "hank")  # before the table: its first window opens as it is made
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        table_id = transaction(sessions, lambda s: server_tables.create_table(
            s, "quick-ld", "lucky-draw", paytable=2, betting_seconds=2.0, decision_seconds=5,
            pace=Pace(0.2, 0.1, 0.5)).id)
    client.post(f"/api/tables/{table_id}/seats", json={}, headers=auth)
    placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"enter": 1_000}},
                         headers={**auth, "Idempotency-Key": "ld-bet-0001"})
    assert placed.status_code == 201, placed.text
    deadline = time.monotonic() + 15
    view = {}
    while time.monotonic() < deadline and not view.get("decision"):
        time.sleep(0.1)
        view = client.get(f"/api/tables/{table_id}").json()
    first_deal = view["decision"]["first_deal"]
    assert len(first_deal["seat:1"]) == 2 and len(first_deal["dealer"]) == 1  # only face-up cards
    decided = client.post(f"/api/tables/{table_id}/decision", json={"action": "draw"},
                          headers={**auth, "Idempotency-Key": "ld-draw-0001"})
    assert decided.status_code == 201 and decided.json()["balance"] == 48_000
    assert client.post(f"/api/tables/{table_id}/decision", json={"action": "fold"},
                       headers={**auth, "Idempotency-Key": "ld-draw-0002"}).status_code == 422
    history: list = []
    while time.monotonic() < deadline and not history:
        time.sleep(0.1)
        history = client.get("/api/history", headers=auth).json()
    assert history and set(history[0]["bets"]) == {"enter", "draw"}
    assert history[0]["balance_after"] == client.get("/api/me", headers=auth).json()["balance"]


def test_login_attempts_are_limited_and_big_bodies_refused(client):
    _player(client, "mallory")
    for _ in range(10):
        assert client.post("/api/sessions", json={"username": "mallory", "password": "guess guess"}
                           ).status_code == 401
    blocked = client.post("/api/sessions", json={"username": "mallory", "password": "correct horse"})
    assert blocked.status_code == 429  # even the right password waits out the window
    other = client.post("/api/sessions", json={"username": "nobody1", "password": "guess guess"})
    assert other.status_code == 401  # the limit is per username
    huge = client.post("/api/accounts", content=b"{" + b" " * 20_000 + b"}",
                       headers={"Content-Type": "application/json"})
    assert huge.status_code == 413


def _wait_for(client: TestClient, table_id: int, done, seconds: float = 10.0) -> dict:
    import time

    deadline = time.monotonic() + seconds
    view = client.get(f"/api/tables/{table_id}").json()
    while not done(view) and time.monotonic() < deadline:
        time.sleep(0.05)
        view = client.get(f"/api/tables/{table_id}").json()
    assert done(view), view
    return view


@pytest.mark.slow
def test_operator_opens_tables_changes_limits_from_the_next_round_and_closes_them(client):
    operator = _staff(client, "pit_boss")
    _, alice = _player(client, "alice")
    body = {"name": "ez-fast", "game": "ez", "betting_seconds": 0.5, "card_seconds": 0.1, "results_seconds": 0.5}
    assert client.post("/api/operator/tables", json=body, headers=alice).status_code == 403
    created = client.post("/api/operator/tables", json=body, headers=operator)
    assert created.status_code == 201, created.text
    view = created.json()
    table_id = view["id"]
    assert view["status"] == "open" and view["round"]["number"] == 1 and view["shoe"]["number"] == 1
    assert client.post("/api/operator/tables", json=body, headers=operator).status_code == 409  # same name
    for bad in ({**body, "name": "x", "game": "craps"}, {**body, "name": "y", "decks": 0},
                {**body, "name": "z", "cut_card": 900}, {**body, "name": "w", "stakes": 1}):
        assert client.post("/api/operator/tables", json=bad, headers=operator).status_code == 422, bad

    # limits: refused for players and for nonsense, pending until the next round opens
    limits = f"/api/operator/tables/{table_id}/limits"
    new = {"minimum": 2_000, "maximums": {"dragon_7": 3_000}}
    assert client.put(limits, json=new, headers=alice).status_code == 403
    for bad, status in (({"minimum": 0}, 422), ({"minimum": 2_000, "extra": 1}, 422),  # the schema's refusals
                        ({"minimum": 2_000, "maximums": {"craps": 5_000}}, 409),  # the table's rules
                        ({"minimum": 2_000, "maximums": {"banker": 1_000}}, 409)):
        assert client.put(limits, json=bad, headers=operator).status_code == status, bad
    assert client.get(f"/api/tables/{table_id}").json()["pending_limits"] is None  # nothing half-applied
    changed = client.put(limits, json=new, headers=operator).json()
    assert changed["pending_limits"] == new and changed["limits"]["minimum"] == 100
    client.post(f"/api/tables/{table_id}/seats", json={}, headers=alice)
    first = _wait_for(client, table_id, lambda v: v["round"] is not None)["round"]["number"]
    placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 1_000}},
                         headers={**alice, "Idempotency-Key": "limits-old-1"})
    # the next round to open takes the new limits (whichever it is: a loaded machine may have moved on a round
    # or two, and a refused bet may have been refused for a window not open yet; CI failed waiting for a number)
    view = _wait_for(client, table_id, lambda v: v["round"] is not None and v["pending_limits"] is None, seconds=30)
    assert view["limits"] == new and view["round"]["number"] > first - (placed.status_code != 201)
    refused = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 1_000}},
                          headers={**alice, "Idempotency-Key": "limits-new-1"})
    assert refused.status_code == 409 and refused.json()["code"] == "bet.below_minimum", refused.text

    # close with a bet on the layout: the round is dealt and settled, then the table closes
    placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"player": 2_000}},
                         headers={**alice, "Idempotency-Key": "limits-new-2"})
    close = f"/api/operator/tables/{table_id}/close"
    assert client.post(close, headers=alice).status_code == 403
    closing = client.post(close, headers=operator).json()
    assert closing["status"] == ("closing" if placed.status_code == 201 else "closed")
    closed = _wait_for(client, table_id, lambda v: v["status"] == "closed")
    assert closed["round"] is None
    history = client.get("/api/history", headers=alice).json()
    assert all(round_["status"] == "settled" for round_ in history)  # no bet was dropped
    shoe = client.get(f"/api/tables/{table_id}/shoes/1")
    assert shoe.status_code == 200 and shoe.json()["server_seed"]  # the dropped shoe's seed is revealed
    assert client.post(f"/api/tables/{table_id}/seats", json={}, headers=alice).status_code in (201, 409)
    assert client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 2_000}},
                       headers={**alice, "Idempotency-Key": "closed-bet-1"}).status_code == 409

    # open again: a new shoe with a new commitment
    assert client.post(f"/api/operator/tables/{table_id}/open", headers=alice).status_code == 403
    reopened = client.post(f"/api/operator/tables/{table_id}/open", headers=operator).json()
    assert reopened["status"] == "open" and reopened["shoe"]["number"] == 2 and reopened["round"] is not None
    assert reopened["shoe"]["commitment"] != shoe.json()["commitment"]


def test_closing_an_idle_table_is_immediate_and_idempotent(client):
    operator = _staff(client, "pit_boss")
    for _ in range(2):
        view = client.post("/api/operator/tables/1/close", headers=operator).json()
        assert view["status"] == "closed" and view["round"] is None
    assert client.post("/api/operator/tables/99/close", headers=operator).status_code == 404
    for _ in range(2):
        view = client.post("/api/operator/tables/1/open", headers=operator).json()
        assert view["status"] == "open" and view["round"]["number"] == 2


def test_the_browser_table_is_served_with_a_strict_content_security_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/static/app.js" in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    script = client.get("/static/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/../server/app.py").status_code == 404


def test_the_websocket_accepts_the_page_s_own_origin_and_refuses_others(client):
    from starlette.websockets import WebSocketDisconnect

    _, auth = _player(client, "olive")
    token = auth["Authorization"].split()[1]
    with client.websocket_connect("/ws/tables/1", headers={"origin": "http://testserver"}) as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"
    with pytest.raises(WebSocketDisconnect), \
            client.websocket_connect("/ws/tables/1", headers={"origin": "http://evil.example"}) as socket:
        socket.send_json({"type": "auth", "token": token})
        socket.receive_json()


def test_the_lucky_draw_hint_is_the_exact_strategy_card(client):
    card = client.get("/api/tables/3/strategy").json()  # lucky-draw-1: 8 decks, DrawWin pay table 1
    assert "pay table 1" in card["basis"]
    draw = card["draw"]  # seat total -> up-card values (0 for a ten) on which drawing is optimal
    assert all(draw[str(total)] == list(range(10)) for total in (0, 1, 2))
    assert draw["3"] == draw["4"] == list(range(9))  # all but a 9
    assert draw["5"] == list(range(8))  # all but an 8 or a 9
    assert (draw["6"], draw["7"], draw["8"], draw["9"]) == ([0], [0, 1], [], [0, 1])
    assert client.get("/api/tables/1/strategy").status_code == 409  # punto banco: no Draw decision


def _on_a_terminal(args: list[str], answers: list[str], timeout: float = 60) -> tuple[int, str]:
    """Run ``args`` with a pseudo-terminal as its terminal, typing each answer once its prompt (a line
    ending in ': ') is shown; its exit code and everything it showed."""
    import os
    import pty
    import select
    import subprocess
    import time

    controller, terminal = pty.openpty()
    process = subprocess.Popen(args, stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True)
    os.close(terminal)
    shown, left, deadline = b"", list(answers), time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([controller], [], [], 0.1)[0]:
                try:
                    shown += os.read(controller, 4096)
                except OSError:  # the command ended and closed the terminal
                    break
            if left and shown.rstrip(b" ").endswith(b":"):  # a prompt waits (getpass flushes what came before)
                os.write(controller, left.pop(0).encode() + b"\n")
                shown += b"\n"
            if process.poll() is not None and not select.select([controller], [], [], 0.1)[0]:
                break
        return process.wait(timeout=10), shown.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)


@pytest.mark.slow
def test_a_staff_password_is_typed_twice_on_a_terminal(tmp_path):
    import shutil
    import sys

    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    assert exe is not None
    args = [exe, "staff", "boss", "--role", "cashier", "--data-dir", str(tmp_path)]
    code, shown = _on_a_terminal(args, ["correct horse battery", "correct horse batery"])
    assert code == 2 and "the two passwords typed differ; nothing was created" in " ".join(shown.split()), shown
    assert "correct horse" not in shown  # typed unseen
    code, shown = _on_a_terminal(args, ["correct horse battery", "correct horse battery"])
    assert code == 0 and "cashier boss created" in shown, shown
