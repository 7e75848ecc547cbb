"""Red-team findings on player protection, the operator console and the audit trail: each test
failed before its fix (see the commit that brought it)."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from baccarat.cli.app import main
from baccarat.core.errors import ConfigurationError
from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, audit, wallet
from baccarat.server.operator import reports as reports
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

from ...conftest import ON_BOTH


@pytest.fixture
def client(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, betting_seconds=600)
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        test_client.settings = settings  # type: ignore[attr-defined]
        yield test_client
    with connect(settings.url) as sessions, sessions() as s:
        assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}


def _log_in(client: TestClient, name: str, role: str = "player") -> dict[str, str]:
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, name, "correct horse", grant=50_000, role=role))
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("query", ["from=9999-12-31&to=9999-12-31", "to=0001-01-01", "to=9999-12-31",
                                   "from=0001-01-01&to=0001-01-01"])
@pytest.mark.parametrize("report", ["tables", "wagers"])
def test_reports_at_the_ends_of_the_calendar_are_refused_in_words_not_500(client, report, query):
    boss = _log_in(client, "pit_boss", "operator")
    answer = client.get(f"/api/operator/reports/{report}?{query}", headers=boss)
    assert answer.status_code in (200, 422), answer.text
    if answer.status_code == 422:
        assert "day" in answer.json()["message"]


def test_a_report_span_reaching_past_the_calendar_names_the_days_allowed():
    with pytest.raises(ConfigurationError, match="Choose"):
        reports.span(None, date(1, 1, 1), now=datetime(2026, 11, 22, tzinfo=UTC))
    assert reports.span(date(1, 1, 1), date(1, 1, 1)) == (date(1, 1, 1), date(1, 1, 1))


@pytest.mark.parametrize("q", ["99999999999999999999", "2147483648", "\u00b2", "\u0663"])
def test_player_lookup_by_an_odd_number_answers_not_500(client, q):
    boss = _log_in(client, "pit_boss", "operator")
    answer = client.get("/api/operator/players", params={"q": q}, headers=boss)
    assert answer.status_code == 200, answer.text
    assert answer.json() == []


@pytest.fixture
def any_database(tmp_path: Path, database_url: str):
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600)
    with TestClient(create_app(settings)):  # the app's start-up migrates the database
        yield settings


@ON_BOTH
@pytest.mark.slow
def test_the_database_refuses_to_empty_the_audit_trail_at_once(any_database):
    """TRUNCATE fires no row trigger on PostgreSQL: it emptied the trail, and the empty chain checked."""
    with connect(any_database.url) as sessions:
        transaction(sessions, lambda s: audit.record(s, "someone", "credit", "account 1", {}, {"amount": 1}))
        wipe = "TRUNCATE audit_log" if any_database.url.startswith("postgresql") else "DELETE FROM audit_log"
        with pytest.raises(DBAPIError, match="append-only"):
            transaction(sessions, lambda s: s.execute(text(wipe)))
        with sessions() as s:
            assert audit.verify(s)["entries"] == 1


def test_creating_an_operator_account_is_written_to_the_audit_trail(tmp_path, monkeypatch, capsys):
    """An operator's powers are granted by ``baccarat operator``: that grant was the one operator
    action missing from the trail."""
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse\n"))
    assert main(["operator", "new_boss", "--data-dir", str(tmp_path)]) in (0, None)
    assert "operator new_boss created" in capsys.readouterr().out
    with connect(Settings(data_dir=tmp_path).url) as sessions, sessions() as s:
        entries = audit.trail(s)
        assert audit.verify(s)["ok"]
    assert [(e["action"], e["after"]["username"], e["after"]["role"]) for e in entries] == [
        ("create_operator", "new_boss", "operator")]
    assert entries[0]["actor"].startswith("command line: ")


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite stores no time zone
def test_the_audit_chain_checks_on_a_postgresql_server_whose_time_zone_is_not_utc(sessions):
    """PostgreSQL hands timestamps back in the session's TimeZone (often the server's local zone):
    the digest of an entry written at 12:00+00:00 was checked against 21:00+09:00, and every entry
    of an untouched trail was reported as edited."""
    transaction(sessions, lambda s: audit.record(s, "someone", "credit", "account 1", {}, {"amount": 1}))
    with sessions() as s:
        s.execute(text("SET TIME ZONE 'Asia/Tokyo'"))  # as ALTER DATABASE ... SET timezone would
        assert audit.verify(s)["ok"], audit.verify(s)
        assert audit.trail(s)[0]["at"].endswith("+00:00")


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


def test_crediting_an_account_that_does_not_exist_is_404_and_says_what_to_do(client):
    boss = _log_in(client, "pit_boss", "operator")
    answer = client.post("/api/operator/wallets/999/credit", json={"amount": 100},
                         headers={**boss, "Idempotency-Key": "credit-999-1"})
    assert answer.status_code == 404, answer.text
    assert answer.json()["message"] == "There is no account 999: look the player up by name first."
    assert client.get("/api/operator/audit", headers=boss).json() == []


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


def test_a_limit_or_reality_check_is_removed_only_when_asked_with_null_not_when_left_out(client):
    """``{"kind": "loss", "period": "day"}`` (the amount forgotten) asked to remove the limit, and
    ``{}`` turned the reality check off: a client's slip weakened the player's protection."""
    ivy = _log_in(client, "ivy")
    client.put("/api/protection/limits", json={"kind": "loss", "period": "day", "amount": 5_000}, headers=ivy)
    client.put("/api/protection/reality-check", json={"minutes": 30}, headers=ivy)
    for path, body in (("/api/protection/limits", {"kind": "loss", "period": "day"}),
                       ("/api/protection/reality-check", {})):
        answer = client.put(path, json=body, headers=ivy)
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"][0]["field"] in ("body.amount", "body.minutes")
    state = client.get("/api/protection", headers=ivy).json()
    assert state["reality_minutes"] == 30
    assert [(limit["amount"], limit["pending_from"]) for limit in state["limits"]] == [(5_000, None)]


def test_a_draw_meant_for_an_earlier_round_never_lands_on_a_later_one(manual_clock, sessions):
    """The page resends a command held while the socket was down with the same key; a bet names its
    round, so a late one is refused, but a decision does not: a Draw chosen for round 1 and resent
    during round 2's decisions stakes a Draw wager on a hand the player never saw."""
    from baccarat.core.errors import IllegalActionError
    from baccarat.server.playing import betting, dealing, seating, tables
    from baccarat.server.playing.dealer import deal_due
    from baccarat.server.playing.timeline import Pace

    start = manual_clock.now()  # 2026-11-22 12:00 UTC
    held = manual_clock

    def setup(s):
        table = tables.create_table(s, "ld-d", "lucky-draw", paytable=1, betting_seconds=10, decision_seconds=10,
                                    pace=Pace(0, 0, 0), now=start)
        ann = accounts.register(s, "ann", "correct horse", grant=100_000).id
        seating.sit(s, table.id, ann)
        return table.id, ann
    table_id, ann = transaction(sessions, setup)
    for number in (1, 2):  # round 1's decision times out (she stands); round 2 reaches its decisions
        transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"enter": 1_000}))
        held.advance(seconds=11)
        deal_due(sessions, now=held.now())  # the first deal: decisions open
        held.advance(seconds=1)
        if number == 1:
            held.advance(seconds=11)
            deal_due(sessions, now=held.now())  # nobody decided: round 1 is finished
    with sessions() as s:
        in_play = tables.round_in_play(s, table_id)
        assert in_play is not None and (in_play.number, in_play.status) == (2, "decision")
    with pytest.raises(IllegalActionError, match="round 1"):
        transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", round_number=1))
