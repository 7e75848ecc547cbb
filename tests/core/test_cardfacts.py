"""The facts of the cards (core/cardfacts.py): coups written out by hand, the pair facts as the hands' facts, and
what the analysis must know to compute them.  tests/verify/test_definitions.py checks every fact against the
verifier's own reading of real coups, tests/analysis/test_cards.py the analysis's interpreter against this one."""

from __future__ import annotations

import random
from dataclasses import asdict

import pytest

from baccarat.core import cardfacts
from baccarat.core.cards import parse_cards, standard_deck
from baccarat.core.coup import deal_coup
from baccarat.core.facts import coup_facts


def _coups(count: int, seed: int, decks: int = 2):
    rng = random.Random(seed)
    shoe = list(standard_deck()) * decks
    for _ in range(count):
        cards = rng.sample(shoe, 6)
        yield deal_coup(iter(cards).__next__)


@pytest.mark.parametrize(("cards", "expected"), [
    # Player 4h Kd draws 8s; the Banker stands on 3c Kc against a third card 8
    (["4h", "3c", "Kd", "Kc", "8s", "7d"], {
        "player_third_rank": "8", "player_third_suit": "spades", "banker_third_rank": "none",
        "banker_third_colour": "none", "count_red_first_four": 2, "count_face": 2, "count_face_first_four": 2,
        "most_of_a_rank": 2, "rank_pairs": 1, "one_colour_first_four": False, "count_card_8s": 1,
        "count_card_7d": 0, "count_rank_k_first_four": 2, "player_one_colour": False, "full_house": False}),
    # six red cards: Player 2h Ah 5h, Banker 3d Ad 2d
    (["2h", "3d", "Ah", "Ad", "5h", "2d"], {
        "one_colour_first_four": True, "one_colour": True, "count_red": 6, "most_of_a_suit": 3,
        "count_suit_diamonds_first_four": 2, "banker_third_rank": "2", "banker_third_face": False,
        "rank_pairs": 2, "most_of_a_card": 1, "player_one_colour": True, "banker_one_colour": True}),
    # three Queens and two sevens: a full house; the Banker stands on 4 against a third card Q, so Kc is not dealt
    (["Qh", "7c", "Qd", "7s", "Qs", "Kc"], {
        "most_of_a_rank": 3, "rank_trips": 1, "rank_pairs": 1, "full_house": True, "full_house_first_four": False,
        "rank_pairs_first_four": 2, "player_third_face": True, "count_face": 3, "count_black": 3,
        "banker_third_rank": "none"}),
])
def test_facts_of_coups_written_out(cards, expected):
    coup = deal_coup(iter(parse_cards(cards)).__next__)
    assert cardfacts.facts_of_coup(coup, expected) == expected


def test_the_pair_facts_as_facts_of_the_cards_are_the_hands_facts():
    for coup in _coups(2000, seed=3, decks=1):
        hands = asdict(coup_facts(coup))
        assert cardfacts.facts_of_coup(coup, cardfacts.PAIR_FACTS) == {n: hands[n] for n in cardfacts.PAIR_FACTS}


def test_the_third_cards_are_read_finely_enough_to_count_what_is_left():
    first, third = cardfacts.needs_of(["banker_third_colour", "count_face_first_four"])
    assert (first.rank, first.suit, third.rank, third.suit) == (1, 1, 0, 1)
    first, third = cardfacts.needs_of(["most_of_a_rank", "player_suited"])
    assert (first.rank, first.suit, third.rank, third.suit) == (2, 2, 2, 0)
