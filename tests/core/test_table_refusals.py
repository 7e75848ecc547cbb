"""Every refusal raises its own error with a clear message and changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from baccarat.core.errors import (
    BaccaratError,
    BetLimitError,
    IllegalActionError,
    InsufficientFundsError,
    InvalidAmountError,
    UnknownSeatError,
    UnknownWagerError,
    WagerPrerequisiteError,
)
from baccarat.core.registry import EZ, LUCKY_DRAW, MINI
from baccarat.core.table import Table

from ..conftest import deal_round, stacked_table

STACK = "4h 2c 5d 3c"


def betting_table() -> Table:
    table = stacked_table(MINI, STACK, balance=10_000, seats=(1, 2))
    table.open_betting()
    table.place_bets(1, {"banker": 1000, "dragon_bonus_banker": 500})
    return table


REFUSALS: list[tuple[str, Callable[[Table], object], type[BaccaratError], str]] = [
    ("unknown wager", lambda t: t.place_bet(1, "dragon_7", 100), UnknownWagerError, 'no wager "dragon_7"'),
    ("negative amount", lambda t: t.place_bet(1, "player", -100), InvalidAmountError, "more than zero"),
    ("zero amount", lambda t: t.place_bet(1, "player", 0), InvalidAmountError, "more than zero"),
    ("non-numeric amount", lambda t: t.place_bet(1, "player", "10"), InvalidAmountError, "whole number"),
    ("fractional amount", lambda t: t.place_bet(1, "player", 10.5), InvalidAmountError, "whole number"),
    ("boolean amount", lambda t: t.place_bet(1, "player", True), InvalidAmountError, "whole number"),
    ("huge amount", lambda t: t.place_bet(1, "player", 10**30), InvalidAmountError, "more than any table allows"),
    ("over the maximum", lambda t: t.place_bet(1, "tie", 50_001), BetLimitError, "above its maximum"),
    ("below the minimum", lambda t: t.place_bet(1, "tie", 99), BetLimitError, "below the table minimum"),
    ("more than the balance", lambda t: t.place_bet(1, "player", 8_501), InsufficientFundsError, "than your balance"),
    ("one bad bet in a batch", lambda t: t.place_bets(1, {"player": 100, "tie": 99}), BetLimitError, "minimum"),
    ("side wager without base", lambda t: t.place_bet(2, "dragon_bonus_player", 100), WagerPrerequisiteError, "needs"),
    ("empty batch", lambda t: t.place_bets(1, {}), IllegalActionError, "No wager was given"),
    ("unknown seat", lambda t: t.place_bet(9, "player", 100), UnknownSeatError, "Seats are numbered 1 to 7"),
    ("empty seat", lambda t: t.place_bet(3, "player", 100), UnknownSeatError, "Nobody sits"),
    ("take back base before side", lambda t: t.remove_bet(1, "banker"), WagerPrerequisiteError, "first"),
    ("take back a bet not made", lambda t: t.remove_bet(1, "tie"), IllegalActionError, "no tie bet"),
    ("deal before no more bets", lambda t: t.deal(), IllegalActionError, "after betting closes"),
    ("open twice", lambda t: t.open_betting(), IllegalActionError, "already in progress"),
    ("decide in punto banco", lambda t: t.decide(1, "draw"), IllegalActionError, "No Lucky Draw decision"),
    ("sit on a taken seat", lambda t: t.sit(1, "eve", 100), IllegalActionError, "taken"),
    ("sit with no money", lambda t: t.sit(4, "eve", 0), InvalidAmountError, "more than zero"),
    ("sit nameless", lambda t: t.sit(4, " ", 100), IllegalActionError, "name"),
    ("leave with bets in play", lambda t: t.leave(1), IllegalActionError, "bets in play"),
]


@pytest.mark.parametrize(("action", "error", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refusal_raises_a_specific_error_and_changes_nothing(
    action: Callable[[Table], object], error: type[BaccaratError], message: str
) -> None:
    table = betting_table()
    before, events = table.snapshot(), len(table.events)
    with pytest.raises(error, match=message):
        action(table)
    assert table.snapshot() == before
    assert len(table.events) == events


def test_can_answers_what_verify_would_raise() -> None:
    table = betting_table()
    assert table.can_place_bets(1, {"player": 100})
    assert not table.can_place_bets(1, {"player": -1})
    assert not table.can_deal() and table.can_close_betting()
    assert not table.can_remove_bet(1, "banker") and table.can_remove_bet(1, "dragon_bonus_banker")


def test_bets_after_no_more_bets_are_refused() -> None:
    table = betting_table()
    table.close_betting()
    before = table.snapshot()
    with pytest.raises(IllegalActionError, match="No more bets"):
        table.place_bet(2, "player", 100)
    with pytest.raises(IllegalActionError, match="only while betting is open"):
        table.remove_bet(1, "dragon_bonus_banker")
    assert table.snapshot() == before


def test_bets_before_betting_opens_are_refused() -> None:
    table = stacked_table(EZ, STACK)
    with pytest.raises(IllegalActionError, match="has not opened"):
        table.place_bet(1, "player", 100)
    with pytest.raises(IllegalActionError):
        table.close_betting()


def test_taking_a_bet_back_restores_the_balance() -> None:
    table = betting_table()
    table.remove_bet(1, "dragon_bonus_banker")
    table.remove_bet(1, "banker")
    assert table.seats[1].balance == 10_000 and table.bets == {}


def test_stacking_chips_adds_to_the_bet_and_limits_apply_to_the_total() -> None:
    table = stacked_table(EZ, STACK)
    table.open_betting()
    table.place_bet(1, "player", 1500)
    table.place_bet(1, "player", 1000)
    assert table.bets[1]["player"] == 2500
    with pytest.raises(BetLimitError):
        table.place_bet(1, "player", 100)


def test_lucky_draw_bad_decision_word_is_refused() -> None:
    table = deal_round(stacked_table(LUCKY_DRAW, "9h 5c Kd Kc"), {1: {"enter": 100}})
    before = table.snapshot()
    with pytest.raises(IllegalActionError, match="Choose draw or stand"):
        table.decide(1, "hit")
    assert table.snapshot() == before
