"""What a perfectly shuffled shoe gives, exactly: the expectations the battery's tests compare against.

Every figure is counted from the shoe's composition (no simulation): the results of a coup from a full
shoe (the analysis's key weights), the gaps between ten-value cards, the rank patterns of five cards
and the cards needed to see every rank, all for cards drawn without replacement from ``decks`` decks.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from math import comb, factorial

import numpy as np

from baccarat.core.cards import standard_deck
from baccarat.core.shoe import burn_count

#: Results as the kernels write them.
BANKER, PLAYER, TIE = 0, 1, 2
RESULT_NAMES = ("Banker", "Player", "Tie")
#: The first-coup test's classes: (result, natural) in this order.
FIRST_COUP_CLASSES = tuple((result, natural) for result in RESULT_NAMES for natural in (True, False))


def _coup_classes(decks: int) -> tuple[list[int], list[int]]:
    """Weights of each (result) and of each (result, natural) of one coup from a full shoe."""
    from baccarat.analysis.composition import Composition
    from baccarat.analysis.keys import coup_table, key_weights

    weights = key_weights(Composition.full(decks))
    table = coup_table()
    by_result = [0, 0, 0]
    by_class = [0] * len(FIRST_COUP_CLASSES)
    for (pt, bt, fifth, sixth), w in np.ndenumerate(weights):
        weight = int(w)
        result = RESULT_NAMES.index(table.coups[table.index[pt, bt, fifth, sixth]].winner.capitalize())
        by_result[result] += weight
        by_class[result * 2 + (0 if pt >= 8 or bt >= 8 else 1)] += weight
    return by_result, by_class


@cache
def exact_probabilities(decks: int) -> tuple[Fraction, Fraction, Fraction]:
    """Banker, Player and Tie of one punto banco coup from a full shoe, exactly (the analysis's count)."""
    by_result, _ = _coup_classes(decks)
    total = sum(by_result)
    return Fraction(by_result[0], total), Fraction(by_result[1], total), Fraction(by_result[2], total)


@cache
def first_coup_probabilities(decks: int) -> tuple[Fraction, ...]:
    """Each of :data:`FIRST_COUP_CLASSES` for the first coup of a shoe, exactly.

    The first coup is dealt after the exposed card and the burn, whose length depends on that card; but
    given the exposed card the rest of a well-shuffled shoe is in random order, so the coup is a coup
    from the shoe less that card, and averaged over the exposed card it is a coup from the full shoe.
    """
    _, by_class = _coup_classes(decks)
    total = sum(by_class)
    return tuple(Fraction(w, total) for w in by_class)


def sure_coups(decks: int, cut_card: int) -> int:
    """How many coups every shoe deals whatever its cards (the most burned, six cards a coup).

    The frequency test counts these only: whether a shoe deals one more coup depends on the cards
    dealt before, so the coups near the cut card are not a fair sample (the cut-card effect), while
    each of the first coups of a well-shuffled shoe has exactly the full shoe's probabilities.
    """
    most_burned = 1 + max(burn_count(card) for card in standard_deck())
    return (52 * decks - cut_card - most_burned) // 6 + 1


def gap_probabilities(decks: int, top: int) -> tuple[Fraction, ...]:
    """The gap between two consecutive ten-value cards: P(0), ..., P(top - 1), P(top or more).

    With ``m`` marked cards among ``n`` in random order every composition of the ``n - m`` others into
    ``m + 1`` gaps is equally likely, so one gap is ``g`` in ``C(n - g - 1, m - 1)`` of ``C(n, m)``
    and at least ``g`` in ``C(n - g, m)``.
    """
    return gap_distribution(52 * decks, 16 * decks, top)


def gap_distribution(n: int, m: int, top: int) -> tuple[Fraction, ...]:
    """:func:`gap_probabilities` for ``m`` marked cards among ``n``."""
    whole = comb(n, m)
    return (*(Fraction(comb(n - g - 1, m - 1), whole) for g in range(top)), Fraction(comb(n - top, m), whole))


def poker_probabilities(decks: int, classes: tuple[tuple[int, ...], ...]) -> tuple[Fraction, ...]:
    """Each rank pattern (``classes``: multiplicities, largest first) of five cards from the shoe.

    A pattern with ``k`` ranks takes them in ``13! / ((13 - k)! r_1! r_2! ...)`` ways (``r_j`` ranks
    share a multiplicity), and ``C(c, part)`` cards of each of the ``c = 4 decks`` copies of a rank.
    """
    copies = 4 * decks
    out = []
    for parts in classes:
        same = 1
        for size in set(parts):
            same *= factorial(parts.count(size))
        ways = factorial(13) // (factorial(13 - len(parts)) * same)
        for part in parts:
            ways *= comb(copies, part)
        out.append(Fraction(ways, comb(13 * copies, sum(parts))))
    return tuple(out)


def coupon_distribution(decks: int, window: int) -> tuple[Fraction, ...]:
    """P(T = t) for t = 13 ... window, then P(T > window): T the cards until every rank has shown.

    All 13 ranks are among the first ``t`` cards with probability
    ``sum_k (-1)^k C(13, k) C(n - c k, t) / C(n, t)`` (inclusion-exclusion over the ranks missing).
    """
    n, copies = 52 * decks, 4 * decks

    def by(t: int) -> Fraction:
        return sum((Fraction((-1) ** k * comb(13, k) * comb(n - copies * k, t), comb(n, t)) for k in range(14)),
                   Fraction(0))

    cumulative = [by(t) for t in range(12, window + 1)]
    return (*(b - a for a, b in itertools.pairwise(cumulative)), 1 - cumulative[-1])


def successions_moments(size: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of the cards followed by their successor (in the unshuffled shoe) in a random order.

    Each of the ``n - 1`` pairs is adjacent in order with probability ``1/n``; any two pairs (sharing a
    card or not) both are with probability ``1/(n (n - 1))``.
    """
    n = size
    mean = Fraction(n - 1, n)
    second = mean + Fraction((n - 1) * (n - 2), n * (n - 1))
    return mean, second - mean**2
