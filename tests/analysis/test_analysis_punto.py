"""Exact punto banco analysis: pinned fractions, and agreement with an independent enumeration.

The independent computation is ``tests/core/test_enumeration.py``: a plain walk over
every ordered value sequence (pruned where the tableau stops drawing) through
the engine's ``deal_coup``, with its own card-removal arithmetic.  The analyzer
instead groups coups by key and counts with a vectorised product.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from baccarat.analysis.analyze import analyze
from baccarat.analysis.batch import BatchEvaluator
from baccarat.analysis.batch_kernel import LANES
from baccarat.analysis.composition import Composition, falling, sequence_weights
from baccarat.analysis.keys import key_weights
from baccarat.analysis.punto import event_combinations
from baccarat.analysis.results import format_analysis
from baccarat.core.errors import ConfigurationError
from baccarat.core.registry import EZ, LUCKY_DRAW, MINI
from tests.core.test_enumeration import event_counts

#: Partly dealt shoes (counts by point value, index 0 = ten-value cards).
PARTIAL_SHOES = [
    (120, 30, 28, 31, 25, 29, 32, 27, 30, 26),
    (20, 3, 9, 1, 0, 7, 4, 8, 2, 5),
]


@pytest.mark.parametrize("decks", [1, 6, 8, 16])  # 16 decks: the largest counts, near the int64 limit
@pytest.mark.parametrize("game", [MINI, EZ], ids=["mini", "ez"])
def test_analyzer_agrees_with_the_independent_enumeration(game, decks):
    ours = event_combinations(game, Composition.full(decks))
    theirs = event_counts(game, decks)
    for code, events in ours.items():
        assert {e: n for e, n in events.items() if n} == dict(theirs[code]), code
        assert sum(events.values()) == falling(52 * decks, 6)


@pytest.mark.parametrize("shoe", PARTIAL_SHOES)
def test_partly_dealt_shoes_agree_with_the_independent_enumeration(shoe):
    ours = event_combinations(EZ, Composition(shoe))
    theirs = event_counts(EZ, shoe)
    for code, events in ours.items():
        assert {e: n for e, n in events.items() if n} == dict(theirs[code]), code


@pytest.mark.parametrize("counts", [
    (16, 4, 4, 4, 4, 4, 4, 4, 4, 4), (256,) + (64,) * 9, *PARTIAL_SHOES, (6, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    (1, 1, 1, 1, 1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 3, 3, 0, 0, 0), (0, 2, 0, 1, 0, 0, 0, 0, 4, 0),
])
def test_key_weights_are_the_six_card_sequences_summed_by_key(counts):
    """The key weights come from the first four cards' moments; here, from every six-card sequence."""
    sequences = sequence_weights(np.array(counts, dtype=np.int64), 6)  # [p1, b1, p2, b2, fifth, sixth]
    values = np.arange(10)
    second = (values[:, None] - values[None, :]) % 10
    by_player = sequences[values[None, :], :, second].sum(axis=1)  # [pt, b1, b2, fifth, sixth]
    expected = by_player[:, values[None, :], second].sum(axis=2)
    ours = key_weights(Composition(counts))
    assert ours.dtype == np.int64 and np.array_equal(ours, expected)
    assert int(ours.sum()) == falling(sum(counts), 6)


PINNED = {  # house edges, exact; 8-deck figures match the published 1.0579%, 1.2351%, 14.3596% ...
    1: {"mini": {"player": F(163679, 12724075), "banker": F(49303, 4873050), "tie": F(2003549, 12724075),
                 "dragon_bonus_player": F(163321, 5389020), "dragon_bonus_banker": F(708481, 7270900)},
        "ez": {"banker": F(492567, 50896300), "dragon_7": F(3857697, 50896300), "panda_8": F(934757, 8808975)}},
    6: {"mini": {"player": F(18880657128, 1525814595305), "banker": F(460294100, 43594702723),
                 "tie": F(220299549488, 1525814595305), "dragon_bonus_player": F(1162894363, 43594702723),
                 "dragon_bonus_banker": F(143257663701, 1525814595305)},
        "ez": {"banker": F(15503689966, 1525814595305), "dragon_7": F(116056364451, 1525814595305),
               "panda_8": F(11980441901, 117370353485)}},
    8: {"mini": {"player": F(241149546272, 19524993263685), "banker": F(114753351728, 10847218479825),
                 "tie": F(103841353768, 723147898655), "dragon_bonus_player": F(103547854751, 3904998652737),
                 "dragon_bonus_banker": F(9683026823, 103306842665)},
        "ez": {"banker": F(66274384744, 6508331087895), "dragon_7": F(64613588827, 848912750595),
               "panda_8": F(153010345753, 1501922558745)}},
}


@pytest.mark.parametrize("decks", sorted(PINNED))
def test_pinned_house_edges(decks):
    for game in (MINI, EZ):
        edges = {w.code: w.house_edge for w in analyze(game, Composition.full(decks)).wagers}
        for code, edge in PINNED[decks][game.code].items():
            assert edges[code] == edge, (game.code, code)
    independent = event_counts(MINI, decks)["banker"]
    total = sum(independent.values())
    assert -(F(19, 20) * independent["Banker wins"] - independent["Player wins"]) / total == PINNED[decks]["mini"][
        "banker"]


def test_published_8_deck_figures_in_the_report():
    analysis = analyze(MINI, Composition.full(8))
    text = format_analysis(analysis)
    assert "2,292,252,566,437,888" in text and "4,998,398,275,503,360" in text
    assert "House edge 1.0579% (1.1692% excluding ties)" in text
    banker = analysis.wagers[1]
    assert banker.code == "banker"
    assert round(float(banker.probability(banker.lines[0])), 6) == 0.458597
    assert round(banker.std_dev, 4) == 0.9274
    assert banker.hit_frequency == F(2_292_252_566_437_888, 4_998_398_275_503_360)


@pytest.mark.parametrize("game", [MINI, EZ], ids=["mini", "ez"])
@pytest.mark.parametrize("composition", [Composition.full(8), Composition(PARTIAL_SHOES[1])],
                         ids=["8 decks", "partial"])
def test_effects_of_removal_sum_to_exactly_zero(game, composition):
    analysis = analyze(game, composition, eor=True)
    for wager in analysis.wagers:
        assert wager.eor_check(composition) == 0, wager.code
        assert any(wager.eor), wager.code


def test_effect_of_removal_matches_a_direct_recomputation():
    analysis = analyze(EZ, Composition.full(8), eor=True)
    full = {w.code: w.expected_value for w in analysis.wagers}
    removed = {w.code: w.expected_value for w in analyze(EZ, Composition.full(8).without(8)).wagers}
    for wager in analysis.wagers:
        assert wager.eor is not None
        assert wager.eor[8] == removed[wager.code] - full[wager.code]


def test_dragon_7_removal_effects_follow_the_published_count():
    # Eliot Jacobson's Dragon 7 count tags 4-7 at -1 and 8-9 at +2: removing an 8 or 9 helps the
    # player most, removing a 4-7 hurts.
    eor = next(w.eor for w in analyze(EZ, Composition.full(8), eor=True).wagers if w.code == "dragon_7")
    assert eor is not None
    assert all(eor[v] < 0 for v in (4, 5, 6, 7))
    assert sorted(range(10), key=lambda v: eor[v])[-2:] in ([9, 8], [8, 9])


def test_a_shoe_too_small_or_too_big_is_refused():
    with pytest.raises(ConfigurationError, match="between 6 and 832"):
        Composition((1, 1, 1, 0, 0, 0, 0, 0, 0, 0))
    with pytest.raises(ConfigurationError, match="between 6 and 832"):
        Composition((1000,) + (0,) * 9)
    with pytest.raises(ConfigurationError, match="negative"):
        Composition((-1,) + (10,) * 9)
    with pytest.raises(ConfigurationError, match="ten whole counts"):
        Composition.parse("1,2,x,4,5,6,7,8,9,10")
    with pytest.raises(ConfigurationError, match="no card of value 8"):
        Composition(PARTIAL_SHOES[1]).without(8).without(8).without(8)


def test_parse_reads_ace_first_and_ten_value_last():
    composition = Composition.parse("1,2,3,4,5,6,7,8,9,10")
    assert composition.counts == (10, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert Composition.parse(",".join(["32"] * 9 + ["128"])).decks == 8


# --- the batch API -----------------------------------------------------------------


@pytest.fixture(scope="module")
def ez_batch():
    return BatchEvaluator(EZ)


def _by_label(counts_by_value):
    return [*counts_by_value[1:], counts_by_value[0]]


def test_batch_agrees_with_the_exact_analysis(ez_batch):
    shoes = [Composition.full(8).counts, Composition.full(1).counts, *PARTIAL_SHOES]
    evs = ez_batch.expected_values(np.array([_by_label(s) for s in shoes]))
    for row, counts in zip(evs, shoes, strict=True):
        exact = {w.code: w.expected_value for w in analyze(EZ, Composition(counts)).wagers}
        for code, value in zip(ez_batch.codes, row, strict=True):
            assert value == pytest.approx(float(exact[code]), abs=1e-12), code


def test_batch_takes_value_order_too(ez_batch):
    shoe = np.array([PARTIAL_SHOES[0]])
    by_value = ez_batch.expected_values(shoe, order="value")
    by_label = ez_batch.expected_values(np.array([_by_label(PARTIAL_SHOES[0])]))
    assert np.array_equal(by_value, by_label)


def test_batch_gives_every_shoe_the_same_value_in_any_block(ez_batch):
    # Shoes are evaluated in blocks of LANES; a shoe's value must not depend on its block or place.
    rng = np.random.default_rng(7)
    shoes = rng.integers(0, 33, size=(2 * LANES + 3, 10)) * np.array([1] * 9 + [4])
    together = ez_batch.expected_values(shoes)
    for row in (0, LANES - 1, LANES, 2 * LANES + 2):
        alone = ez_batch.expected_values(shoes[row:row + 1])[0]
        assert together[row] == pytest.approx(alone, rel=1e-13, abs=1e-15)
    assert ez_batch.expected_values(np.zeros((0, 10), dtype=int)).shape == (0, len(ez_batch.codes))


def test_batch_mini_matches_published_banker_edge():
    evs = BatchEvaluator(MINI).expected_values(np.array([[32] * 9 + [128]]))
    assert evs[0, 1] == pytest.approx(-0.010579, abs=5e-7)


@pytest.mark.parametrize("shoes", [np.zeros((2, 9), dtype=int), np.array([[1.5] * 10]), np.array([[-1] + [10] * 9]),
                                   np.array([[0] * 9 + [3]]), np.array([[100] * 10])])
def test_batch_refuses_bad_shoes(ez_batch, shoes):
    with pytest.raises(ConfigurationError):
        ez_batch.expected_values(shoes)


def test_batch_refuses_lucky_draw():
    with pytest.raises(ConfigurationError, match="punto banco"):
        BatchEvaluator(LUCKY_DRAW)
