"""The verifier's own struck cards (verify/strikes.py): the same draw as the house's, read from the definition as
docs/rules-files.md writes it, and the factor of the winning hand."""

from __future__ import annotations

import hashlib

import pytest

from baccarat.core.strikes import Multipliers, draw, strike_json
from baccarat.verify.strikes import factor, feature, strike

TABLE = {"wagers": ["player", "tie"], "cap": 64, "struck": [{"cards": 3, "weight": 1}, {"cards": 1, "weight": 2}],
         "values": [{"multiplier": 8, "weight": 1}, {"multiplier": 2, "weight": 5}]}


def test_the_verifier_draws_the_house_s_strikes_with_its_own_code():
    key = hashlib.sha256(b"a revealed shoe").digest()
    house = Multipliers(("player", "tie"), ((3, 1), (1, 2)), ((8, 1), (2, 5)), cap=64)
    mine = feature(TABLE, "test")
    assert mine.struck == ((1, 2), (3, 1)) and mine.values == ((2, 5), (8, 1))  # located from the smallest up
    for position in (0, 5, 77, 311):
        assert strike(key, position, mine) == strike_json(draw(key, position, house))


def test_the_winning_hand_s_struck_cards_multiply_up_to_the_cap():
    struck = [{"card": "7h", "multiplier": 8}, {"card": "Ks", "multiplier": 3}]
    hands = {"player": ["7h", "7h", "2c"], "banker": ["Ks", "4d"]}
    assert factor(struck, hands, "player", None) == 64
    assert factor(struck, hands, "player", 20) == 20
    assert factor(struck, hands, "banker", None) == 3
    assert factor(struck, hands, "tie", None) == 192


@pytest.mark.parametrize(("change", "words"), [
    ({"wagers": "player"}, "wagers is a list"),
    ({"cap": 1}, "cap is a whole number of at least 2"),
    ({"struck": [{"cards": 1}]}, "struck is a list of {cards, weight}"),
    ({"values": []}, "values is a list of {multiplier, weight}"),
])
def test_a_feature_the_verifier_cannot_read_is_named(change, words):
    with pytest.raises(ValueError, match=words):
        feature({**TABLE, **change}, "test")
