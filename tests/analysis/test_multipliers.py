"""Exact returns of wagers multiplied by struck cards (analysis/multipliers.py), each part against a count of its own:
the groups of equal cards against every ordered draw of a small shoe, the strike's expectation against every set
of struck cards, and a whole game against a closed form."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations, permutations, product
from math import comb, prod
from pathlib import Path

import numpy as np
import pytest

from baccarat.analysis.analyze import analyze
from baccarat.analysis.composition import Composition
from baccarat.analysis.multipliers import (
    expected_factor,
    groups_of_value,
    multiplied_returns,
    value_coups,
)
from baccarat.analysis.punto import event_combinations
from baccarat.core.registry import MINI
from baccarat.core.rulesfile import read_rules
from baccarat.core.strikes import Multipliers

CATALOGUE = Path(__file__).parents[2] / "catalogue"


@pytest.mark.parametrize(("held", "kinds", "decks"), [(2, 4, 2), (3, 4, 2), (3, 2, 3), (4, 3, 2)])
def test_groups_of_equal_cards_match_every_ordered_draw(held: int, kinds: int, decks: int) -> None:
    cards = [kind for kind in range(kinds) for _ in range(decks)]  # each card's kind; the copies are distinct cards
    found: dict[tuple[int, ...], int] = {}
    draws = 0
    for drawn in permutations(range(len(cards)), held):
        sizes = tuple(sorted(Counter_of([cards[i] for i in drawn])))
        found[sizes] = found.get(sizes, 0) + 1
        draws += 1
    assert dict(groups_of_value(held, kinds, decks)) == {k: Fraction(v, draws) for k, v in found.items()}


def Counter_of(kinds: list[int]) -> list[int]:
    return [kinds.count(k) for k in set(kinds)]


def _every_strike(groups: tuple[int, ...], feature: Multipliers) -> Fraction:
    """E[F] by walking every set of struck cards of 52 and every multiplier of each: the hand's groups are cards
    0, 1, ... (which cards they are does not matter)."""
    total = Fraction(0)
    counts = feature.probabilities(feature.counts)
    values = feature.probabilities(feature.values)
    for k, pk in counts:
        sets = comb(52, k)
        for struck in combinations(range(52), k):
            inside = [groups[c] for c in struck if c < len(groups)]
            if not inside:
                total += pk / sets
                continue
            for draws in product(values, repeat=len(inside)):
                f = prod(m**a for (m, _), a in zip(draws, inside, strict=True))
                f = f if feature.cap is None else min(f, feature.cap)
                total += pk / sets * prod((q for _, q in draws), start=Fraction(1)) * f
    return total


@pytest.mark.parametrize("groups", [(1,), (2,), (1, 1), (2, 1), (1, 1, 1)])
def test_the_strike_s_expectation_matches_every_set_of_struck_cards(groups: tuple[int, ...]) -> None:
    feature = Multipliers(("player",), ((1, 3), (2, 1)), ((2, 2), (3, 1), (8, 1)), cap=20)
    assert expected_factor(groups, feature) == _every_strike(groups, feature)


def test_every_coup_by_value_is_counted_once_and_each_outcome_as_the_analysis_counts_it() -> None:
    ways, coup, _ = value_coups(8)
    assert int(ways.sum()) == Composition.full(8).size * 415 * 414 * 413 * 412 * 411
    from baccarat.analysis.keys import coup_table

    winner = [c.winner for c in coup_table().coups]
    by_winner = {w: sum(int(x) for x, c in zip(ways, coup, strict=True) if winner[c] == w) for w in set(winner)}
    combos = event_combinations(MINI, Composition.full(8), (MINI.wager("player"),))["player"]
    assert by_winner == {"player": combos["Player wins"], "banker": combos["Banker wins"], "tie": combos["Tie"]}


def test_one_struck_card_doubling_is_the_closed_form_of_cards_and_equal_pairs() -> None:
    """With one card struck at 2x and no cap, a hand's ``F - 1`` is ``(n + equal pairs + equal triples) / 52``
    (``2^a - 1 = a + C(a, 2) + C(a, 3)``); an equal pair of value ``v`` has probability ``(D - 1) / (g D - 1)``."""
    decks = 8
    feature = Multipliers(("player",), ((1, 1),), ((2, 1),))
    game = replace(MINI, multipliers=feature)
    ways, coup, code = value_coups(decks)
    from baccarat.analysis.keys import coup_table

    coups = coup_table().coups
    total = int(ways.sum())
    pair = [Fraction(decks - 1, (16 if v == 0 else 4) * decks - 1) for v in range(10)]
    triple = [pair[v] * Fraction(decks - 2, (16 if v == 0 else 4) * decks - 2) for v in range(10)]
    won = np.array([c.winner == "player" for c in coups])[coup]
    held_codes, at = np.unique(code[won], return_inverse=True)
    summed = np.zeros(len(held_codes), dtype=np.int64)
    np.add.at(summed, at, ways[won])
    expected = Fraction(0)
    for held_code, w in zip(held_codes.tolist(), summed.tolist(), strict=True):
        held = [(held_code // 7**v) % 7 for v in range(10)]
        extra = sum(h + comb(h, 2) * pair[v] + comb(h, 3) * triple[v] for v, h in enumerate(held))
        expected += Fraction(w, total) * (1 + extra / 52)
    found = {e: p * a for e, p, a in multiplied_returns(game, decks)["player"].events}
    assert found["Player wins"] == expected


def test_the_lightning_file_s_returns_are_exact_and_the_fee_is_on_what_is_paid() -> None:
    game = read_rules(CATALOGUE / "lightning.toml")
    analysis = {w.code: w for w in analyze(game, Composition.full(8)).wagers}
    returns = multiplied_returns(game, 8)  # the second time from the caches of the first
    for code in ("player", "banker", "tie"):
        found = returns[code]
        assert analysis[code].expected_value == found.expected_value  # the analysis reports the same exact value
        assert analysis[code].return_to_player == (1 + found.expected_value) / Fraction(6, 5)
        assert analysis[code].multiplied and analysis[code].fee == Fraction(1, 5)
    # the file's assumed weights: the Player bet returns 98.73% of what is paid (98.76% published)
    assert f"{float(returns['player'].return_to_player):.4%}" == "98.7333%"
    assert f"{float(returns['banker'].return_to_player):.4%}" == "97.7565%"
    assert f"{float(returns['tie'].return_to_player):.4%}" == "95.2594%"


def test_struck_cards_in_a_depleted_shoe_are_not_priced_and_say_why() -> None:
    game = read_rules(CATALOGUE / "lightning.toml")
    analysis = analyze(game, Composition.full(8).without(3))
    assert not analysis.wagers
    assert "full shoe only" in analysis.skipped["player"]


def test_the_batch_evaluator_leaves_multiplied_wagers_out_and_says_why() -> None:
    from baccarat.analysis.batch import BatchEvaluator

    evaluator = BatchEvaluator(read_rules(CATALOGUE / "lightning.toml"))
    assert set(evaluator.refused) == {"player", "banker", "tie"}
    assert "struck cards multiply it" in evaluator.refused["player"]
