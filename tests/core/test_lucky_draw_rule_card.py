"""Lucky Draw Baccarat: Enter, Draw, the DrawWin pay tables, the dealer's rule, Block Bonus.

A one-seat stack is dealt: seat card, dealer up card, seat card, [seat's Draw
card], dealer's second card, [dealer's third card].
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from baccarat.core.cards import parse_cards
from baccarat.core.errors import IllegalActionError, InsufficientFundsError, WagerPrerequisiteError
from baccarat.core.lucky import block_bonus_event
from baccarat.core.registry import LUCKY_DRAW, LUCKY_DRAW_2, lucky_draw
from baccarat.core.table import Phase, Table

from ..conftest import deal_round, events, nets, stacked_table


def play(cards: str, bets: dict[str, int], action: str, *, game=LUCKY_DRAW, balance=1_000_000) -> Table:  # type: ignore[no-untyped-def]
    table = deal_round(stacked_table(game, cards, balance=balance), {1: bets})
    table.decide(1, action)
    return table


def test_player_higher_wins_enter_paid_1_to_1() -> None:
    table = play("9h 5c Kd Kc", {"enter": 1000}, "stand")  # 9 : 5
    assert nets(table) == {"enter": 1000}


def test_dealer_higher_player_loses_enter_and_draw() -> None:
    table = play("2h 5c 4d Ks 2s", {"enter": 1000}, "draw")  # 6 : 7
    assert nets(table) == {"enter": -1000, "draw": -1000}


def test_equal_totals_enter_and_draw_push() -> None:
    table = play("2h 5c 4d Ks As", {"enter": 1000}, "draw")  # 6 : 6
    assert nets(table) == {"enter": 0, "draw": 0}


@pytest.mark.parametrize(
    ("draw_card", "event", "table_1", "table_2"),
    [
        ("3s", "Lucky 9 (3-card 9)", 3000, 3000),
        ("2s", "Lucky 8 (3-card 8)", 2000, 2000),
        ("As", "Lucky 7 (3-card 7)", 2000, 1500),
        ("Ks", "Win with 6 or less", 1000, 1000),
    ],
)
def test_drawwin_pay_tables_1_and_2(draw_card: str, event: str, table_1: int, table_2: int) -> None:
    stack = f"2h 5c 4d {draw_card} Kc"  # seat 6 draws; dealer 5 stands
    one = play(stack, {"enter": 1000}, "draw", game=LUCKY_DRAW)
    two = play(stack, {"enter": 1000}, "draw", game=LUCKY_DRAW_2)
    assert events(one)["draw"] == event
    assert nets(one) == {"enter": 1000, "draw": table_1}
    assert nets(two) == {"enter": 1000, "draw": table_2}


def test_draw_wager_equals_enter_and_deals_exactly_one_card() -> None:
    table = play("2h 5c 4d 3s Kc", {"enter": 1250}, "draw")
    assert table.bets[1]["draw"] == 1250
    assert len(table.hands["seat:1"]) == 3


def test_dealer_draws_a_third_card_on_4_or_less() -> None:
    table = play("9h 2c Kd 2s 3h", {"enter": 1000}, "stand")  # dealer 2,2 = 4 draws 3 -> 7
    assert [str(c) for c in table.hands["dealer"]] == ["2c", "2s", "3h"]
    assert nets(table) == {"enter": 1000}


def test_dealer_stands_with_5_or_higher() -> None:
    table = play("6h 2c Kd 3s 3h", {"enter": 1000}, "stand")  # dealer 5 stands; 6 : 5
    assert [str(c) for c in table.hands["dealer"]] == ["2c", "3s"]
    assert nets(table) == {"enter": 1000}


def test_stand_places_no_draw_wager() -> None:
    table = play("9h 5c Kd Kc", {"enter": 1000}, "stand")
    assert "draw" not in table.bets[1]
    assert len(table.hands["seat:1"]) == 2


def test_deal_order_one_card_each_seat_dealer_up_then_second_card_each_seat() -> None:
    # seat 3 makes no wager: no cards
    table = deal_round(stacked_table(LUCKY_DRAW, "As 2s 3s 4s 5s 6s 7s 8s 9s Ts", seats=(1, 3, 5)),
                       {1: {"enter": 100}, 5: {"enter": 100}})
    assert table.snapshot()["hands"] == {"seat:1": ["As", "4s"], "seat:5": ["2s", "5s"], "dealer": ["3s"]}
    assert table.seat_to_act == 1
    table.decide(1, "draw")
    table.decide(5, "stand")
    assert table.snapshot()["hands"]["seat:1"] == ["As", "4s", "6s"]
    assert table.snapshot()["hands"]["dealer"] == ["3s", "7s", "8s"]  # 3 + 7 = 0: the dealer draws
    assert table.phase is Phase.IDLE


def test_seats_act_in_order() -> None:
    table = deal_round(stacked_table(LUCKY_DRAW, "As 2s 3s 4s 5s 6s 7s 8s 9s Ts", seats=(1, 2)),
                       {1: {"enter": 100}, 2: {"enter": 100}})
    before = table.snapshot()
    with pytest.raises(IllegalActionError, match="seat 1's turn"):
        table.decide(2, "stand")
    assert table.snapshot() == before


def test_draw_refused_when_balance_is_below_enter() -> None:
    table = deal_round(stacked_table(LUCKY_DRAW, "2h 5c 4d 3s Kc", balance=1500), {1: {"enter": 1000}})
    before = table.snapshot()
    assert not table.can_decide(1, "draw")
    with pytest.raises(InsufficientFundsError, match="which the Draw wager must equal: you can only stand"):
        table.decide(1, "draw")
    assert table.snapshot() == before
    table.decide(1, "stand")


def test_timeout_stands() -> None:
    table = deal_round(stacked_table(LUCKY_DRAW, "9h 5c Kd Kc"), {1: {"enter": 100}})
    table.timeout()
    assert table.decisions == {1: "stand"} and nets(table) == {"enter": 100}


def test_draw_is_not_placed_while_betting_and_block_bonus_needs_enter() -> None:
    table = stacked_table(LUCKY_DRAW, "9h 5c Kd Kc")
    table.open_betting()
    before = table.snapshot()
    with pytest.raises(IllegalActionError, match="choosing to draw"):
        table.place_bets(1, {"enter": 100, "draw": 100})
    with pytest.raises(WagerPrerequisiteError):
        table.place_bets(1, {"block_bonus": 100})
    assert table.snapshot() == before


def test_block_bonus_is_settled_after_the_first_deal() -> None:
    table = deal_round(stacked_table(LUCKY_DRAW, "Qh 5h 2s Kc"), {1: {"enter": 100, "block_bonus": 100}})
    assert table.phase is Phase.DECISION
    assert [(s.wager, s.event, s.net) for s in table.settlements] == [("block_bonus", "Normal Block", 200)]


@pytest.mark.parametrize(
    ("cards", "event"),
    [
        ("Qh Qh 5h", "Ultimate Block"),
        ("Ah Ah Kh", "Ultimate Block"),
        ("Qh Qs 5h", "Pair Block"),
        ("Qd Qh 5h", "Pair Block"),
        ("Qh 2h 5h", "Flush Block"),
        ("Qh Kh 5h", "Flush Block"),
        ("Th Kh 5h", "Flush Block"),  # a Ten and a King count 0 each but are not a pair
        ("Qh 2s 5h", "Normal Block"),
        ("2c Ah Kh", "Normal Block"),  # Ace high
        ("Jh 3d Th", "Normal Block"),  # J above 10
        ("Qs Qd 5h", "No Block"),  # a pair with no card in the dealer's suit
        ("3h 3s 5h", "No Block"),  # a suited pair below the up card
        ("2h 3h 5h", "No Block"),  # suited but lower
        ("Kh Qh Ah", "No Block"),  # nothing beats the Ace
        ("5h 9s 5h", "No Block"),  # the same rank is not higher
        ("Th 4c Jh", "No Block"),
        ("9s 9s 2h", "No Block"),
    ],
)
def test_block_bonus_categories(cards: str, event: str) -> None:
    first, second, up = parse_cards(cards.split())
    assert block_bonus_event(first, second, up) == event
    assert block_bonus_event(second, first, up) == event  # the order of the two cards does not matter


def test_block_bonus_pay_table() -> None:
    pays = LUCKY_DRAW.wager("block_bonus").paytable
    assert dict(pays) == {"Ultimate Block": 35, "Pair Block": 10, "Flush Block": 5, "Normal Block": 2,
                          "No Block": -1}


def test_pay_table_2_differs_only_on_lucky_7() -> None:
    one, two = LUCKY_DRAW.wager("draw").paytable, LUCKY_DRAW_2.wager("draw").paytable
    assert {e for e in one if one[e] != two[e]} == {"Lucky 7 (3-card 7)"}
    assert two["Lucky 7 (3-card 7)"] == Fraction(3, 2)
    with pytest.raises(ValueError, match="1 or 2"):
        lucky_draw(3)


def test_lucky_7_three_to_two_rounds_down_to_the_cent() -> None:
    table = play("2h 5c 4d As Kc", {"enter": 101}, "draw", game=LUCKY_DRAW_2)
    assert nets(table) == {"enter": 101, "draw": 151}
