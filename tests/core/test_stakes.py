"""The stake rule (:func:`baccarat.core.stakes.check_stakes`): which chips may go down, and the first refusal,
coded, when they may not.  The core's table, the server's REST and socket bets follow it; these tests pin it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.core.errors import (
    BaccaratError,
    BetLimitError,
    IllegalActionError,
    InsufficientFundsError,
    InvalidAmountError,
    ProtectionError,
    UnknownWagerError,
    WagerPrerequisiteError,
)
from baccarat.core.games import TableLimits
from baccarat.core.money import MAX_AMOUNT
from baccarat.core.registry import EZ, LUCKY_DRAW, MINI
from baccarat.core.stakes import OwnLimit, check_stakes


def refused(bets: dict[str, int], placed: dict[str, int] | None = None, **options: object) -> BaccaratError:
    with pytest.raises(BaccaratError) as caught:
        check_stakes(MINI, MINI.limits, placed or {}, bets, **options)  # type: ignore[arg-type]
    return caught.value


def test_chips_on_a_spot_already_bet_add_up_and_the_placed_stakes_are_not_changed() -> None:
    placed = {"banker": 1_000}
    assert check_stakes(MINI, MINI.limits, placed, {"banker": 500, "tie": 100}) == {"banker": 1_500, "tie": 100}
    assert placed == {"banker": 1_000}


@pytest.mark.parametrize(("bets", "kind", "code"), [
    ({}, IllegalActionError, "bet.no_wager"),
    ({"pair": 500}, UnknownWagerError, None),
    ({"banker": 0}, InvalidAmountError, "amount.not_positive"),
    ({"banker": -500}, InvalidAmountError, "amount.not_positive"),
    ({"banker": True}, InvalidAmountError, "amount.not_whole"),
    ({"banker": 2.5}, InvalidAmountError, "amount.not_whole"),
    ({"banker": MAX_AMOUNT + 1}, InvalidAmountError, "amount.too_large"),
    ({"banker": 99}, BetLimitError, "bet.below_minimum"),
    ({"tie": 50_001}, BetLimitError, "bet.above_maximum"),
    ({"dragon_bonus_banker": 500}, WagerPrerequisiteError, "bet.needs_base"),
])
def test_each_kind_of_bad_chip_is_refused_with_its_code(bets: dict[str, int], kind: type, code: str | None) -> None:
    error = refused(bets)
    assert isinstance(error, kind)
    if code is not None:
        assert error.code == code


def test_over_the_maximum_names_the_room_left_on_a_spot_already_bet() -> None:
    error = refused({"tie": 20_000}, {"tie": 40_000})
    assert (error.code, error.params["amount"], error.params["maximum"]) == ("bet.room_left", 10_000, 50_000)
    assert refused({"tie": 100}, {"tie": 50_000}).code == "bet.at_maximum"


def test_a_side_wager_s_base_may_be_on_the_layout_already_or_in_the_same_chips() -> None:
    assert check_stakes(MINI, MINI.limits, {"banker": 500}, {"dragon_bonus_banker": 100})["banker"] == 500
    assert check_stakes(MINI, MINI.limits, {}, {"player": 500, "dragon_bonus_player": 100}) == {
        "player": 500, "dragon_bonus_player": 100}


def test_lucky_draw_s_draw_is_not_a_chip_of_the_betting_window() -> None:
    with pytest.raises(IllegalActionError) as caught:
        check_stakes(LUCKY_DRAW, LUCKY_DRAW.limits, {"enter": 500}, {"draw": 500})
    assert caught.value.code == "bet.draw_at_decision"


def test_the_player_s_own_limits_name_the_first_passed_and_what_is_left() -> None:
    day = OwnLimit("stake", "day", 10_000, 9_500)
    week = OwnLimit("loss", "week", 50_000, 50_000)
    error = refused({"banker": 1_000}, own_limits=[day, week])
    assert isinstance(error, ProtectionError)
    assert error.code == "protection.limit_left" and error.params["left"] == 500 and error.params["period"] == "day"
    assert refused({"banker": 100}, own_limits=[week]).code == "protection.limit_reached"
    assert check_stakes(MINI, MINI.limits, {}, {"banker": 500}, own_limits=[day]) == {"banker": 500}


def test_the_balance_shown_bounds_the_stake_and_none_means_unchecked() -> None:
    error = refused({"banker": 500, "player": 500}, balance=700)
    assert isinstance(error, InsufficientFundsError)
    assert (error.code, error.params) == ("bet.balance", {"amount": 1_000, "balance": 700})
    assert refused({"banker": 500}, balance=0).code == "bet.balance_used_up"
    assert check_stakes(MINI, MINI.limits, {}, {"banker": 500}, balance=500) == {"banker": 500}
    assert check_stakes(MINI, MINI.limits, {}, {"banker": 500_000}, balance=None) == {"banker": 500_000}


def test_the_first_problem_in_the_rule_s_order_is_the_one_named() -> None:
    """The table's limits before the prerequisites, the prerequisites before the player's own limits, those
    before the balance."""
    spent = [OwnLimit("stake", "day", 100, 100)]
    assert refused({"tie": 60_000, "dragon_bonus_banker": 100}, own_limits=spent, balance=0).code == "bet.above_maximum"
    assert refused({"dragon_bonus_banker": 100}, own_limits=spent, balance=0).code == "bet.needs_base"
    assert refused({"banker": 100}, own_limits=spent, balance=0).code == "protection.limit_reached"


@given(placed=st.dictionaries(st.sampled_from([w.code for w in EZ.wagers]), st.integers(100, 2_500), max_size=3),
       bets=st.dictionaries(st.sampled_from([w.code for w in EZ.wagers]), st.integers(1, 3_000), max_size=3),
       minimum=st.integers(1, 500), maximum=st.integers(500, 3_000), balance=st.integers(0, 10_000))
def test_what_is_accepted_keeps_every_limit_and_more_balance_never_refuses_it(
        placed: dict[str, int], bets: dict[str, int], minimum: int, maximum: int, balance: int) -> None:
    limits = TableLimits(minimum, {w.code: maximum for w in EZ.wagers})
    try:
        after = check_stakes(EZ, limits, placed, bets, balance=balance)
    except BaccaratError:
        return
    assert after == {code: placed.get(code, 0) + bets.get(code, 0) for code in {*placed, *bets}}
    assert all(minimum <= after[code] <= maximum for code in bets)
    assert sum(bets.values()) <= balance
    assert check_stakes(EZ, limits, placed, bets, balance=balance + 1) == after


# --- fees (a rules file's fee = "1/5"): the own limits and the balance see the stake and its fee ----------------

def _with_fee():
    from dataclasses import replace
    from fractions import Fraction

    wagers = tuple(replace(w, fee=Fraction(1, 5)) if w.code == "player" else w for w in MINI.wagers)
    return replace(MINI, wagers=wagers)


def test_a_fee_is_on_each_spot_s_total_however_the_chips_went_down() -> None:
    from baccarat.core.stakes import fee_for, fees_of

    game = _with_fee()
    assert fee_for(game, {}, {"player": 1_001, "banker": 1_000}) == 201  # 20% of 10.01 rounded up; Banker has none
    assert fee_for(game, {"player": 1_001}, {"player": 1_001}) == 200  # 20% of 20.02 is 4.01: 2.01 paid already
    assert fees_of(game, {"player": 2_002, "banker": 500}) == 401


def test_the_balance_and_the_own_limits_count_the_fee() -> None:
    game = _with_fee()
    assert check_stakes(game, game.limits, {}, {"player": 1_000}, balance=1_200) == {"player": 1_000}
    with pytest.raises(InsufficientFundsError) as short:
        check_stakes(game, game.limits, {}, {"player": 1_000}, balance=1_199)
    assert short.value.params["amount"] == 1_200  # the stake and its fee
    with pytest.raises(ProtectionError):
        check_stakes(game, game.limits, {}, {"player": 1_000}, own_limits=[OwnLimit("stake", "day", 1_100, 0)])
