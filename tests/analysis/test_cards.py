"""Exact pricing of wagers on the facts of the cards (analysis/cards.py), against an independent count: every
ordered deal of six cards from a small shoe, settled with the verifier's own reading of the hands."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from baccarat.analysis import cards as engine
from baccarat.analysis import patterns
from baccarat.core import cardfacts
from baccarat.core.cards import RANKS, SUITS, parse_cards, standard_deck
from baccarat.core.coup import deal_coup
from baccarat.core.errors import ConfigurationError
from baccarat.verify import definitions

WAGERS = {
    "colour match": (("all red or all black", (("one_colour_first_four", (True,)),)), ("else", ())),
    "3 giving 8": (("3 gives 8", (("player_third_rank", ("8",)), ("banker_total", (3,)), ("banker_cards", (2,)))),
                   ("else", ())),
    "ranks over six cards": (("trips or more", (("most_of_a_rank", (3, 4, 5, 6)),)),
                             ("a pair", (("rank_pairs", (1, 2, 3)),)), ("else", ())),
    "colours and faces": (("one colour tie", (("one_colour", (True,)), ("winner", ("tie",)))),
                          ("two or three faces", (("count_face", (2, 3)),)), ("else", ())),
    "suited K-Q": (("majestic", (("player_first_rank", ("K", "Q")), ("player_second_rank", ("K", "Q")),
                                 ("player_suited", (True,)), ("player_pair", (False,)))),
                   ("perfect pair", (("player_perfect_pair", (True,)),)), ("else", ())),
    "the Banker's third card": (("red third", (("banker_third_colour", ("red",)), ("totals_sum", (9, 10, 11)))),
                                ("a third", (("banker_cards", (3,)),)), ("else", ())),
}
SHOES = {
    "six cards, with twins": ["4h", "4h", "Qs", "Qs", "5d", "3h"],
}
#: Shoes of 5,040 and 20,160 deals, in the system tier.
LONG_SHOES = {
    "seven cards, with twins": ["4h", "4h", "Qs", "Qs", "5d", "3h", "Kh"],
    "seven cards, one of each": ["8h", "3c", "Kd", "Kc", "8s", "7d", "9d"],
    "eight cards, one of each": ["8h", "3c", "Kd", "Kc", "8s", "7d", "9d", "Qh"],
    "eight cards, with twins": ["8h", "8h", "Kd", "Kd", "3c", "9d", "9d", "Qh"],
    "eight cards for third cards": ["4h", "2c", "Qs", "Qs", "5d", "3h", "Kh", "8c"],
}


def _counts(shoe: list[str]) -> tuple[list[int], list[int]]:
    by_card = [0] * 52
    for card in parse_cards(shoe):
        by_card[RANKS.index(card.rank) * 4 + SUITS.index(card.suit)] += 1
    return by_card, [sum(by_card[r * 4:r * 4 + 4]) for r in range(13)]


def _every_deal(shoe: list[str]) -> dict[str, dict[str, int]]:
    """Every ordered deal of six of the shoe's cards, each wager settled from the verifier's facts of its hands."""
    found: dict[str, Counter[str]] = {wager: Counter() for wager in WAGERS}
    known: dict[tuple[tuple[str, ...], tuple[str, ...]], dict[str, object]] = {}
    for order in itertools.permutations(parse_cards(shoe), 6):
        coup = deal_coup(iter(order).__next__)
        hands = tuple(str(c) for c in coup.player_cards), tuple(str(c) for c in coup.banker_cards)
        if hands not in known:
            known[hands] = definitions.facts({"player": list(hands[0]), "banker": list(hands[1])})
        facts = known[hands]
        for wager, declared in WAGERS.items():
            found[wager][next(e for e, when in declared if all(facts[n] in v for n, v in when))] += 1
    return {wager: {event: found[wager][event] for event, _ in declared} for wager, declared in WAGERS.items()}


def _check(shoe: list[str]) -> None:
    by_card, by_rank = _counts(shoe)
    priced = {wager: engine.event_counts(declared, [e for e, _ in declared], cards=by_card, ranks=by_rank)
              for wager, declared in WAGERS.items()}
    assert priced == _every_deal(shoe)


@pytest.mark.parametrize("shoe", SHOES)
def test_each_event_counts_every_deal_of_a_small_shoe(shoe: str) -> None:
    _check(SHOES[shoe])


@pytest.mark.slow
@pytest.mark.parametrize("shoe", LONG_SHOES)
def test_each_event_counts_every_deal_of_a_larger_shoe(shoe: str) -> None:
    _check(LONG_SHOES[shoe])


def _through_patterns(declared, decks: int) -> dict[str, int]:
    def rule(facts):
        return next(e for e, when in declared if all(getattr(facts, n) in v for n, v in when))

    events = [e for e, _ in declared]
    return patterns.event_counts(rule, events, patterns.key_pattern_weights((4 * decks,) * 13, decks))


def test_the_pair_facts_through_the_cards_are_the_pattern_analysis_s_at_eight_decks():
    declared = (("twins", (("twin_pairs", (True,)),)), ("two pairs", (("pairs", (2,)),)),
                ("player pair", (("player_pair", (True,)), ("winner", ("player",)))), ("else", ()))
    through_cards = engine.event_counts(declared, [e for e, _ in declared], cards=(8,) * 52, ranks=(32,) * 13)
    assert through_cards == _through_patterns(declared, 8)


@pytest.mark.slow
def test_the_suit_facts_through_the_cards_are_the_pattern_analysis_s_at_six_decks():
    declared = (("perfect pairs", (("perfect_pairs", (2,)),)), ("a perfect pair", (("perfect_pairs", (1,)),)),
                ("suited banker", (("banker_suited", (True,)), ("player_pair", (True,)))), ("else", ()))
    through_cards = engine.event_counts(declared, [e for e, _ in declared], cards=(6,) * 52, ranks=(24,) * 13)
    assert through_cards == _through_patterns(declared, 6)


def test_colour_match_at_eight_decks_is_the_closed_form():
    declared = WAGERS["colour match"]
    found = engine.event_counts(declared, ["all red or all black", "else"], cards=(8,) * 52, ranks=(32,) * 13)
    # four cards of one colour from 208 red and 208 black: 2 x 208 x 207 x 206 x 205 of 416 x 415 x 414 x 413
    assert found["all red or all black"] * 416 * 415 * 414 * 413 == 2 * 208 * 207 * 206 * 205 * sum(found.values())


def test_many_coups_at_once_are_each_coup_alone():
    rng = random.Random(11)
    shoe = list(standard_deck()) * 2
    coups = [deal_coup(iter(rng.sample(shoe, 6)).__next__) for _ in range(300)]
    found = engine.compute(engine.cards_of(coups), cardfacts.DECLARED)
    for i, coup in enumerate(coups):
        alone = cardfacts.facts_of_coup(coup, cardfacts.DECLARED)
        assert {n: cardfacts.DECLARED[n].value(int(found[n][i])) for n in found} == alone


def test_facts_too_fine_together_are_refused_naming_them():
    declared = (("x", (("banker_third_suit", ("hearts",)), ("count_card_9d", (1, 2)))), ("else", ()))
    with pytest.raises(ConfigurationError, match="banker_third_suit, count_card_9d together need"):
        engine.event_counts(declared, ["x", "else"], cards=(8,) * 52, ranks=(32,) * 13)


def test_a_shoe_known_by_rank_alone_cannot_price_colours():
    declared = WAGERS["colour match"]
    with pytest.raises(ConfigurationError, match="needs the shoe by card"):
        engine.event_counts(declared, ["all red or all black", "else"], cards=None, ranks=(32,) * 13)
