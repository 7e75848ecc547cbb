"""Dealing rounds (:mod:`baccarat.server.playing.dealing`): bets settled against their own accounts even when
two share a seat number, a voided round's stakes refunded and its shown cards skipped, deadlines written
under a clock ahead pulled in at start, refused voids that change nothing, and a Lucky Draw decision that
names its round."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from baccarat.core.errors import BaccaratError, IllegalActionError
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, seating, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import transaction
from baccarat.server.storage.models import Bet, Round, Settlement

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _table(sessions, game: str, name: str, players: tuple[str, ...], **options):
    def work(s):
        # these are the reliability tests: cards are shown at once (the timeline has its own tests)
        table = tables.create_table(s, name, game, betting_seconds=10, now=T0, **{"pace": Pace(0, 0, 0), **options})
        ids = [accounts.register(s, player, "correct horse", grant=100_000).id for player in players]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    return transaction(sessions, work)


def _closes_at(sessions, table_id: int) -> datetime:
    with sessions() as s:
        closes = tables.open_round(s, table_id).closes_at
    return closes if closes.tzinfo else closes.replace(tzinfo=UTC)


def _bet(sessions, table_id, account_id, bets, at, **options):
    return transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets, now=at, **options))


# --- rounds that must never stop a table (attack: a seat shared by two accounts' bets) ----------------------


def test_bets_belong_to_accounts_even_when_two_share_a_seat_number(sessions):
    """Bets stored with the same seat number by two accounts (as the race once left them) are dealt
    as two players: each is settled against its own account, and Lucky Draw's decisions too."""
    table_id, (ann, ben) = _table(sessions, "lucky-draw", "shared", ("ann", "ben"), paytable=1)
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"enter": 1_000}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    with sessions.begin() as s:  # ben's bet now says seat 1, as ann's does
        s.query(Bet).filter(Bet.account_id == ben).update({Bet.seat: 1})
    assert deal_due(sessions, now=closes) == 1
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=closes))
    transaction(sessions, lambda s: dealing.decide(s, table_id, ben, "stand", now=closes))
    assert deal_due(sessions, now=closes + timedelta(seconds=1)) == 1
    with sessions() as s:
        rows = s.execute(select(Bet.account_id, Bet.wager, Bet.amount, Settlement.net)
                         .join(Settlement, Settlement.bet_id == Bet.id)).all()
        assert sorted((a, w, amount) for a, w, amount, _ in rows) == [
            (ann, "draw", 1_000), (ann, "enter", 1_000), (ben, "enter", 2_000)]
        for account_id in (ann, ben):
            net = sum(n for a, _, _, n in rows if a == account_id)
            assert wallet.balance(s, account_id) == 100_000 + net


# --- rounds that must never stop a table: a round voided ----------------------------------------------------


def test_voiding_a_lucky_draw_round_after_its_first_deal_refunds_and_skips_the_shown_cards(sessions):
    table_id, (ann, ben) = _table(sessions, "lucky-draw", "ld-void", ("ann", "ben"), paytable=2)
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"enter": 1_000, "block_bonus": 500}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    deal_due(sessions, now=closes)
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=closes))
    with sessions() as s:
        current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        shown = json.loads(current.result)["cards"]
        position = dealing.round_shoe(s, current).position
        block = s.scalar(select(Settlement.net).join(Bet, Bet.id == Settlement.bet_id)
                         .where(Bet.wager == "block_bonus"))
    answer = transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="dealer's error", now=closes))
    assert answer["refunded"] == 1_000 + 1_000 + 2_000 and answer["bets_refunded"] == 3
    with sessions() as s:
        assert wallet.balance(s, ann) == 100_000 + block  # the Block Bonus was settled before the void
        assert wallet.balance(s, ben) == 100_000
        assert dealing.round_shoe(s, current).position == position + len(shown)
        nxt = tables.open_round(s, table_id)
        assert nxt.number == 2
    with pytest.raises(IllegalActionError, match="already void"):
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="again", now=closes))


# --- rounds that must never stop a table: the clock ---------------------------------------------------------


def test_deadlines_written_under_a_clock_ahead_are_pulled_in_at_start(sessions):
    table_id, (_ann,) = _table(sessions, "ez", "ahead", ("ann",))
    ahead = T0 + timedelta(hours=13)
    with sessions.begin() as s:  # the round was opened while the wall clock was 13 h ahead
        s.query(Round).filter(Round.table_id == table_id).update({Round.closes_at: ahead})
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, T0)) == 1
    assert _closes_at(sessions, table_id) == T0 + timedelta(seconds=10)
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, T0)) == 0  # within one window: untouched


# --- rounds that must never stop a table: operators void rounds ---------------------------------------------


def test_refusals_change_nothing(sessions):
    table_id, (_ann,) = _table(sessions, "ez", "refusals", ("ann",))
    for bad in ({"reason": ""}, {"reason": "   "}):
        with pytest.raises(BaccaratError):
            transaction(sessions, lambda s, b=bad: dealing.void_round(s, table_id, 1, now=T0, **b))
    with pytest.raises(BaccaratError, match="no round 9"):
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 9, reason="nope", now=T0))
    with sessions() as s:
        assert tables.open_round(s, table_id).number == 1


# --- review findings (attack: a decision resent after a reconnect) ------------------------------------------
# (red-team findings: each test failed before its fix; see the commit that brought it)


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
