"""A player's recall (:mod:`baccarat.server.playing.scoreboards`): the result in words from the player's side, and
the Lucky Draw seat each account plays in the core."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from baccarat.core.errors import IllegalActionError, UnknownSeatError
from baccarat.server.house import accounts
from baccarat.server.playing import betting, history, scoreboards, tables
from baccarat.server.playing.dealer import deal_due
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Bet, Round, aware

from ...conftest import ON_BOTH

LUCKY_HANDS = {"seat:1": ["9h", "Kd"], "seat:2": ["3c", "Ac"], "seat:3": ["4d", "Ac"], "dealer": ["5h", "Jc"]}
NAMES = {"seat:1": "ann", "seat:2": "bob", "seat:3": "cy"}


@pytest.mark.parametrize(("result", "username", "words"), [
    ({"void": "the shoe was replaced"}, "ann", "Void: every stake refunded"),
    ({"winner": "banker", "player_total": 5, "banker_total": 7}, "ann", "Banker wins 7 : 5"),
    ({"winner": "player", "player_total": 8, "banker_total": 6}, "ann", "Player wins 8 : 6"),
    ({"winner": "tie", "player_total": 4, "banker_total": 4}, "ann", "Tie 4 : 4"),
    ({"hands": LUCKY_HANDS, "names": NAMES}, "ann", "You win 9 : 5"),
    ({"hands": LUCKY_HANDS, "names": NAMES}, "bob", "Dealer wins 5 : 4"),
    ({"hands": LUCKY_HANDS, "names": NAMES}, "cy", "Push 5 : 5"),
    # no words where the player's hand or the dealer's is not in the result: a refunded round, a watcher's recall
    ({"hands": LUCKY_HANDS, "names": NAMES}, "dora", None),
    ({"names": NAMES}, "ann", None),
    ({"hands": {"seat:1": ["9h", "Kd"]}, "names": NAMES}, "ann", None),
])
def test_a_result_is_told_from_the_player_s_side(result: Any, username: str, words: str | None):
    assert scoreboards._result_words(result, username) == words


def _bets(*account_and_seat: tuple[int, int]) -> list[Bet]:
    return [Bet(account_id=account, seat=seat) for account, seat in account_and_seat]


def test_each_account_plays_its_own_seat_or_the_lowest_free_one_and_never_more_than_the_seats():
    # the second account bet from the first's seat, the third from a seat the game has not: each gets the lowest free
    assert scoreboards.core_seats(_bets((10, 2), (11, 2), (12, 9), (10, 2)), 3) == {10: 2, 11: 1, 12: 3}
    with pytest.raises(IllegalActionError) as refused:
        scoreboards.core_seats(_bets((10, 1), (11, 2), (12, 1)), 2)
    assert (refused.value.code, refused.value.params) == ("round.seats_exceeded", {"seats": 2})


# --- the history's order and pages, in the database ----------------------------------------------------------

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _open_round(s: Session, table_id: int) -> Round:
    return s.scalars(select(Round).where(Round.table_id == table_id, Round.status == "betting")).one()


def _play(sessions: Any, table_id: int, account_id: int, at: datetime) -> datetime:
    """A bet on the table's open round at ``at`` (or when its window opens, if later), dealt once due; returns when
    it is dealt.  The dealer first opens again the windows nobody bet in (the same round, as at a table left idle)."""
    deal_due(sessions, now=at)
    opens = read(sessions, lambda s: _open_round(s, table_id).opens_at)
    at = max(at, aware(opens) if opens else at)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, {"banker": 100}, now=at))
    due = aware(read(sessions, lambda s: _open_round(s, table_id).closes_at)) + timedelta(seconds=1)
    deal_due(sessions, now=due)  # (and opens again the other table's window)
    return due


@ON_BOTH
def test_a_round_dealt_late_at_a_table_left_idle_is_the_newest_in_the_history_and_pages_reach_every_round(sessions):
    """A table left idle keeps its open round (the lowest id): bet on after 24 rounds elsewhere, it is dealt last
    and is the history's first row, not missing from it (it was ordered by id); ``before`` a row's cursor goes on
    from it, and ``table`` keeps one table's rounds."""
    def setup(s: Session) -> tuple[int, int, int]:
        idle = tables.create_table(s, "idle", "mini", betting_seconds=10, now=T0).id
        busy = tables.create_table(s, "busy", "mini", betting_seconds=10, now=T0).id
        return idle, busy, accounts.register(s, "ann", "correct horse", grant=100_000).id
    idle, busy, ann = transaction(sessions, setup)
    at = T0
    for _ in range(24):
        at = _play(sessions, busy, ann, at + timedelta(seconds=30))
    last = _play(sessions, idle, ann, at + timedelta(seconds=30))
    later = last + timedelta(minutes=5)
    with sessions() as s:
        first = scoreboards.recall(s, ann, now=later)
        assert len(first) == 20 and (first[0]["table"], first[0]["round"]) == ("idle", 1)
        assert [r["round"] for r in first[1:]] == list(range(24, 5, -1))  # busy's, the newest first
        rest = scoreboards.recall(s, ann, now=later, before=first[-1]["cursor"])
        assert [r["round"] for r in rest] == [5, 4, 3, 2, 1] and {r["table"] for r in rest} == {"busy"}
        assert scoreboards.recall(s, ann, now=later, before=rest[-1]["cursor"]) == []
        assert [r["round"] for r in scoreboards.recall(s, ann, now=later, table_id=idle)] == [1]
        assert [r["round"] for r in scoreboards.recall(s, ann, 3, now=later, table_id=busy)] == [24, 23, 22]
        exported = history.export(s, ann, 1, now=later)["rounds"]  # the export's last round: the same one
        assert [(r["table"], r["round"]) for r in exported] == [("idle", 1)]
        for cursor in ("999999", "x1", "１２", "-1"):
            with pytest.raises(UnknownSeatError) as unknown:
                scoreboards.recall(s, ann, now=later, before=cursor)
            assert unknown.value.code == "history.cursor"
