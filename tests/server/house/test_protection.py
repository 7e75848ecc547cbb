"""Player protection: loss and stake limits enforced in the bet's own transaction (also under 64
racing bets), a looser limit waiting 24 hours on an injected clock, time-outs and self-exclusion
refused over REST and the WebSocket alike, and refusals in the player's words; and the review's findings on
them (a clock stepped back, results not yet shown, a break's end and a limit never set)."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from baccarat.core.errors import ConfigurationError, ProtectionError
from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, protection, wallet
from baccarat.server.playing import betting, dealing, seating, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.models import Bet
from baccarat.server.storage.settings import Settings

from ...conftest import ON_BOTH

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock_start():
    """The server's clock (``manual_clock``) is held at T0 + 1 s until a test moves it."""
    return T0 + timedelta(seconds=1)


@pytest.fixture
def sessions(manual_clock, sessions):
    return sessions


def _setup(sessions, game="mini", betting_seconds=600.0):
    def work(s):
        table = tables.create_table(s, f"{game}-p", game, betting_seconds=betting_seconds, now=T0)
        ann = accounts.register(s, "ann", "correct horse", grant=1_000_000).id
        seating.sit(s, table.id, ann)
        return table.id, ann
    return transaction(sessions, work)


def _bet(sessions, table_id, account_id, bets):
    return transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets))


def _limit(sessions, account_id, kind, period, amount):
    return transaction(sessions, lambda s: protection.set_limit(s, account_id, kind, period, amount))


def _staked(sessions, account_id):
    with sessions() as s:
        return s.scalar(select(func.coalesce(func.sum(Bet.amount), 0)).where(Bet.account_id == account_id))


def test_a_bet_that_would_pass_a_loss_limit_is_refused_naming_the_limit_and_what_is_left(sessions):
    table_id, ann = _setup(sessions)
    _limit(sessions, ann, "loss", "day", 5_000)
    _bet(sessions, table_id, ann, {"banker": 3_000})
    with pytest.raises(ProtectionError) as refused:
        _bet(sessions, table_id, ann, {"player": 2_500})
    words = str(refused.value)
    assert words == ("This bet of 25.00 would pass your loss limit of 50.00 per 24 hours: 20.00 is left, so bet "
                     "at most that.")
    assert _staked(sessions, ann) == 3_000  # nothing changed
    _bet(sessions, table_id, ann, {"player": 2_000})  # exactly what is left
    with pytest.raises(ProtectionError, match=re.escape("0.00 is left, so you can bet again")):
        _bet(sessions, table_id, ann, {"tie": 100})


def test_loss_counts_settled_results_and_stakes_outstanding_and_a_stake_limit_counts_stakes(sessions, manual_clock):
    table_id, ann = _setup(sessions, betting_seconds=10)
    _limit(sessions, ann, "loss", "week", 10_000)
    _limit(sessions, ann, "stake", "day", 12_000)
    _bet(sessions, table_id, ann, {"banker": 5_000, "player": 5_000})  # one of the two wins (or a tie pushes)
    manual_clock.advance(seconds=15)
    assert deal_due(sessions, now=manual_clock.now()) == 1
    manual_clock.advance(seconds=10)  # the next round takes bets after the results pause
    with sessions() as s:
        state = {(item["kind"], item["period"]): item for item in protection.status(s, ann)["limits"]}
        net = wallet.balance(s, ann) - 1_000_000
    assert state["stake", "day"]["used"] == 10_000 and state["stake", "day"]["left"] == 2_000
    assert state["loss", "week"]["used"] == max(-net, 0)  # the settled result, nothing outstanding
    with pytest.raises(ProtectionError, match=re.escape("stake limit of 120.00 per 24 hours: 20.00 is left")):
        _bet(sessions, table_id, ann, {"banker": 2_100})
    manual_clock.advance(days=1, seconds=1)  # the day's stakes leave the rolling window, the week's loss does not
    deal_due(sessions, now=manual_clock.now())  # the idle round ends, the next opens now
    _bet(sessions, table_id, ann, {"banker": 2_100})


def test_a_tighter_limit_applies_at_once_and_a_looser_one_after_24_hours(sessions, manual_clock):
    table_id, ann = _setup(sessions)
    _limit(sessions, ann, "stake", "month", 10_000)
    _limit(sessions, ann, "stake", "month", 4_000)  # lower: at once
    with pytest.raises(ProtectionError, match=re.escape("stake limit of 40.00")):
        _bet(sessions, table_id, ann, {"banker": 5_000})
    answer = _limit(sessions, ann, "stake", "month", 9_000)  # higher: waits
    (limit,) = answer["limits"]
    assert limit["amount"] == 4_000 and limit["pending"] == 9_000
    assert limit["pending_from"] == (manual_clock.now() + timedelta(hours=24)).isoformat()
    manual_clock.advance(hours=23, minutes=59)
    deal_due(sessions, now=manual_clock.now())  # the round without bets ends; the next opens now
    with pytest.raises(ProtectionError, match=re.escape("stake limit of 40.00")):
        _bet(sessions, table_id, ann, {"banker": 5_000})
    manual_clock.advance(minutes=1)
    _bet(sessions, table_id, ann, {"banker": 5_000})  # 24 hours later the higher limit holds
    # removing a limit is looser too: it waits; a lower one asked meanwhile cancels the wait
    answer = _limit(sessions, ann, "stake", "month", None)
    assert answer["limits"][0]["removing"] and answer["limits"][0]["amount"] == 9_000
    _limit(sessions, ann, "stake", "month", 6_000)
    with pytest.raises(ProtectionError, match=re.escape("stake limit of 60.00 per 30 days: 10.00 is left")):
        _bet(sessions, table_id, ann, {"banker": 1_100})
    manual_clock.advance(hours=25)
    with sessions() as s:
        assert protection.status(s, ann)["limits"][0]["amount"] == 6_000  # the removal was withdrawn


@pytest.mark.parametrize(("kind", "period", "amount", "words"), [
    ("win", "day", 100, "loss or stake"), ("loss", "year", 100, "day, week or month"),
    ("loss", "day", 0, "1 to"), ("loss", "day", -5, "1 to"), ("loss", "day", 10.5, "whole number"),
    ("loss", "day", True, "whole number"),
])
def test_bad_limits_are_refused_and_change_nothing(sessions, kind, period, amount, words):
    _, ann = _setup(sessions)
    with pytest.raises(ConfigurationError, match=words):
        _limit(sessions, ann, kind, period, amount)
    with sessions() as s:
        assert protection.status(s, ann)["limits"] == []


@ON_BOTH
@pytest.mark.slow
def test_64_racing_bets_never_pass_a_loss_limit(sessions):
    table_id, ann = _setup(sessions)
    _limit(sessions, ann, "loss", "day", 1_000)
    outcomes: list[str] = []
    start = threading.Barrier(64)

    def bet(i: int) -> None:
        start.wait()
        try:
            _bet(sessions, table_id, ann, {"banker": 100})
            outcomes.append("placed")
        except ProtectionError:
            outcomes.append("refused")

    threads = [threading.Thread(target=bet, args=(i,)) for i in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("placed") == 10 and outcomes.count("refused") == 54
    assert _staked(sessions, ann) == 1_000
    with sessions() as s:
        assert wallet.balance(s, ann) == 1_000_000 - 1_000


@pytest.mark.parametrize(("hours", "months", "words"), [
    (23, None, "24 hours to 6 weeks"), (1009, None, "24 hours to 6 weeks"), (None, 5, "6 months to 5 years"),
    (None, 61, "6 months to 5 years"), (None, None, "Choose"), (24, 6, "Choose"),
])
def test_bad_breaks_are_refused(sessions, hours, months, words):
    _, ann = _setup(sessions)
    with pytest.raises(ConfigurationError, match=words):
        transaction(sessions, lambda s: seating.take_break(s, ann, hours=hours, months=months))
    with sessions() as s:
        assert protection.status(s, ann)["blocked"] is None


def test_self_exclusion_runs_calendar_months_and_is_never_shortened(sessions, manual_clock):
    _, ann = _setup(sessions)
    answer = transaction(sessions, lambda s: seating.take_break(s, ann, months=6))
    assert answer["blocked"] == {"kind": "self-exclusion", "until": "2027-05-22T12:00:01+00:00"}
    transaction(sessions, lambda s: seating.take_break(s, ann, hours=24))  # a time-out inside it: no change
    with sessions() as s:
        assert protection.status(s, ann)["blocked"]["kind"] == "self-exclusion"
    assert protection.add_months(datetime(2027, 8, 31, tzinfo=UTC), 6) == datetime(2028, 2, 29, tzinfo=UTC)


@pytest.fixture
def client(tmp_path: Path, manual_clock):
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    with TestClient(create_app(settings)) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client
    with connect(settings.url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


def _player(client: TestClient, name: str) -> dict[str, str]:
    client.post("/api/accounts", json={"username": name, "password": "correct horse"})
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_a_time_out_blocks_sitting_and_betting_over_rest_and_websocket_but_not_looking(client, manual_clock):
    ivy = _player(client, "ivy")
    assert client.post("/api/tables/2/seats", json={}, headers=ivy).status_code == 201
    client.post("/api/tables/2/bets", json={"bets": {"banker": 500}}, headers={**ivy, "Idempotency-Key": "ivy-0001"})
    taken = client.post("/api/protection/break", json={"hours": 48}, headers=ivy)
    assert taken.status_code == 201, taken.text
    assert taken.json()["blocked"] == {"kind": "time-out",
                                       "until": (manual_clock.now() + timedelta(hours=48)).isoformat()}
    refused = client.post("/api/tables/2/bets", json={"bets": {"banker": 500}},
                          headers={**ivy, "Idempotency-Key": "ivy-0002"})
    assert refused.status_code == 409 and refused.json()["error"] == "ProtectionError"
    assert "taking a time-out until" in refused.json()["message"] and "800.522.4700" in refused.json()["message"]
    assert client.post("/api/tables/1/seats", json={}, headers=ivy).status_code == 409
    token = ivy["Authorization"].removeprefix("Bearer ")
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"  # watching is allowed
        socket.send_json({"type": "bet", "key": "ws-ivy-0001", "bets": {"banker": 500}})
        answer = socket.receive_json()
        while answer["type"] == "state":
            answer = socket.receive_json()
        assert answer["type"] == "error" and answer["error"] == "ProtectionError"
    # the balance and history are still there: one bet of 5.00 on the layout
    assert client.get("/api/me", headers=ivy).json()["balance"] == 100_000 - 500
    assert client.get("/api/history", headers=ivy).status_code == 200
    # asking for a shorter break changes nothing; no route lifts it
    client.post("/api/protection/break", json={"hours": 24}, headers=ivy)
    assert client.get("/api/protection", headers=ivy).json()["blocked"]["until"] == taken.json()["blocked"]["until"]
    manual_clock.advance(hours=48, seconds=1)
    token = client.post("/api/sessions", json={"username": "ivy", "password": "correct horse"}).json()["token"]
    again = {"Authorization": f"Bearer {token}"}  # the old session expired meanwhile
    assert client.post("/api/tables/1/seats", json={}, headers=again).status_code == 201  # over: play again


def test_protection_routes_refuse_bad_bodies_in_words(client):
    ivy = _player(client, "ivy")
    for path, body in (("/api/protection/limits", {"kind": "loss", "period": "day", "amount": "100"}),
                       ("/api/protection/limits", {"kind": "loss", "period": "fortnight", "amount": 100}),
                       ("/api/protection/reality-check", {"minutes": 5}),
                       ("/api/protection/break", {"hours": 2})):
        answer = client.request("POST" if path.endswith("break") else "PUT", path, json=body, headers=ivy)
        assert answer.status_code == 422, (path, answer.text)
        assert answer.json()["message"]
    assert client.get("/api/protection", headers=ivy).json()["limits"] == []
    assert client.get("/api/protection").status_code == 401


def test_the_reality_check_tells_time_played_and_net_since_login(client, manual_clock):
    ivy = _player(client, "ivy")
    assert client.put("/api/protection/reality-check", json={"minutes": 15}, headers=ivy).json()[
        "reality_minutes"] == 15
    client.post("/api/tables/2/seats", json={}, headers=ivy)
    client.post("/api/tables/2/bets", json={"bets": {"banker": 700}}, headers={**ivy, "Idempotency-Key": "ivy-0001"})
    manual_clock.advance(minutes=16)
    session = client.get("/api/protection", headers=ivy).json()["session"]
    assert session["minutes"] == 16 and session["net"] == -700 and session["staked"] == 700


def test_lucky_draw_s_draw_counts_as_a_stake_and_standing_is_never_refused(sessions, manual_clock):
    def work(s):
        table = tables.create_table(s, "ld-p", "lucky-draw", paytable=1, betting_seconds=10, decision_seconds=30,
                                    pace=Pace(0, 0, 0), now=T0)
        ids = [accounts.register(s, name, "correct horse", grant=100_000).id for name in ("ann", "bob")]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    table_id, (ann, bob) = transaction(sessions, work)
    for player in (ann, bob):
        _limit(sessions, player, "stake", "day", 1_500)
        _bet(sessions, table_id, player, {"enter": 1_000})
    manual_clock.advance(seconds=11)
    deal_due(sessions, now=manual_clock.now())  # the first deal: the decisions open
    manual_clock.advance(seconds=1)
    with pytest.raises(ProtectionError, match=re.escape("stake limit of 15.00 per 24 hours: 5.00 is left")):
        transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw"))
    assert transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "stand"))["action"] == "stand"
    transaction(sessions, lambda s: seating.take_break(s, bob, hours=24))  # a break: standing still allowed
    with pytest.raises(ProtectionError, match="taking a time-out until"):
        transaction(sessions, lambda s: dealing.decide(s, table_id, bob, "draw"))
    assert transaction(sessions, lambda s: dealing.decide(s, table_id, bob, "stand"))["action"] == "stand"
    with sessions() as s:  # Bob's seat is kept until his round is settled; Ann's Draw stake was never taken
        assert s.scalar(select(func.count(Bet.id)).where(Bet.wager == "draw")) == 0
    manual_clock.advance(seconds=1)
    deal_due(sessions, now=manual_clock.now())


# --- review findings (attack: limits and breaks read or passed around) --------------------------------------
# (red-team findings: each test failed before its fix; see the commit that brought it)


def _log_in(client: TestClient, name: str, role: str = "player") -> dict[str, str]:
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, name, "correct horse", grant=50_000, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_a_clock_stepped_back_between_two_bets_never_lets_them_pass_a_limit(manual_clock, sessions):
    """The window's first movement was found by time and the window read from its id on, taking
    ids and times to rise together within a minute.  A server restarted after the wall clock was
    stepped back an hour (or a second process anchored on a different wall clock) dates new
    movements earlier than older ones: the player's stake before the step fell out of the count."""
    from datetime import timedelta

    from baccarat.core.errors import ProtectionError
    from baccarat.server.house import protection
    from baccarat.server.playing import betting, seating, tables

    start = manual_clock.now()  # 2026-11-22 12:00 UTC
    held = manual_clock

    def setup(s):
        table = tables.create_table(s, "mini-c", "mini", betting_seconds=600, now=start)
        ann = accounts.register(s, "ann", "correct horse", grant=1_000_000).id
        seating.sit(s, table.id, ann)
        protection.set_limit(s, ann, "stake", "day", 5_000)
        return table.id, ann
    table_id, ann = transaction(sessions, setup)
    held.advance(minutes=1)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"banker": 3_000}))
    held.moment = start - timedelta(minutes=50)  # a process whose wall clock is an hour behind...
    transaction(sessions, lambda s: accounts.register(s, "bob", "correct horse", grant=1_000))  # any movement
    held.moment = start + timedelta(minutes=2)  # ...and this one, on time
    with pytest.raises(ProtectionError, match=r"stake limit of 50\.00"):
        transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"player": 3_000}))
    with sessions() as s:
        assert protection.status(s, ann)["limits"][0]["used"] == 3_000


def test_a_break_names_the_end_of_whichever_runs_longer(manual_clock, sessions):
    """A six-week time-out taken late in a six-month self-exclusion runs past it: the refusal said
    "your self-exclusion runs until <its end> ... play again after that", and after that the player
    was still refused."""
    from datetime import timedelta

    from baccarat.server.playing import seating

    held = manual_clock  # at 2026-11-22 12:00 UTC
    ann = transaction(sessions, lambda s: accounts.register(s, "ann", "correct horse", grant=1_000).id)
    transaction(sessions, lambda s: seating.take_break(s, ann, months=6))
    held.advance(days=170)
    answer = transaction(sessions, lambda s: seating.take_break(s, ann, hours=1008))
    assert answer["blocked"]["until"] == (held.now() + timedelta(hours=1008)).isoformat()
    assert answer["blocked"]["kind"] == "time-out"


def test_removing_a_limit_that_was_never_set_shows_no_limit_being_removed(client):
    ivy = _log_in(client, "ivy")
    answer = client.put("/api/protection/limits", json={"kind": "loss", "period": "day", "amount": None}, headers=ivy)
    assert answer.status_code == 200, answer.text
    assert answer.json()["limits"] == []


def test_the_limits_never_tell_a_result_before_the_table_shows_it(manual_clock, sessions):
    """The balance and the reality check leave out payouts still to be shown; the limits' "used"
    and "left" counted them, so a player with a loss limit could read a win off them (or off a
    refusal's "X is left") while the cards were still being turned."""
    from baccarat.server.house import protection
    from baccarat.server.playing import betting, seating, tables
    from baccarat.server.playing.dealer import deal_due
    from baccarat.server.playing.timeline import Pace

    start = manual_clock.now()  # 2026-11-22 12:00 UTC
    held = manual_clock

    def setup(s):
        table = tables.create_table(s, "mini-s", "mini", betting_seconds=10, pace=Pace(1, 2, 4), now=start)
        ann = accounts.register(s, "ann", "correct horse", grant=1_000_000).id
        seating.sit(s, table.id, ann)
        protection.set_limit(s, ann, "loss", "day", 5_000)
        return table.id, ann
    table_id, ann = transaction(sessions, setup)
    # both sides: whichever wins (or a tie) pays, so the worst-case loss falls once results are in
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"player": 1_000, "banker": 1_000}))
    held.advance(seconds=11)
    deal_due(sessions, now=held.now())  # dealt and settled now; shown card by card over seconds
    with sessions() as s:
        assert protection.status(s, ann, held.now())["limits"][0]["used"] == 2_000
        assert protection.session_result(s, ann, start, held.now())["net"] == -2_000
    held.advance(minutes=1)  # the result is on show now
    with sessions() as s:
        assert protection.status(s, ann, held.now())["limits"][0]["used"] <= 50


def test_a_break_s_refusal_never_names_a_minute_it_still_runs_in(manual_clock, sessions):
    """A time-out taken at 12:00:30 ends at 12:00:30 the next day; the refusal said "until 12:00",
    and at 12:00:10 the player, told to play again after that, was refused again."""
    from datetime import timedelta

    from baccarat.core.errors import ProtectionError
    from baccarat.server.house import protection
    from baccarat.server.playing import seating

    start = datetime(2026, 11, 22, 12, 0, 30, tzinfo=UTC)
    held = manual_clock
    held.moment = start
    ann = transaction(sessions, lambda s: accounts.register(s, "ann", "correct horse", grant=1_000).id)
    transaction(sessions, lambda s: seating.take_break(s, ann, hours=24))
    held.moment = start + timedelta(hours=24, seconds=-20)  # 12:00:10 the next day
    with sessions() as s, pytest.raises(ProtectionError, match="time-out until 2026-11-23 12:01 UTC"):
        protection.check_play(s, ann)
