"""Seats squatted for good (issue 29, item 1): seven accounts that sat down at the Lucky Draw table over
REST and never bet kept it full indefinitely, since the sit-out rule counted only dealt rounds, a round
nobody bets on is never dealt, and the away grace starts only when a socket closes.

Now every betting window counts: a seat whose player placed no bet in ``sit_out_rounds`` windows in a row
(``BACCARAT_SIT_OUT_ROUNDS``, 5) is freed, socket or not, announced to the table, and the player is told why
(``notice`` in their state).  An operator can stand a player up (``POST
/api/operator/tables/{id}/seats/{seat}/stand``), audited.  On both databases; the clock is held by hand and
the test deals the rounds itself (the app's dealer loop is off)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from baccarat.core.errors import BaccaratError
from baccarat.server.api import app as app_module
from baccarat.server.house import accounts
from baccarat.server.playing import betting, seating, tables
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Round, Seat, aware
from baccarat.server.storage.settings import Settings

from ...conftest import api_client

LUCKY = 3  #: the Lucky Draw table of a fresh database (mini-1, ez-1, lucky-draw-1)
BETTING = 15.0


@pytest.fixture
def client(database_url: str, tmp_path: Path, manual_clock: Any, monkeypatch: pytest.MonkeyPatch):
    async def no_dealer(*_: Any) -> None:  # the test deals, at the moments it chooses
        await asyncio.Event().wait()

    monkeypatch.setattr(app_module, "_deal_forever", no_dealer)
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=BETTING, grant=0)
    for test_client in api_client(settings):
        test_client.clock = manual_clock  # type: ignore[attr-defined]
        yield test_client


def _player(client: TestClient, name: str, role: str = "player") -> dict[str, str]:
    sessions = client.app.state.sessions  # type: ignore[attr-defined]
    transaction(sessions, lambda s: accounts.register(s, name, "correct horse", grant=50_000, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def _in_play(client: TestClient) -> Round:
    sessions = client.app.state.sessions  # type: ignore[attr-defined]
    current = read(sessions, lambda s: tables.round_in_play(s, LUCKY))
    assert current is not None
    return current


def _close_window(client: TestClient) -> None:
    """Hold the clock at the close of the betting window in play (and, if its round was dealt, at the end
    of its decisions) and deal, until the next window takes bets: exactly one window closes."""
    clock, dealer = client.clock, client.app.state.dealer  # type: ignore[attr-defined]
    window = _in_play(client)
    for _ in range(3):
        current = _in_play(client)
        # a new window: the next round, or (nobody bet, nobody watches) the same round taking bets again
        if current.status == "betting" and (current.number, current.closes_at) != (window.number, window.closes_at):
            clock.moment = max(clock.now(), aware(current.opens_at))  # the new window is open: bets are taken
            return
        due = aware(current.closes_at if current.status == "betting" else current.decides_at)
        clock.moment = max(clock.now(), due + timedelta(seconds=1))  # past the allowance for late bets
        dealer.deal_due(clock.now())
    raise AssertionError("the table did not move on to its next window")


def _seated(client: TestClient) -> dict[int, str]:
    return {int(n): name for n, name in client.get(f"/api/tables/{LUCKY}").json()["seats"].items()}


def test_seven_rest_sitters_who_never_bet_are_freed_after_five_windows_and_a_newcomer_sits(client: TestClient):
    squatters = {f"squat{i}": _player(client, f"squat{i}") for i in range(1, 8)}
    for auth in squatters.values():
        assert client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=auth).status_code == 201
    newcomer = _player(client, "newcomer")
    full = client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=newcomer)
    assert full.status_code == 409 and full.json()["code"] == "table.full"
    for window in range(1, 5):  # four windows nobody bets in: the seats are still held
        _close_window(client)
        assert len(_seated(client)) == 7, window
        assert client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=newcomer).json()["code"] == "table.full"
    _close_window(client)  # the fifth: every squatter is stood up, though none ever had a socket to close
    assert _seated(client) == {1: "newcomer"}  # the first seat freed went to the newcomer, who had asked
    news = [a for a in client.get(f"/api/tables/{LUCKY}").json()["announcements"] if a["kind"] == "stood_up"]
    assert len(news) == 7
    assert {(a["code"], a["params"]["rounds"]) for a in news} == {("news.stood_up", 5)}
    assert news[0]["text"].endswith(" after sitting out 5 rounds.")
    # each squatter is told why, in a code the page words (GET .../you; the WebSocket's "you" is the same)
    for name, auth in squatters.items():
        mine = client.get(f"/api/tables/{LUCKY}/you", headers=auth).json()
        assert mine["seat"] is None
        assert mine["notice"]["code"] == "notice.stood_up" and mine["notice"]["params"]["rounds"] == 5, name
        assert set(mine["notice"]["params"]) == {"seat", "rounds"}
        assert mine["balance"] == 50_000  # no money moved
    seated = client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=newcomer)
    assert seated.status_code == 201 and seated.json() == {"seat": 1}, seated.text
    assert client.get(f"/api/tables/{LUCKY}/you", headers=newcomer).json()["notice"] is None
    # sitting down again ends the notice
    again = client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=squatters["squat1"])
    assert again.status_code == 201
    assert client.get(f"/api/tables/{LUCKY}/you", headers=squatters["squat1"]).json()["notice"] is None


def _sit(client: TestClient, auth: dict[str, str]) -> Any:
    return client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=auth)


def _leave(client: TestClient, auth: dict[str, str]) -> None:
    assert client.delete(f"/api/tables/{LUCKY}/seats", headers=auth).status_code == 204


def test_squatters_who_leave_and_sit_again_keep_their_count_and_are_stood_up_after_five_windows(client: TestClient):
    """Leaving and sitting again once took the count back to 0: seven accounts doing it every four windows kept the
    table full.  The windows sat out are the player's at that table: they come back with the seat."""
    squatters = [_player(client, f"squat{i}") for i in range(1, 8)]
    for auth in squatters:
        assert _sit(client, auth).status_code == 201
    for _ in range(4):
        _close_window(client)
    for auth in squatters:  # every one leaves and sits down again
        _leave(client, auth)
        assert _sit(client, auth).status_code == 201
    assert len(_seated(client)) == 7
    _close_window(client)  # their fifth window sat out
    assert _seated(client) == {}


def test_the_windows_sat_out_are_forgotten_once_the_sit_out_period_has_passed(client: TestClient):
    """A player who left five windows ago sits down with a fresh count."""
    ann = _player(client, "ann")
    assert _sit(client, ann).status_code == 201
    _close_window(client)
    _leave(client, ann)  # one window sat out, kept
    for _ in range(5):
        _close_window(client)
    assert _sit(client, ann).status_code == 201
    for _ in range(4):
        _close_window(client)
    assert "ann" in _seated(client).values()


def test_a_player_refused_at_a_full_table_is_in_line_and_gets_the_next_seat_freed(client: TestClient):
    """The eighth player is told their place; the first seat freed (a squatter leaving to sit again) is theirs at
    once, and the squatter who left is in line behind; asking again keeps the place; leaving the line leaves it."""
    squatters = [_player(client, f"squat{i}") for i in range(1, 8)]
    for auth in squatters:
        assert _sit(client, auth).status_code == 201
    eighth, ninth = _player(client, "eighth"), _player(client, "ninth")
    full = _sit(client, eighth)
    assert full.status_code == 409 and full.json()["code"] == "table.full"
    assert full.json()["params"] == {"place": 1, "minutes": 5}
    assert "number 1 in line" in full.json()["message"]
    assert _sit(client, ninth).json()["params"]["place"] == 2
    assert _sit(client, eighth).json()["params"]["place"] == 1  # asking again keeps the place
    _leave(client, squatters[0])
    assert _seated(client)[1] == "eighth"  # squat1's seat, at once
    again = _sit(client, squatters[0])
    assert again.json()["code"] == "table.full" and again.json()["params"]["place"] == 2  # behind ninth
    _leave(client, ninth)  # out of the line
    _leave(client, squatters[1])
    assert _seated(client)[2] == "squat1"
    news = [a["params"] for a in client.get(f"/api/tables/{LUCKY}").json()["announcements"] if a["kind"] == "seated"]
    assert [(n["name"], n["seat"]) for n in news[-2:]] == [("eighth", 1), ("squat1", 2)]


def test_seven_squatters_sitting_again_every_four_windows_leave_the_eighth_a_seat_within_five(client: TestClient):
    """The attack as it was run: seven accounts leave and sit again every four windows; an eighth tries to sit in
    every window.  Before, the eighth never sat (74 tries over 13 windows); now within five."""
    squatters = [_player(client, f"squat{i}") for i in range(1, 8)]
    for auth in squatters:
        assert _sit(client, auth).status_code == 201
    eighth = _player(client, "eighth")
    seated_in = None
    for window in range(1, 6):
        if _sit(client, eighth).status_code == 201 and seated_in is None:
            seated_in = window
        if window % 4 == 0:
            for auth in squatters:
                _leave(client, auth)
                _sit(client, auth)
        _close_window(client)
        if "eighth" in _seated(client).values() and seated_in is None:
            seated_in = window
    assert seated_in is not None and seated_in <= 5, seated_in


def test_a_player_who_bets_once_in_five_windows_keeps_the_seat(client: TestClient):
    ann, ben = _player(client, "ann"), _player(client, "ben")
    for auth in (ann, ben):
        assert client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=auth).status_code == 201
    for window in range(1, 10):
        if window in (4, 8):  # ann bets in windows 4 and 8 (never more than four idle in a row); ben never
            placed = client.post(f"/api/tables/{LUCKY}/bets", json={"bets": {"enter": 100}},
                                 headers={**ann, "Idempotency-Key": f"ann-window-{window}"})
            assert placed.status_code == 201, placed.text
        _close_window(client)
        assert ("ben" in _seated(client).values()) == (window < 5), window
        assert "ann" in _seated(client).values(), window
    mine = client.get(f"/api/tables/{LUCKY}/you", headers=ann).json()
    assert mine["seat"] == 1 and mine["notice"] is None


def test_the_operator_stands_a_player_up(client: TestClient):
    boss, watcher = _player(client, "pit_boss", "pit_boss"), _player(client, "watcher", "surveillance")
    vera = _player(client, "vera")
    stand = f"/api/operator/tables/{LUCKY}/seats/1/stand"
    assert client.post(f"/api/tables/{LUCKY}/seats", json={}, headers=vera).json()["seat"] == 1
    # no token, a forged one, a player's: refused, and nothing changes
    assert client.post(stand).status_code == 401
    assert client.post(stand, headers={"Authorization": "Bearer forged"}).status_code == 401
    refused = client.post(stand, headers=vera)
    assert refused.status_code == 403 and refused.json()["code"] == "auth.staff_only"
    assert refused.json()["params"] == {"action": "stand_players", "roles": ["pit_boss"]}
    # an unknown table, a seat the game has not, an empty seat: refused with their codes
    for path, status, code, params in (
            ("/api/operator/tables/99/seats/1/stand", 404, "table.unknown", {"table": 99}),
            (f"/api/operator/tables/{LUCKY}/seats/8/stand", 404, "seat.out_of_range", {"seats": 7}),
            (f"/api/operator/tables/{LUCKY}/seats/2/stand", 404, "seat.empty", {"seat": 2}),
            (f"/api/operator/tables/{LUCKY}/seats/0/stand", 422, "request.invalid", None)):
        answer = client.post(path, headers=boss)
        assert answer.status_code == status and answer.json()["code"] == code, (path, answer.text)
        if params is not None:
            assert answer.json()["params"] == params
    # with a bet in play the seat is Vera's until the round is settled
    placed = client.post(f"/api/tables/{LUCKY}/bets", json={"bets": {"enter": 100}},
                         headers={**vera, "Idempotency-Key": "vera-bet-0001"})
    assert placed.status_code == 201, placed.text
    busy = client.post(stand, headers=boss)
    assert busy.status_code == 409 and busy.json()["code"] == "seat.stand_with_bets"
    assert busy.json()["params"] == {"seat": 1}
    assert client.get("/api/operator/audit", headers=watcher).json() == []  # refusals are not actions
    _close_window(client)
    balance = client.get("/api/me", headers=vera).json()["balance"]
    vera_id = client.get("/api/me", headers=vera).json()["id"]
    answer = client.post(stand, headers=boss)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"table": LUCKY, "seat": 1, "account_id": vera_id, "name": "vera"}
    assert _seated(client) == {}
    news = client.get(f"/api/tables/{LUCKY}").json()["announcements"][-1]
    assert (news["kind"], news["code"], news["params"]) == ("operator_stood", "news.operator_stood",
                                                            {"seat": 1, "name": "vera"})
    assert news["text"] == "vera was stood up from seat 1 by the house."
    mine = client.get(f"/api/tables/{LUCKY}/you", headers=vera).json()
    assert mine["notice"]["code"] == "notice.operator_stood" and mine["notice"]["params"] == {"seat": 1}
    assert mine["balance"] == balance == client.get("/api/me", headers=vera).json()["balance"]  # money untouched
    entries = client.get("/api/operator/audit", headers=watcher).json()
    assert [(e["actor"], e["action"], e["target"]) for e in entries] == [("pit_boss", "stand_player",
                                                                          f"table {LUCKY} seat 1")]
    assert entries[0]["before"] == {"account_id": vera_id}
    assert entries[0]["after"] == {"account_id": None, "player": "vera"}
    assert client.get("/api/operator/audit/verify", headers=watcher).json()["ok"] is True
    # the seat is free: someone else (or Vera again) may take it; standing it again is refused
    again = client.post(stand, headers=boss)
    assert again.status_code == 404 and again.json()["code"] == "seat.empty"
    with client.app.state.sessions() as s:  # type: ignore[attr-defined]
        assert s.scalars(select(Seat)).all() == []


def test_sitting_down_and_leaving_are_refused_when_they_may_not_and_change_nothing(sessions):
    """A closed table, a seat the game has not or someone else's, a player on a break: refused with their codes and
    no seat taken; sitting down again gives the seat already held.  Leaving with chips on the round in play is
    refused and the seat stays; a break stands the player up from every seat but the one with chips in play."""
    now = datetime.now(UTC)

    def work(s: Any) -> tuple[int, int, int, int, int]:
        lucky = tables.create_table(s, "lucky", "lucky-draw", betting_seconds=600, now=now - timedelta(seconds=1))
        ez = tables.create_table(s, "ez", "ez", betting_seconds=600, now=now - timedelta(seconds=1))
        shut = tables.create_table(s, "shut", "ez", betting_seconds=600, now=now - timedelta(seconds=1))
        tables.close_table(s, shut.id, now)
        ann, ben = (accounts.register(s, name, "correct horse", grant=10_000).id for name in ("ann", "ben"))
        return lucky.id, ez.id, shut.id, ann, ben
    lucky, ez, shut, ann, ben = transaction(sessions, work)

    def seats() -> list[tuple[int, int, int]]:
        with sessions() as s:
            return sorted((seat.table_id, seat.number, seat.account_id) for seat in s.scalars(select(Seat)))

    def refusal(act: Any) -> tuple[str, dict[str, Any]]:
        before = seats()
        with pytest.raises(BaccaratError) as refused:
            transaction(sessions, act)
        assert seats() == before
        return refused.value.code, refused.value.params

    assert refusal(lambda s: seating.sit(s, shut, ann, now=now)) == ("table.closed", {})
    assert refusal(lambda s: seating.sit(s, lucky, ann, 8, now=now)) == ("seat.out_of_range", {"seats": 7})
    assert refusal(lambda s: seating.sit(s, lucky, ann, 0, now=now)) == ("seat.out_of_range", {"seats": 7})
    assert transaction(sessions, lambda s: seating.sit(s, lucky, ann, 4, now=now)) == 4
    assert transaction(sessions, lambda s: seating.sit(s, lucky, ann, 2, now=now)) == 4  # already seated: that seat
    assert refusal(lambda s: seating.sit(s, lucky, ben, 4, now=now)) == ("seat.taken", {"seat": 4})
    assert transaction(sessions, lambda s: seating.sit(s, ez, ann, now=now)) == 1
    transaction(sessions, lambda s: betting.place_bets(s, lucky, ann, {"enter": 100}, now))
    assert refusal(lambda s: seating.leave(s, lucky, ann, now)) == ("seat.leave_with_bets", {})
    transaction(sessions, lambda s: seating.leave(s, lucky, ben, now))  # not seated: nothing to give up
    # a time-out: stood up at once where no chips are in play; the seat with chips goes after its round
    transaction(sessions, lambda s: seating.take_break(s, ann, hours=24, now=now))
    assert seats() == [(lucky, 4, ann)]
    code, _ = refusal(lambda s: seating.sit(s, ez, ann, now=now))
    assert code == "protection.timeout"
