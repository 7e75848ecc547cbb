"""A cross-check of the rules: enumerate every coup through the engine's own ``deal_coup``
and wager classifiers, and compare with published combination counts and house edges.

Six-card convention (``specs/analysis.md``): a coup counts as an ordered sequence of six
cards, so a coup that used k cards stands for (N-k)(N-k-1)...(N-5) sequences.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import cache

import pytest

from baccarat.core.cards import Card
from baccarat.core.coup import Coup, deal_coup
from baccarat.core.games import Game
from baccarat.core.registry import EZ, MINI

#: One card of each point value (index = value; 0 stands for tens and pictures).
VALUE_CARDS = [Card("T", "s")] + [Card(rank, "s") for rank in "A23456789"]


def _falling(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result *= n - i
    return result


@cache
def _coup(player_two: int, banker_two: int, third: int, sixth: int) -> Coup:
    """The engine's coup for two-card totals and the next two card values.

    Outcomes depend on card values only through the two-card totals, so each
    hand is dealt as (its total, a ten); the coup takes the fifth and sixth
    cards only if the tableau says so.
    """
    order = iter([VALUE_CARDS[player_two], VALUE_CARDS[banker_two], VALUE_CARDS[0], VALUE_CARDS[0],
                  VALUE_CARDS[third], VALUE_CARDS[sixth]])
    return deal_coup(lambda: next(order))


def coup_weights(decks: int) -> tuple[tuple[Coup, int], ...]:
    """Every distinct coup outcome with its six-card-convention weight, for full decks."""
    return shoe_coup_weights((16 * decks,) + (4 * decks,) * 9)


@cache
def shoe_coup_weights(shoe: tuple[int, ...]) -> tuple[tuple[Coup, int], ...]:
    """Every distinct coup outcome with its six-card-convention weight; ``shoe[v]`` cards of value v."""
    counts = list(shoe)
    total = sum(counts)
    weights: Counter[tuple[int, int, int, int, int]] = Counter()
    for p1 in range(10):
        w1 = counts[p1]
        counts[p1] -= 1
        for b1 in range(10):
            w2 = w1 * counts[b1]
            counts[b1] -= 1
            for p2 in range(10):
                w3 = w2 * counts[p2]
                counts[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * counts[b2]
                    if not w4:
                        continue
                    counts[b2] -= 1
                    pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
                    used = len(_coup(pt, bt, 0, 0).deal_order)
                    if used == 4:
                        weights[(pt, bt, 0, 0, 4)] += w4 * _falling(total - 4, 2)
                    for x in range(10) if used > 4 else ():
                        w5 = w4 * counts[x]
                        counts[x] -= 1
                        if len(_coup(pt, bt, x, 0).deal_order) == 5:
                            weights[(pt, bt, x, 0, 5)] += w5 * (total - 5)
                        else:
                            for y in range(10):
                                weights[(pt, bt, x, y, 6)] += w5 * counts[y]
                        counts[x] += 1
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1
    return tuple((_coup(pt, bt, x, y), w) for (pt, bt, x, y, _), w in weights.items() if w)


def event_counts(game: Game, decks: int | tuple[int, ...]) -> dict[str, Counter[str]]:
    tallies: dict[str, Counter[str]] = {w.code: Counter() for w in game.wagers}
    weights = coup_weights(decks) if isinstance(decks, int) else shoe_coup_weights(decks)
    for coup, weight in weights:
        for wager in game.wagers:
            tallies[wager.code][wager.event(coup)] += weight
    return tallies


def house_edge(game: Game, code: str, decks: int) -> Fraction:
    wager = game.wager(code)
    counts = event_counts(game, decks)[code]
    total = sum(counts.values())
    return -sum(Fraction(n, total) * wager.paytable[event] for event, n in counts.items())


def test_published_8_deck_banker_player_tie_combinations() -> None:
    counts = event_counts(MINI, 8)["player"]
    assert counts["Banker wins"] == 2_292_252_566_437_888
    assert counts["Player wins"] == 2_230_518_282_592_256
    assert counts["Tie"] == 475_627_426_473_216
    assert sum(counts.values()) == 4_998_398_275_503_360 == _falling(416, 6)


def test_published_8_deck_banker_house_edge_1_0579_percent() -> None:
    assert float(house_edge(MINI, "banker", 8)) == pytest.approx(0.010579, abs=5e-7)
    assert float(house_edge(MINI, "player", 8)) == pytest.approx(0.012351, abs=5e-7)
    assert float(house_edge(MINI, "tie", 8)) == pytest.approx(0.143596, abs=5e-7)


def test_published_8_deck_ez_baccarat_combinations() -> None:
    # Wizard of Odds, EZ Baccarat (8 decks): Banker house edge 1.02%, Dragon 7 7.61%, Panda 8 10.19%.
    counts = event_counts(EZ, 8)
    assert counts["banker"]["Banker wins"] == 2_179_619_555_108_864
    assert counts["banker"]["Dragon 7 (Banker pushes)"] == counts["dragon_7"]["Dragon 7"] == 112_633_011_329_024
    assert counts["panda_8"]["Panda 8"] == 172_660_763_262_976
    assert float(house_edge(EZ, "banker", 8)) == pytest.approx(0.010183, abs=5e-7)
    assert float(house_edge(EZ, "dragon_7", 8)) == pytest.approx(0.076113, abs=5e-7)
    assert float(house_edge(EZ, "panda_8", 8)) == pytest.approx(0.101876, abs=5e-7)


PUBLISHED_DRAGON_BONUS = {  # Wizard of Odds, baccarat appendix 5, 8 decks
    "dragon_bonus_player": {
        "Win by 9": 18_409_431_764_992, "Win by 8": 34_097_645_543_424, "Win by 7": 89_590_261_473_280,
        "Win by 6": 141_238_897_317_888, "Win by 5": 166_169_165_987_840, "Win by 4": 186_780_352_174_080,
        "Natural win": 812_685_054_124_032, "Natural tie": 89_325_908_267_520,
    },
    "dragon_bonus_banker": {
        "Win by 9": 15_390_342_909_952, "Win by 8": 28_305_092_784_128, "Win by 7": 79_517_099_278_336,
        "Win by 6": 119_200_072_366_080, "Win by 5": 157_275_882_332_160, "Win by 4": 201_147_167_287_296,
        "Natural win": 812_685_054_124_032, "Natural tie": 89_325_908_267_520,
    },
}


@pytest.mark.parametrize(("code", "edge"), [("dragon_bonus_player", 0.026517), ("dragon_bonus_banker", 0.093731)])
def test_published_8_deck_dragon_bonus_combinations(code: str, edge: float) -> None:
    counts = event_counts(MINI, 8)[code]
    for event, combinations in PUBLISHED_DRAGON_BONUS[code].items():
        assert counts[event] == combinations, event
    assert float(house_edge(MINI, code, 8)) == pytest.approx(edge, abs=5e-7)


def test_one_deck_total_is_52_falling_6() -> None:
    counts = event_counts(MINI, 1)["tie"]
    assert sum(counts.values()) == _falling(52, 6)
