"""The pieces of a bet that a bet alone (:func:`betting.place_bets`) and the bets of a batch
(:mod:`baccarat.server.playing.bulk_bets`) share: the round's window (:func:`betting.check_window`) and the rows
accepted bets become (:func:`betting.bet_rows`).  The stake rule is ``tests/core/test_stakes.py``'s; the whole
pipeline on both databases is ``test_bulk_bets.py``'s."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from baccarat.core.errors import BaccaratError
from baccarat.server.playing import betting

OPENED = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
CLOSES = OPENED + timedelta(seconds=15)


class _LastRound:
    """A connection that knows only the table's last round number (read when no round is open)."""

    def __init__(self, last: int | None) -> None:
        self.last, self.asked = last, 0

    def execute(self, statement: Any, params: Any) -> Any:
        self.asked += 1
        return SimpleNamespace(scalar=lambda: self.last)


def _row(number: int | None = 5, *, opens_at: datetime | None = OPENED) -> Any:
    """:func:`betting.betting_row`'s row: a round taking bets (or, ``number`` None, none)."""
    return SimpleNamespace(id=None if number is None else 40 + number, number=number, opens_at=opens_at,
                           closes_at=CLOSES)


def _refusal(row: Any, now: datetime, named: int | None = None, last: int | None = None) -> tuple[str, dict]:
    with pytest.raises(BaccaratError) as refused:
        betting.check_window(_LastRound(last), row, 1, now, named)
    return refused.value.code, refused.value.params


@pytest.mark.parametrize(("named", "code"), [(6, "bet.round_not_open_other"), (4, "bet.round_closed_other")])
def test_a_bet_named_for_another_round_says_which_is_open(named: int, code: str) -> None:
    assert _refusal(_row(5), OPENED, named) == (code, {"round": named, "open": 5})


@pytest.mark.parametrize(("named", "code"), [(7, "bet.round_not_open"), (6, "bet.round_closed")])
def test_with_no_round_open_a_named_round_is_told_from_the_last_one(named: int, code: str) -> None:
    assert _refusal(_row(None), OPENED, named, last=6) == (code, {"round": named})


def test_a_bet_for_the_open_round_reads_nothing_and_passes_until_its_allowance_ends() -> None:
    connection = _LastRound(None)
    for now in (OPENED, CLOSES, CLOSES + betting.ON_THE_WAY - timedelta(microseconds=1)):
        betting.check_window(connection, _row(5), 1, now, 5)
        betting.check_window(connection, _row(5), 1, now, None)
    assert connection.asked == 0
    assert _refusal(_row(5), CLOSES + betting.ON_THE_WAY) == ("bet.closed", {"round": 5})


def test_no_round_taking_bets_and_a_window_not_yet_open_are_refused() -> None:
    assert _refusal(_row(None), OPENED) == ("bet.round_over", {})
    # the next round's window opens 2.3 s on: the refusal rounds the wait up
    later = _row(6, opens_at=OPENED + timedelta(seconds=2.3))
    assert _refusal(later, OPENED) == ("bet.opens_in", {"seconds": 3, "round": 6})
    betting.check_window(_LastRound(None), later, 1, OPENED + timedelta(seconds=2.3), None)  # open from then


def test_accepted_bets_become_new_bets_and_chips_added_to_bets_on_the_layout() -> None:
    new, added = betting.bet_rows(45, 7, 0, {"banker": 1_000, "tie": 100}, {"banker": 500, "player": 200},
                                  balance_before=20_000)
    assert new == [{"round_id": 45, "account_id": 7, "seat": 0, "wager": "player", "amount": 200,
                    "balance_before": 20_000}]
    assert added == [{"round": 45, "account": 7, "code": "banker", "added": 500}]
