"""Issue 31, items 9 and 10, on the server's side (both databases):

* the console's table card carries the day's drop (handle) and win, equal to the tables report for that
  day, and nothing for a table without a settled bet;
* game recall lists a Lucky Draw seat that stood because its time ran out (no decision row is written
  for it), marked ``timed_out``, beside the seats that decided;
* a break's refusal carries the exact end the protection status gives (one timestamp), and the English
  words round it up to the minute, as the page does.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baccarat.core.errors import ProtectionError
from baccarat.core.messages import render
from baccarat.server.house import accounts, protection
from baccarat.server.operator import lookup
from baccarat.server.operator import reports as reports
from baccarat.server.playing import betting, dealing, seating, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import transaction

from ...conftest import ON_BOTH

T0 = datetime(2026, 11, 25, 9, 0, 0, 500_000, tzinfo=UTC)


@pytest.fixture
def clock_start():
    return T0


@pytest.fixture
def sessions(manual_clock, sessions):
    return sessions


def _lucky_round(sessions, manual_clock, *, drawing: tuple[str, ...]) -> tuple[int, dict[str, int]]:
    """One Lucky Draw round at a new table with ann, ben and cyd seated and entered; the players in
    ``drawing`` draw, the others send nothing and stand when the time runs out."""
    def setup(s):
        table = tables.create_table(s, "ld-t", "lucky-draw", paytable=1, decks=8, betting_seconds=30,
                                    decision_seconds=30, pace=Pace(0, 0, 0))
        ids = {name: accounts.register(s, name, "correct horse", grant=1_000_000).id for name in ("ann", "ben", "cyd")}
        for account in ids.values():
            seating.sit(s, table.id, account)
        return table.id, ids
    table_id, ids = transaction(sessions, setup)
    for account in ids.values():
        transaction(sessions, lambda s, a=account: betting.place_bets(s, table_id, a, {"enter": 1_000}))
    manual_clock.advance(seconds=31)
    deal_due(sessions, now=manual_clock.now())
    manual_clock.advance(seconds=1)
    for name in drawing:
        transaction(sessions, lambda s, a=ids[name]: dealing.decide(s, table_id, a, "draw"))
    manual_clock.advance(seconds=31)
    deal_due(sessions, now=manual_clock.now())
    return table_id, ids


def test_recall_lists_the_seats_that_stood_when_their_time_ran_out(sessions, manual_clock):
    table_id, ids = _lucky_round(sessions, manual_clock, drawing=("ben",))
    recalled = transaction(sessions, lambda s: lookup.recall_round(s, table_id, 1))
    assert recalled["status"] == "settled"
    seats = {bet["account_id"]: bet["seat"] for bet in recalled["bets"]}
    by_account = {d["account_id"]: d for d in recalled["decisions"]}
    assert set(by_account) == set(ids.values()), recalled["decisions"]  # every seat in play, once
    assert by_account[ids["ben"]] == {"account_id": ids["ben"], "seat": seats[ids["ben"]], "action": "draw",
                                      "timed_out": False}
    for name in ("ann", "cyd"):
        assert by_account[ids[name]] == {"account_id": ids[name], "seat": seats[ids[name]], "action": "stand",
                                         "timed_out": True}


def test_a_round_still_awaiting_decisions_names_no_timeout(sessions, manual_clock):
    def setup(s):
        table = tables.create_table(s, "ld-w", "lucky-draw", paytable=1, decks=8, betting_seconds=30,
                                    decision_seconds=30, pace=Pace(0, 0, 0))
        ann = accounts.register(s, "ann", "correct horse", grant=1_000_000).id
        seating.sit(s, table.id, ann)
        return table.id, ann
    table_id, ann = transaction(sessions, setup)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"enter": 1_000}))
    manual_clock.advance(seconds=31)
    deal_due(sessions, now=manual_clock.now())
    recalled = transaction(sessions, lambda s: lookup.recall_round(s, table_id, 1))
    assert recalled["status"] == "decision" and recalled["decisions"] == []  # her time has not run out


@ON_BOTH
def test_the_console_card_carries_the_day_s_drop_and_win_as_the_report_counts_them(sessions, manual_clock):
    table_id, _ = _lucky_round(sessions, manual_clock, drawing=("ann", "cyd"))
    transaction(sessions, lambda s: tables.create_table(s, "mini-q", "mini", decks=8, betting_seconds=30))
    console = transaction(sessions, lookup.console_tables)
    report = transaction(sessions, lambda s: reports.tables_report(s, T0.date(), T0.date(), now=manual_clock.now()))
    row = next(r for r in report["tables"] if r["table_id"] == table_id)
    card = next(c for c in console if c["id"] == table_id)
    assert row["handle"] == 5_000  # three Enters of 10.00 and two Draws of 10.00
    assert card["today"] == {"day": T0.date().isoformat(), "rounds": row["rounds"], "bets": row["bets"],
                             "handle": row["handle"], "win": row["win"]}
    quiet = [c for c in console if c["id"] != table_id]
    assert quiet and all(c["today"] == {"day": T0.date().isoformat(), "rounds": 0, "bets": 0, "handle": 0, "win": 0}
                         for c in quiet)
    # another day: the day's figures start again from nothing
    manual_clock.advance(seconds=86_400)
    later = transaction(sessions, lookup.console_tables)
    assert next(c for c in later if c["id"] == table_id)["today"]["handle"] == 0


def test_the_console_card_shows_the_round_and_phase_the_table_shows(sessions, manual_clock):
    """Issue 41 item 7: while a round's result is shown, the card said the next round was taking bets ("Round 2:
    taking bets") and the live monitor "Round 1 · RESULT"; both read the round on show now."""
    from baccarat.server.playing import views

    def setup(s):
        table = tables.create_table(s, "mini-c", "mini", decks=8, betting_seconds=30, pace=Pace(0, 0, 10))
        return table.id, accounts.register(s, "ann", "correct horse", grant=100_000).id
    table_id, ann = transaction(sessions, setup)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"banker": 2_500}))

    def card_and_view():
        card = next(c for c in transaction(sessions, lookup.console_tables) if c["id"] == table_id)
        view = transaction(sessions, lambda s: views.table_view(s, table_id, now=manual_clock.now()))
        return card["round"], view
    shown, view = card_and_view()
    assert (shown["round"], shown["phase"], shown["bets"], shown["staked"]) == (1, "betting", 1, 2_500)
    manual_clock.advance(seconds=31)
    deal_due(sessions, now=manual_clock.now())
    manual_clock.advance(seconds=3)  # the four cards are down (no pauses at this table): its result is shown
    shown, view = card_and_view()
    assert view["phase"] == "result" and view["round_number"] == 1
    assert (shown["round"], shown["phase"], shown["bets"], shown["status"]) == (1, "result", 1, "settled")
    manual_clock.advance(seconds=10)  # the result's 10 s over: the next round takes bets, on both
    shown, view = card_and_view()
    assert (shown["round"], shown["phase"], shown["bets"]) == (view["round_number"], view["phase"], 0) == (
        2, "betting", 0)


def test_a_break_s_end_is_one_timestamp_in_the_status_and_the_refusal(sessions, manual_clock):
    ann = transaction(sessions, lambda s: accounts.register(s, "ann", "correct horse", grant=1_000).id)
    transaction(sessions, lambda s: protection.take_break(s, ann, hours=24))
    status = transaction(sessions, lambda s: protection.status(s, ann))
    until = status["blocked"]["until"]
    assert datetime.fromisoformat(until) == T0 + timedelta(hours=24)  # to the microsecond: nothing rounded yet
    with pytest.raises(ProtectionError) as refused:
        transaction(sessions, lambda s: protection.check_play(s, ann))
    assert refused.value.params["until"] == until  # the same moment, for the page to format with one rule
    # the English words round it up to the minute (09:00:00.5 -> 09:01), never showing a minute it still runs
    assert "time-out until 2026-11-26 09:01 UTC:" in render("protection.timeout", refused.value.params)
    assert "time-out until 2026-11-26 09:00 UTC:" in render("protection.timeout", {**refused.value.params,
                                                                              "until": "2026-11-26T09:00:00+00:00"})
