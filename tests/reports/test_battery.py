"""The battery's pieces: its exact expectations (each against a second, independent count), the figures the
dealing takes from each shoe (against a plain recount), and each defect caught by the test made for it."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from math import comb, prod

import numpy as np
import numpy.typing as npt
import pytest

from baccarat.core.cards import standard_deck
from baccarat.reports.battery import ALPHA, battery, holm
from baccarat.reports.dealing import GAP_TOP, POKER_CLASSES, ServerShuffle, deal
from baccarat.reports.defects import DEFECTS, FromPrevious, KeySort, LastCardInPlace, PerShoe, RiggedFirstCoup, defect
from baccarat.reports.exact import (
    coupon_distribution,
    exact_probabilities,
    first_coup_probabilities,
    gap_distribution,
    poker_probabilities,
    successions_moments,
)

# --- the exact expectations, each counted a second way ---------------------------------------------------------


def test_the_gap_law_is_the_count_of_every_arrangement() -> None:
    n, m, top = 11, 4, 3
    counts: Counter[int] = Counter()
    for marks in itertools.combinations(range(n), m):
        for a, b in itertools.pairwise(marks):
            counts[min(b - a - 1, top)] += 1
    total = comb(n, m) * (m - 1)
    assert gap_distribution(n, m, top) == tuple(Fraction(counts[g], total) for g in range(top + 1))


def test_the_poker_law_is_the_count_of_every_hand_of_one_deck() -> None:
    # Every way to take five cards of one deck, grouped by how many of each rank: C(4, k) cards a rank.
    ways: Counter[tuple[int, ...]] = Counter()

    def takings(ranks: int, cards: int) -> list[tuple[int, ...]]:  # how many of each rank, summing to cards
        if ranks == 0:
            return [()] if cards == 0 else []
        return [(k, *rest) for k in range(min(4, cards) + 1) for rest in takings(ranks - 1, cards - k)]

    for taken in takings(13, 5):
        ways[tuple(sorted((k for k in taken if k), reverse=True))] += prod(comb(4, k) for k in taken)
    assert poker_probabilities(1, POKER_CLASSES) == tuple(Fraction(ways[c], comb(52, 5)) for c in POKER_CLASSES)


@pytest.mark.parametrize("decks", [1, 8])
def test_the_coupon_law_is_the_walk_of_ranks_seen(decks: int) -> None:
    # A second count: after t cards with r ranks seen, the next card is a new rank with probability
    # (13 - r) c / (n - t), whatever else happened (each unseen rank still has all its c cards).
    n, c, window = 52 * decks, 4 * decks, 26 * decks
    state = {0: Fraction(1)}
    done = [Fraction(0)] * (window + 1)
    for t in range(window):
        step: dict[int, Fraction] = {}
        for r, q in state.items():
            new = Fraction((13 - r) * c, n - t)
            step[r + 1] = step.get(r + 1, Fraction(0)) + q * new
            step[r] = step.get(r, Fraction(0)) + q * (1 - new)
        done[t + 1] = step.pop(13, Fraction(0))
        state = step
    assert coupon_distribution(decks, window) == (*done[13:], sum(state.values(), Fraction(0)))


def test_the_successions_moments_are_those_of_every_order_of_seven() -> None:
    counts = [sum(b == a + 1 for a, b in itertools.pairwise(p)) for p in itertools.permutations(range(7))]
    mean = Fraction(sum(counts), len(counts))
    assert successions_moments(7) == (mean, Fraction(sum(c * c for c in counts), len(counts)) - mean**2)


def test_the_first_coup_classes_add_up_to_the_coup_s_results() -> None:
    classes = first_coup_probabilities(8)
    assert sum(classes) == 1
    assert tuple(classes[2 * r] + classes[2 * r + 1] for r in range(3)) == exact_probabilities(8)
    # A natural: the first two cards of either hand make 8 or 9, about 0.2 + 0.2 - (both); published 0.3426.
    naturals = classes[0] + classes[2] + classes[4]
    assert abs(float(naturals) - 0.3426) < 0.0005


# --- the figures the dealing takes from each shoe ----------------------------------------------------------------

RANK = [i % 13 for i in range(52)]
VALUE = [card.value for card in standard_deck()]


def _recount(order: npt.NDArray[np.int16]) -> dict[str, object]:
    """Each figure of one shoe, counted plainly."""
    kinds = [int(o) % 52 for o in order]
    ranks = [RANK[k] for k in kinds]
    marks = [p for p, k in enumerate(kinds) if VALUE[k] == 0]
    gaps = Counter(min(b - a - 1, GAP_TOP) for a, b in itertools.pairwise(marks))
    hands = Counter(tuple(sorted(Counter(ranks[h:h + 5]).values(), reverse=True)) for h in range(0, 415, 5))

    def coupon(start: int) -> int:
        seen: set[int] = set()
        for p in range(start, start + 208):
            seen.add(ranks[p])
            if len(seen) == 13:
                return p - start + 1
        return 209

    # the Fisher-Yates draws, found by undoing the shuffle from the top
    current, draws = list(range(416)), 0.0
    for i in range(415, 0, -1):
        j = current.index(int(order[i]))
        draws += (j + 0.5) / (i + 1) - 0.5
        current[i], current[j] = current[j], current[i]
    return {"successions": sum(int(b) == int(a) + 1 for a, b in itertools.pairwise(order)),
            "gaps": [gaps[g] for g in range(GAP_TOP + 1)], "poker": [hands[c] for c in POKER_CLASSES],
            "coupons": [coupon(0), coupon(208)], "prefix": (int(order[0]) * 416 + int(order[1])) * 416 + int(order[2]),
            "draws": draws}


def test_each_shoe_s_figures_are_its_plain_recount() -> None:
    shuffler = ServerShuffle(8, seed=21)
    tally = deal(12, shuffler=shuffler)
    orders = shuffler(1, 12)
    for s, order in enumerate(orders):
        plain = _recount(order)
        assert tally.successions[s] == plain["successions"]
        assert tally.gaps[s].tolist() == plain["gaps"]
        assert tally.poker[s].tolist() == plain["poker"]
        assert tally.coupons[s].tolist() == plain["coupons"]
        assert tally.prefixes[s] == plain["prefix"]
        assert tally.draws[s] == pytest.approx(plain["draws"], abs=1e-9)
    moves = np.zeros((416, 416), dtype=np.int64)
    for a, b in itertools.pairwise(orders):
        where = {int(o): p for p, o in enumerate(b)}
        for p, o in enumerate(a):
            moves[p, where[int(o)]] += 1
    assert (tally.transitions == moves).all()
    assert len(set(tally.hashes.tolist())) == 12


def test_equal_shoes_hash_alike_and_a_swap_of_two_like_cards_is_the_same_shoe() -> None:
    order = np.random.default_rng(1).permutation(416).astype(np.int16)
    twin = order.copy()
    a, b = (int(np.flatnonzero(order % 52 == 5)[k]) for k in (0, 1))  # two copies of the same card
    twin[a], twin[b] = twin[b], twin[a]

    class Fixed(PerShoe):
        def __call__(self, first: int, count: int) -> npt.NDArray[np.int16]:
            return np.stack([order, twin, order[::-1].copy()])[first - 1:first - 1 + count]

    hashes = deal(3, shuffler=Fixed()).hashes
    assert hashes[0] == hashes[1] != hashes[2]


# --- each defect, caught by the test made for it -------------------------------------------------------------------

def rejected(shuffler: PerShoe, shoes: int) -> set[str]:
    tests = holm(battery(deal(shoes, shuffler=shuffler)))
    return {t.code for t in tests if t.adjusted_p <= ALPHA}


@pytest.mark.parametrize(("shuffler", "shoes", "test"), [
    (FromPrevious(seed=2, rate=0.5), 400, "shoe-to-shoe-extreme"),
    (FromPrevious(seed=2, rate=0.05, reversed=False), 400, "collisions"),
    (LastCardInPlace(seed=2, rate=0.2), 400, "permutation-extreme"),
    (KeySort(seed=2, bits=6), 400, "successions"),
    (RiggedFirstCoup(seed=2, rate=0.5), 400, "first-coup"),
], ids=["reversed", "replayed", "last-card", "short-keys", "rigged"])
def test_a_gross_defect_is_caught_by_its_test_in_a_few_hundred_shoes(shuffler: PerShoe, shoes: int,
                                                                       test: str) -> None:
    assert test in rejected(shuffler, shoes)


def test_a_perfect_shuffle_is_rejected_by_none_of_them() -> None:
    assert rejected(PerShoe(seed=2), 400) == set()


def test_the_rigged_first_coup_is_a_banker_natural_that_wins() -> None:
    rigged = RiggedFirstCoup(seed=4, rate=1.0)
    tally = deal(50, shuffler=rigged)
    keys = tally.first_keys
    assert ((keys // 100) % 10 == 9).all() and (tally.results[:, 0] == 0).all()


def test_defects_are_known_by_code() -> None:
    assert [d.code for d in DEFECTS][:2] == ["naive", "modulo-8-bit"]
    assert defect("riffles-10").make(3) == KeySort(seed=3, bits=10, riffles=True)
    with pytest.raises(KeyError, match="known: naive"):
        defect("nope")
