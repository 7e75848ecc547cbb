"""Struck cards (core/strikes.py): the draw as docs/fairness.md's step 9 writes it, and how a strike multiplies."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from fractions import Fraction

import pytest

from baccarat.core.cards import Card, standard_deck
from baccarat.core.coup import deal_coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game, TableLimits, fee_of, settle
from baccarat.core.registry import MINI
from baccarat.core.strikes import (
    Multipliers,
    coup_factor,
    draw,
    factor,
    strike_from_json,
    strike_json,
    winning_cards,
)

FEATURE = Multipliers(("player", "tie"), ((1, 10), (2, 25), (3, 30), (5, 35)), ((8, 1), (2, 5), (3, 4)), cap=64)


def _step_9(key: bytes, position: int, feature: Multipliers) -> list[tuple[str, int]]:
    """The draw written again from the docs' words alone (the stream of steps 3-4, rejection sampling)."""
    strike_key = hmac.new(key, b"strike" + position.to_bytes(2, "big"), hashlib.sha256).digest()
    words: list[int] = []
    block = 0

    def below(n: int) -> int:
        nonlocal block
        while True:
            if not words:
                digest = hmac.new(strike_key, block.to_bytes(8, "big"), hashlib.sha256).digest()
                words.extend(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4))
                block += 1
            w = words.pop(0)
            if w < 2**32 - 2**32 % n:
                return w % n

    def located(rows: list[tuple[int, int]]) -> int:
        index = below(sum(w for _, w in rows))
        for value, weight in sorted(rows):
            if index < weight:
                return value
            index -= weight
        raise AssertionError

    deck = [r + s for s in "cdhs" for r in "A23456789TJQK"]
    out = []
    for _ in range(located(list(feature.counts))):
        card = deck.pop(below(len(deck)))
        out.append((card, located(list(feature.values))))
    return out


def test_the_draw_is_step_9_of_the_fairness_document() -> None:
    key = hashlib.sha256(b"a shoe").digest()
    for position in range(0, 400, 7):
        assert [(str(c), m) for c, m in draw(key, position, FEATURE)] == _step_9(key, position, FEATURE)
    assert draw(key, 5, FEATURE) != draw(key, 6, FEATURE)  # each coup its own strike


def test_the_draw_follows_its_weight_tables() -> None:
    key = bytes(range(32))
    strikes = [draw(key, position, FEATURE) for position in range(3000)]
    counts = Counter(len(s) for s in strikes)
    for how_many, weight in FEATURE.counts:  # 3,000 draws: within 5 standard errors of each weight
        p = weight / 100
        assert abs(counts[how_many] / 3000 - p) < 5 * (p * (1 - p) / 3000) ** 0.5, (how_many, counts)
    for strike in strikes:
        assert len({card for card, _ in strike}) == len(strike)  # distinct cards
        assert {m for _, m in strike} <= {2, 3, 8}


def test_a_strike_multiplies_the_winning_hand_s_struck_cards_each_time_it_is_held_up_to_the_cap() -> None:
    strike = ((Card("7", "h"), 3), (Card("K", "s"), 8))
    assert factor(strike, [Card("7", "h")], cap=None) == 3
    assert factor(strike, [Card("7", "h"), Card("7", "h")], cap=None) == 9
    assert factor(strike, [Card("7", "d"), Card("K", "c")], cap=None) == 1  # rank and suit must match
    assert factor(strike, [Card("K", "s"), Card("K", "s"), Card("7", "h")], cap=None) == 192
    assert factor(strike, [Card("K", "s"), Card("K", "s"), Card("7", "h")], cap=64) == 64


def _coup(cards: str):
    deck = iter(Card.parse(c) for c in cards.split())
    return deal_coup(deck.__next__)


def test_the_cards_read_are_the_winner_s_or_both_hands_on_a_tie() -> None:
    player_wins = _coup("9h 2c Kd 3s")  # Player 9, Banker 5: naturals, no draw
    assert [str(c) for c in winning_cards(player_wins)] == ["9h", "Kd"]
    tie = _coup("9h 9c Kd Ks")
    assert [str(c) for c in winning_cards(tie)] == ["9h", "Kd", "9c", "Ks"]
    feature = Multipliers(("tie",), ((1, 1),), ((2, 1),))
    assert coup_factor(((Card("9", "c"), 2),), tie, feature) == 2
    assert coup_factor(((Card("9", "c"), 2),), player_wins, feature) == 1  # the Banker's card, and Player won


def test_a_multiplied_win_is_paid_its_odds_times_the_factor_and_a_loss_is_not_multiplied() -> None:
    player = MINI.wager("player")
    banker = MINI.wager("banker")
    coup = _coup("9h 2c Kd 3s")
    assert settle(player, coup, 1000, factor=8).net == 8000
    assert settle(player, coup, 1000, factor=8).odds == 8
    assert settle(banker, coup, 1000, factor=8).net == -1000
    banker_wins = _coup("2c 9h 3s Kd")
    assert settle(banker, banker_wins, 1000, factor=3).net == 2850  # 19/20 x 3 of 10.00


def test_a_fee_is_its_fraction_of_the_stake_rounded_up_to_a_minor_unit() -> None:
    from dataclasses import replace

    wager = replace(MINI.wager("player"), fee=Fraction(1, 5))
    assert fee_of(wager, 1000) == 200
    assert fee_of(wager, 101) == 21  # 20.2 cents: the fraction stays with the house
    assert fee_of(MINI.wager("player"), 1000) == 0


@pytest.mark.parametrize(("counts", "values", "cap", "words"), [
    ((), ((2, 1),), None, "struck cards table is empty"),
    (((53, 1),), ((2, 1),), None, "values are 1 to 52"),
    (((1, 1),), ((1, 1),), None, "values are 2 to 1000"),
    (((1, 0),), ((2, 1),), None, "weights are whole numbers"),
    (((1, 1), (1, 2)), ((2, 1),), None, "lists a value twice"),
    (((1, 1),), ((2, 1),), 1, "cap is a whole number"),
    (((1, 1.5),), ((2, 1),), None, "whole numbers, not 1.5"),
])
def test_a_feature_that_cannot_be_drawn_is_refused(counts, values, cap, words) -> None:
    with pytest.raises(ConfigurationError, match=words):
        Multipliers(("player",), counts, values, cap)


def test_a_game_multiplies_only_wagers_it_has_and_only_at_punto_banco() -> None:
    limits = TableLimits(100, {w.code: 10_000 for w in MINI.wagers})
    with pytest.raises(ConfigurationError, match="does not have: panda"):
        Game("x", "X", "punto_banco", MINI.wagers, limits, multipliers=Multipliers(("panda",), ((1, 1),), ((2, 1),)))
    with pytest.raises(ConfigurationError, match="punto banco wagers only"):
        Game("x", "X", "lucky_draw", MINI.wagers, limits, multipliers=Multipliers(("player",), ((1, 1),), ((2, 1),)))


def test_a_strike_goes_to_json_and_back_and_a_malformed_one_is_refused() -> None:
    strike = draw(bytes(32), 3, FEATURE)
    assert strike_from_json(strike_json(strike)) == strike
    for bad in ("7h", [{"card": "7h"}], [{"card": "7x", "multiplier": 2}], [{"card": "7h", "multiplier": "2"}]):
        with pytest.raises(ConfigurationError):
            strike_from_json(bad)
    assert len(standard_deck()) == 52
