"""The drawing charts of the rule cards, cell by cell.

Expected cells are transcribed here from the card text independently of
``baccarat.core.tableau``: the mini-baccarat card's Banker chart, the EZ cards'
Player rules ("0-1-2-3-4-5 draws, 6-7 stands, 8-9 natural") and the Lucky
Draw card's dealer rule ("4 or less draws, stands with 5 or higher").
"""

from __future__ import annotations

import pytest

from baccarat.core.cards import parse_cards
from baccarat.core.coup import deal_coup
from baccarat.core.tableau import banker_draws, dealer_draws, is_natural, player_draws

# Mini-baccarat card, BANKER RULES: total -> player's third cards on which the Banker draws
# ("0" is a ten or picture).
CARD_BANKER_DRAWS_ON = {
    3: {1, 2, 3, 4, 5, 6, 7, 9, 0},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


@pytest.mark.parametrize("total", range(10))
def test_player_rules_first_two_cards_0_to_5_draws_6_7_stands(total: int) -> None:
    if total >= 8:
        assert is_natural(total)
    else:
        assert player_draws(total) == (total <= 5)


@pytest.mark.parametrize("total", [0, 1, 2])
@pytest.mark.parametrize("third", range(10))
def test_banker_rules_always_draws_on_0_1_2_when_player_has_no_natural(total: int, third: int) -> None:
    assert banker_draws(total, third)


@pytest.mark.parametrize("total", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("third", range(10))
def test_banker_rules_chart_cell(total: int, third: int) -> None:
    assert banker_draws(total, third) == (third in CARD_BANKER_DRAWS_ON[total])


@pytest.mark.parametrize("total", range(8))
def test_banker_rules_when_player_stands_banker_draws_0_to_5_stands_6_7(total: int) -> None:
    assert banker_draws(total, None) == (total <= 5)


@pytest.mark.parametrize("total", range(10))
def test_lucky_draw_dealer_draws_on_4_or_less_stands_on_5_or_higher(total: int) -> None:
    assert dealer_draws(total) == (total <= 4)


def _coup(cards: str):  # type: ignore[no-untyped-def]
    return deal_coup(iter(parse_cards(cards.split())).__next__)


def test_game_four_cards_dealt_player_bank_player_bank() -> None:
    coup = _coup("9h 2c 9d 3c")  # Player 8 natural
    assert [str(c) for c in coup.player_cards] == ["9h", "9d"]
    assert [str(c) for c in coup.banker_cards] == ["2c", "3c"]
    assert [side for side, _ in coup.deal_order] == ["player", "banker", "player", "banker"]


@pytest.mark.parametrize("cards", ["4h 2c 4d 3c", "5h 2c 4d 3c", "2h 4c 3d 5c", "2h 4c 3d 4c"])
def test_natural_8_or_9_on_either_hand_no_additional_cards(cards: str) -> None:
    coup = _coup(cards + " 5s 5s")
    assert len(coup.deal_order) == 4
    assert coup.natural
    assert coup.player_reason == coup.banker_reason == "Natural: neither hand draws."


def test_face_cards_and_tens_count_zero_aces_one_right_digit_of_sum() -> None:
    coup = _coup("Kh 7c 4d 7d 7s Ac")  # the EZ card's example: King, 4 and 7 total 1
    assert coup.player_total == 1
    assert coup.banker_total == (7 + 7 + 1) % 10


def test_no_more_than_one_additional_card_to_each_hand() -> None:
    coup = _coup("Kh Kc Kd Ks Qh Qd Jh Jd")
    assert len(coup.player_cards) == 3 and len(coup.banker_cards) == 3
    assert len(coup.deal_order) == 6


def test_player_third_card_before_banker_third_card() -> None:
    coup = _coup("2h Kc 2d Ks 5h 9c")
    assert [side for side, _ in coup.deal_order] == ["player", "banker", "player", "banker", "player", "banker"]
    assert coup.banker_reason == "Banker draws on 0 whatever the Player's third card (here 5)."


def test_player_stands_and_banker_draws_on_5() -> None:
    coup = _coup("6h 2c Kd 3s 4c")
    assert len(coup.player_cards) == 2 and len(coup.banker_cards) == 3
    assert "the Player stood" in coup.banker_reason
