"""Mini-baccarat and Dragon Bonus: every pay line of the Hollywood Casino card.

Coups are stacked P, B, P, B, P3, B3.  ``Kh Kc Kd Ks Qh N`` is a Banker win by N
with three cards each (both 0, the Player draws a ten, the Banker draws N);
``Kh Kc Kd Ks N Qh`` the Player's.
"""

from __future__ import annotations

import pytest

from baccarat.core.errors import BetLimitError, WagerPrerequisiteError
from baccarat.core.registry import MINI

from ..conftest import events, nets, play_coup, stacked_table

PLAYER_NATURAL_WIN = "4h 2c 5d 3c"  # Player 9 natural, Banker 5
BANKER_NATURAL_WIN = "2h 4c 3d 4d"  # Banker 8 natural, Player 5
NATURAL_TIE = "4h 5c 4d 3c"  # 8 : 8
NON_NATURAL_TIE = "Kh Kc Kd Ks Qh Jh"  # 0 : 0


def _rank(points: int) -> str:
    return "A" if points == 1 else str(points)


def banker_by(margin: int) -> str:
    return f"Kh Kc Kd Ks Qh {_rank(margin)}s"


def player_by(margin: int) -> str:
    return f"Kh Kc Kd Ks {_rank(margin)}s Qh"


def test_player_wins_pays_1_to_1() -> None:
    assert nets(play_coup(MINI, PLAYER_NATURAL_WIN, {"player": 1000, "banker": 1000, "tie": 500})) == {
        "player": 1000, "banker": -1000, "tie": -500}


def test_banker_wins_pays_1_to_1_less_five_percent_commission() -> None:
    assert nets(play_coup(MINI, BANKER_NATURAL_WIN, {"banker": 1000, "player": 1000})) == {
        "banker": 950, "player": -1000}


@pytest.mark.parametrize(("stake", "paid"), [(1250, 1187), (100, 95), (101, 95), (119, 113), (2000, 1900)])
def test_banker_commission_rounding_rule_win_rounded_down_to_the_cent(stake: int, paid: int) -> None:
    assert nets(play_coup(MINI, BANKER_NATURAL_WIN, {"banker": stake}))["banker"] == paid


def test_tie_bet_pays_8_to_1_and_neither_hand_wins_nor_loses() -> None:
    table = play_coup(MINI, NON_NATURAL_TIE, {"tie": 500, "player": 1000, "banker": 1000})
    assert nets(table) == {"player": 0, "banker": 0, "tie": 4000}


def test_dragon_bonus_natural_winners_pay_even_money() -> None:
    table = play_coup(MINI, PLAYER_NATURAL_WIN, {"player": 100, "dragon_bonus_player": 500,
                                                 "banker": 100, "dragon_bonus_banker": 500})
    assert nets(table)["dragon_bonus_player"] == 500
    assert nets(table)["dragon_bonus_banker"] == -500
    assert nets(play_coup(MINI, BANKER_NATURAL_WIN, {"banker": 100, "dragon_bonus_banker": 500}))[
        "dragon_bonus_banker"] == 500


def test_dragon_bonus_natural_win_by_nine_still_pays_even_money() -> None:
    table = play_coup(MINI, "9h Kc Kd Ks", {"player": 100, "dragon_bonus_player": 500})  # 9 : 0 natural
    assert events(table)["dragon_bonus_player"] == "Natural win"
    assert nets(table)["dragon_bonus_player"] == 500


def test_dragon_bonus_natural_that_ties_pushes() -> None:
    table = play_coup(MINI, NATURAL_TIE, {"player": 100, "dragon_bonus_player": 500,
                                          "banker": 100, "dragon_bonus_banker": 500})
    assert nets(table) == {"player": 0, "banker": 0, "dragon_bonus_player": 0, "dragon_bonus_banker": 0}


def test_dragon_bonus_non_natural_tie_loses() -> None:
    table = play_coup(MINI, NON_NATURAL_TIE, {"banker": 100, "dragon_bonus_banker": 500})
    assert nets(table)["dragon_bonus_banker"] == -500


@pytest.mark.parametrize(("margin", "odds"), [(9, 30), (8, 10), (7, 6), (6, 4), (5, 2), (4, 1)])
def test_dragon_bonus_non_natural_win_by_margin_pays_schedule(margin: int, odds: int) -> None:
    banker = play_coup(MINI, banker_by(margin), {"banker": 100, "dragon_bonus_banker": 100})
    assert events(banker)["dragon_bonus_banker"] == f"Win by {margin}"
    assert nets(banker)["dragon_bonus_banker"] == 100 * odds
    player = play_coup(MINI, player_by(margin), {"player": 100, "dragon_bonus_player": 100})
    assert nets(player)["dragon_bonus_player"] == 100 * odds


@pytest.mark.parametrize("margin", [1, 2, 3])
def test_dragon_bonus_non_natural_win_by_less_than_4_loses(margin: int) -> None:
    table = play_coup(MINI, banker_by(margin), {"banker": 100, "dragon_bonus_banker": 100})
    assert nets(table) == {"banker": 95, "dragon_bonus_banker": -100}


def test_dragon_bonus_selected_hand_loses() -> None:
    table = play_coup(MINI, banker_by(9), {"player": 100, "dragon_bonus_player": 100})
    assert nets(table)["dragon_bonus_player"] == -100


def test_dragon_bonus_player_and_banker_wagers_are_paid_the_same_odds() -> None:
    assert MINI.wager("dragon_bonus_player").paytable == MINI.wager("dragon_bonus_banker").paytable


@pytest.mark.parametrize(("side_bet", "base"), [("dragon_bonus_banker", "player"), ("dragon_bonus_player", "banker")])
def test_must_wager_the_same_side_to_place_a_dragon_bonus(side_bet: str, base: str) -> None:
    table = stacked_table(MINI, PLAYER_NATURAL_WIN)
    table.open_betting()
    before = table.snapshot()
    with pytest.raises(WagerPrerequisiteError, match="needs a"):
        table.place_bets(1, {side_bet: 500, base: 500})
    with pytest.raises(WagerPrerequisiteError):
        table.place_bet(1, side_bet, 500)
    assert table.snapshot() == before


def test_players_must_meet_the_table_minimum_on_all_wagers_placed() -> None:
    table = stacked_table(MINI, PLAYER_NATURAL_WIN)
    table.open_betting()
    before = table.snapshot()
    with pytest.raises(BetLimitError, match="below the table minimum"):
        table.place_bets(1, {"banker": 1000, "dragon_bonus_banker": 99})
    assert table.snapshot() == before


def test_dragon_bonus_does_not_change_drawing_rules_or_commission() -> None:
    with_bonus = play_coup(MINI, banker_by(5), {"banker": 1000, "dragon_bonus_banker": 100})
    without = play_coup(MINI, banker_by(5), {"banker": 1000})
    assert with_bonus.hands == without.hands
    assert nets(with_bonus)["banker"] == nets(without)["banker"] == 950
