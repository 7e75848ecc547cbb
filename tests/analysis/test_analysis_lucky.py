"""Lucky Draw analysis: the optimal Draw decision, the strategy card, Block Bonus.

The independent computation here walks every cell (seat cards, up card), then
every Draw card and dealer card with its own card-removal probabilities,
settling each hand with the engine's ``LuckyDrawHand`` and the game's wagers.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from fractions import Fraction as F
from functools import cache

import numpy as np
import pytest

from baccarat.analysis import lucky_draw as ld
from baccarat.analysis.analyze import analyze
from baccarat.analysis.block import CARD_KINDS, block_combinations, event_table, kind_counts
from baccarat.analysis.composition import Composition, sequence_weights
from baccarat.core.cards import Card, standard_deck
from baccarat.core.games import Game
from baccarat.core.lucky import BLOCK_EVENTS, LuckyDrawHand, block_bonus_event
from baccarat.core.registry import LUCKY_DRAW, LUCKY_DRAW_2, lucky_draw

CARD = [Card("T", "h"), *(Card(rank, "h") for rank in "A23456789")]


def _settle(game: Game, seat: tuple[int, ...], dealer: tuple[int, ...]) -> F:
    hand = LuckyDrawHand(tuple(CARD[v] for v in seat), tuple(CARD[v] for v in dealer))
    odds = game.wager("enter").odds(hand)
    return odds + game.wager("draw").odds(hand) if len(seat) == 3 else odds


def independent_cells(game: Game, counts: tuple[int, ...],
                      settle: Callable[[tuple[int, ...], tuple[int, ...]], F] | None = None,
                      ) -> dict[tuple[int, int, int], tuple[F, F, F]]:
    """(s1, up, s2) -> (probability of the cell, EV standing, EV drawing), by direct enumeration; ``settle``
    (seat values, dealer values) -> the pays, :func:`_settle` cached unless given (a shoe of another size
    reuses the same game's settlements)."""
    settle = settle or cache(lambda seat, dealer: _settle(game, seat, dealer))
    left = list(counts)
    size = sum(counts)

    def dealer_ev(seat: tuple[int, ...], up: int, cards: int) -> F:
        # The dealer takes a second card and, while their hand is not complete, a third.  Each settlement's
        # ways are counted in integers over the common (size - cards)(size - cards - 1) orders of the next two
        # cards, then weighed by its pay: a few Fractions a cell rather than one for every deal.
        ways: Counter[F] = Counter()
        for second in range(10):
            if not left[second]:
                continue
            first_ways = left[second]
            left[second] -= 1
            if LuckyDrawHand((CARD[0], CARD[0]), (CARD[up], CARD[second])).complete:
                ways[settle(seat, (up, second))] += first_ways * (size - cards - 1)
            else:
                for third in range(10):
                    if left[third]:
                        ways[settle(seat, (up, second, third))] += first_ways * left[third]
            left[second] += 1
        return sum((pay * n for pay, n in ways.items()), F(0)) / ((size - cards) * (size - cards - 1))

    result = {}
    for s1, up, s2 in itertools.product(range(10), repeat=3):
        weight = F(1)
        for i, v in enumerate((s1, up, s2)):
            weight *= F(left[v], size - i)
            left[v] -= 1
        if weight:
            stand = dealer_ev((s1, s2), up, 3)
            draw = F(0)
            for d in range(10):
                if left[d]:
                    left[d] -= 1
                    draw += F(left[d] + 1, size - 3) * dealer_ev((s1, s2, d), up, 4)
                    left[d] += 1
            result[(s1, up, s2)] = (weight, stand, draw)
        for v in (s1, up, s2):
            left[v] += 1
    return result


def _cells_from_every_sequence(game: Game, composition: Composition) -> tuple[np.ndarray, np.ndarray]:
    """(stand counts, draw counts) summed over every ordered five- and six-card sequence."""
    stand, draw = ld.outcomes(game, drew=False), ld.outcomes(game, drew=True)
    counts, dealer, values = composition.array(), ld.dealer_final_totals(), np.arange(10)
    seat_two = ld.TWO_CARD_TOTAL
    five = sequence_weights(counts, 5)  # [s1, u, s2, u2, u3]
    stand_event = stand.table[seat_two[:, None, :, None, None], dealer[None, :, None, :, :]]
    six = sequence_weights(counts, 6)  # [s1, u, s2, d, u2, u3]
    seat_three = (seat_two[:, :, None] + values[None, None, :]) % 10
    draw_event = draw.table[seat_three[:, None, :, :, None, None], dealer[None, :, None, None, :, :]]
    return (np.stack([(five * (stand_event == e)).sum(axis=(3, 4)) for e in range(len(stand.events))], axis=3),
            np.stack([(six * (draw_event == e)).sum(axis=(3, 4, 5)) for e in range(len(draw.events))], axis=3))


@pytest.mark.parametrize("counts", [
    (16, 4, 4, 4, 4, 4, 4, 4, 4, 4), (128,) + (32,) * 9, (256,) + (64,) * 9, (120, 30, 28, 31, 25, 29, 32, 27, 30, 26),
    (20, 3, 9, 1, 0, 7, 4, 8, 2, 5), (6, 0, 0, 0, 0, 0, 0, 0, 0, 0), (0, 2, 0, 1, 0, 0, 0, 0, 4, 0),
])
def test_cell_counts_are_the_five_and_six_card_sequences_summed(counts):
    """The cells' counts come from the seat's cards' moments (``dealer_rest``); here, from every sequence."""
    for game in (LUCKY_DRAW, LUCKY_DRAW_2):
        cells = ld.cells(game, Composition(counts))
        stand, draw = _cells_from_every_sequence(game, Composition(counts))
        assert cells.stand_counts.dtype == np.int64 and np.array_equal(cells.stand_counts, stand)
        assert cells.draw_counts.dtype == np.int64 and np.array_equal(cells.draw_counts, draw)


@pytest.mark.slow
@pytest.mark.parametrize(("paytable", "decks"), [(1, (1, 8)), (2, (8,))],  # the smallest shoe and the rule card's
                         ids=["pay-table-1-at-1-and-8-decks", "pay-table-2-at-8-decks"])
def test_optimal_strategy_agrees_with_direct_enumeration(paytable, decks):
    game = lucky_draw(paytable)
    settle = cache(lambda seat, dealer: _settle(game, seat, dealer))  # the same hands settle alike in any shoe
    for size in decks:
        composition = Composition.full(size)
        cells = ld.cells(game, composition)
        stand, draw = cells.values(drew=False), cells.values(drew=True)
        optimal = ld.optimal_draws(cells)
        expected = F(0)
        for (s1, up, s2), (weight, ev_stand, ev_draw) in independent_cells(game, composition.counts, settle).items():
            assert stand[s1][up][s2] == ev_stand
            assert draw[s1][up][s2] == ev_draw
            assert bool(optimal[s1, up, s2]) == (ev_draw > ev_stand)
            expected += weight * max(ev_stand, ev_draw)
        analysis = analyze(game, composition)
        assert analysis.strategy is not None
        assert analysis.wagers[0].expected_value == expected
        assert analysis.strategy.results["composition"][0] == -expected


def test_the_rule_cards_house_edges_are_per_enter_under_optimal_strategy_at_8_decks():
    # The card prints 1.79% (pay table 1) and 3.34% (pay table 2).
    one = analyze(LUCKY_DRAW, Composition.full(8)).strategy
    two = analyze(LUCKY_DRAW_2, Composition.full(8)).strategy
    assert one is not None and two is not None
    assert one.results["composition"][0] == F(116701920736, 6508331087895)  # 1.7931%
    assert one.results["total"][0] == F(350665012696, 19524993263685)  # 1.7960%
    assert two.results["composition"][0] == two.results["total"][0] == F(653066236804, 19524993263685)  # 3.3448%
    assert f"{float(one.results['composition'][0]) * 100:.2f}" == "1.79"
    assert f"{float(two.results['composition'][0]) * 100:.2f}" == "3.34"
    edge, risk, draws = one.results["composition"]
    assert draws == F(257539, 372255)
    assert risk == edge / (1 + draws)


STRATEGY_CARDS = {  # seat total 0-9; up cards A,2,...,9,T
    1: ("DDDDDDDDDD", "DDDDDDDDDD", "DDDDDDDDDD", "DDDDDDDDSD", "DDDDDDDDSD",
        "DDDDDDDSSD", "SSSSSSSSSD", "DSSSSSSSSD", "SSSSSSSSSS", "DSSSSSSSSD"),
    2: ("DDDDDDDDDD", "DDDDDDDDDD", "DDDDDDDDDD", "DDDDDDDDSD", "DDDDDDDDSD",
        "DDDDDDDSSD", "SSSSSSSSSS", "SSSSSSSSSS", "SSSSSSSSSS", "SSSSSSSSSS"),
}


@pytest.mark.parametrize("paytable", [1, 2])
def test_strategy_card_at_8_decks(paytable):
    strategy = analyze(lucky_draw(paytable), Composition.full(8)).strategy
    assert strategy is not None
    assert strategy.card == STRATEGY_CARDS[paytable]


def test_deviations_are_the_cells_where_the_optimum_leaves_the_card():
    strategy = analyze(LUCKY_DRAW, Composition.full(8)).strategy
    assert strategy is not None
    ups = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
    card = {(t, up): row[i] for t, row in enumerate(strategy.card) for i, up in enumerate(ups)}
    decisions = {(a, b, up): d for a, b, up, d, _, _ in strategy.decisions}
    deviations = {(a, b, up): d for a, b, up, d in strategy.deviations}
    assert deviations == {key: d for key, d in decisions.items() if d != card[((key[0] + key[1]) % 10, key[2])]}
    assert ((9, 0, 1), "S") in [(k, d) for k, d in deviations.items()]  # 9,T against an Ace stands
    assert len(decisions) == 550


def test_enter_table_follows_the_chosen_strategy():
    total = analyze(LUCKY_DRAW, Composition.full(8), strategy="total")
    assert total.strategy is not None
    assert total.wagers[0].house_edge == total.strategy.results["total"][0]
    assert total.wagers[0].draw_probability == total.strategy.results["total"][2]
    assert sum(line.combinations for line in total.wagers[0].lines) == 4_998_398_275_503_360


@pytest.mark.parametrize("game", [LUCKY_DRAW, LUCKY_DRAW_2])
def test_effects_of_removal_sum_to_exactly_zero(game):
    composition = Composition.full(8)
    analysis = analyze(game, composition, eor=True)
    assert [w.code for w in analysis.wagers] == ["enter", "block_bonus"]
    for wager in analysis.wagers:
        assert wager.eor_check(composition) == 0


# --- Block Bonus ---------------------------------------------------------------------


def test_the_suit_renaming_shortcut_matches_the_engine_on_every_triple():
    table = event_table()
    for a, b, u in itertools.product(range(52), repeat=3):
        expected = block_bonus_event(CARD_KINDS[a], CARD_KINDS[b], CARD_KINDS[u])
        assert BLOCK_EVENTS[table[a, b, u]] == expected


def test_one_deck_counts_match_dealing_every_ordered_triple_of_real_cards():
    deck = standard_deck()
    tally = Counter(block_bonus_event(a, b, u) for a, b, u in itertools.permutations(deck, 3))
    assert block_combinations(kind_counts(1)) == {event: tally[event] for event in BLOCK_EVENTS}


def test_block_bonus_at_8_decks():
    counts = block_combinations(kind_counts(8))
    assert counts == {"Ultimate Block": 139_776, "Pair Block": 958_464, "Flush Block": 2_622_464,
                      "Normal Block": 11_501_568, "No Block": 56_250_688}
    block = analyze(LUCKY_DRAW, Composition.full(8)).wagers[1]
    assert block.house_edge == F(2267, 28635)  # 7.9169%


def test_block_bonus_needs_full_decks():
    analysis = analyze(LUCKY_DRAW, Composition.parse("30,31,32,32,32,32,32,32,32,120"))
    assert [w.code for w in analysis.wagers] == ["enter"]
    assert "full decks" in analysis.skipped["block_bonus"]


def test_a_removed_card_changes_block_bonus_counts_like_a_real_deck():
    counts = kind_counts(1)
    counts[0] -= 1  # the Ace of clubs
    deck = [c for c in standard_deck() if c != Card("A", "c")]
    tally = Counter(block_bonus_event(a, b, u) for a, b, u in itertools.permutations(deck, 3))
    assert block_combinations(counts) == {event: tally[event] for event in BLOCK_EVENTS}
    assert np.array_equal(kind_counts(2), np.full(52, 2))
