"""EZ Baccarat: every settlement line of the two EZ rule cards."""

from __future__ import annotations

import pytest

from baccarat.core.errors import BetLimitError
from baccarat.core.registry import EZ

from ..conftest import events, nets, play_coup, stacked_table

ALL = {"player": 1000, "banker": 1000, "tie": 100, "dragon_7": 100, "panda_8": 100}
DRAGON_7 = "2h 2c 3d Ac Kh 4s"  # Player 2,3 draws K = 5; Banker 2,A = 3 draws on 0 -> 4 = 7
PANDA_8 = "3h Kc 2d 7c 3s"  # Player 3,2 draws 3 = 8; Banker K,7 stands on 7
BANKER_WIN = "2h 4c 3d 4d"  # Banker natural 8 : 5
BANKER_THREE_CARD_8 = "2h 2c 3d Ac Kh 5s"  # Banker 3-card 8 beats 5: an ordinary Banker win
PLAYER_WIN = "4h 2c 5d 3c"  # Player natural 9
PLAYER_TWO_CARD_8 = "4h 2c 4d 3c 5s"  # Player natural 8 : Banker 5 (not a Panda: two cards)
TIE = "Kh Kc Kd Ks Qh Jh"
BANKER_3CARD_7_TIE = "3h 2c 4d Ac 4h"  # Player 7 stands; Banker 3 draws 4 -> 7: a tie, not a Dragon 7


def test_banker_win_banker_paid_1_to_1_player_tie_dragon_panda_lose() -> None:
    assert nets(play_coup(EZ, BANKER_WIN, ALL)) == {
        "player": -1000, "banker": 1000, "tie": -100, "dragon_7": -100, "panda_8": -100}


def test_dragon_7_pays_40_to_1_and_banker_wagers_push() -> None:
    table = play_coup(EZ, DRAGON_7, ALL)
    assert table.hands["banker"][-1].value == 4
    assert nets(table) == {"player": -1000, "banker": 0, "tie": -100, "dragon_7": 4000, "panda_8": -100}
    assert events(table)["banker"] == "Dragon 7 (Banker pushes)"


def test_player_win_player_paid_1_to_1_others_lose() -> None:
    assert nets(play_coup(EZ, PLAYER_WIN, ALL)) == {
        "player": 1000, "banker": -1000, "tie": -100, "dragon_7": -100, "panda_8": -100}


def test_panda_8_pays_25_to_1_and_player_wagers_paid_1_to_1() -> None:
    assert nets(play_coup(EZ, PANDA_8, ALL)) == {
        "player": 1000, "banker": -1000, "tie": -100, "dragon_7": -100, "panda_8": 2500}


def test_tie_pays_8_to_1_banker_player_push_dragon_panda_lose() -> None:
    assert nets(play_coup(EZ, TIE, ALL)) == {"player": 0, "banker": 0, "tie": 800, "dragon_7": -100, "panda_8": -100}


def test_no_commission_on_winning_banker_wagers() -> None:
    assert nets(play_coup(EZ, BANKER_THREE_CARD_8, {"banker": 1250}))["banker"] == 1250


def test_dragon_7_needs_a_winning_banker_hand() -> None:
    table = play_coup(EZ, BANKER_3CARD_7_TIE, ALL)
    assert table.snapshot()["hands"]["banker"] == ["2c", "Ac", "4h"]
    assert nets(table)["dragon_7"] == -100 and nets(table)["banker"] == 0 and nets(table)["tie"] == 800


def test_panda_8_needs_three_cards() -> None:
    table = play_coup(EZ, PLAYER_TWO_CARD_8, ALL)
    assert nets(table)["panda_8"] == -100 and nets(table)["player"] == 1000


@pytest.mark.parametrize("code", ["player", "banker", "tie", "dragon_7", "panda_8"])
def test_maximum_wager_amount_is_25(code: str) -> None:
    table = stacked_table(EZ, BANKER_WIN)
    table.open_betting()
    table.place_bet(1, code, 2500)
    before = table.snapshot()
    with pytest.raises(BetLimitError, match=r"is at its maximum of 25\.00: bet on another spot\."):
        table.place_bet(1, code, 1)  # adding a chip to a $25 bet
    assert table.snapshot() == before


def test_tie_bet_alone_is_allowed() -> None:
    assert nets(play_coup(EZ, TIE, {"tie": 500})) == {"tie": 4000}
