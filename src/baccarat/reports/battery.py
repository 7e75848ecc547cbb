"""The certification battery's tests (``baccarat certify``; the protocol in prose is docs/certification.md).

Each test reads the :class:`baccarat.reports.dealing.Tally` of the shoes dealt and gives a
:class:`Finding`: its statistic, the statistic's expected value for a perfect shuffle, the p-value, and
the cells or bins furthest from expectation.  Every expectation is exact (:mod:`baccarat.reports.exact`).

Where a shoe gives several dependent counts (the gaps of one shoe, its poker hands, its coupon runs),
the test is Hotelling's: the shoes are independent, so the mean of the per-shoe count vectors is
normal with the covariance estimated from the shoes, and ``S d' C^-1 d`` is chi-square (``d`` the
mean's distance from the exact expectation).  The tables of positions are sums of permutation tables
(both margins fixed every shoe): Pearson's statistic times ``(n - 1)/n`` is chi-square.  The extreme
tests take the largest and smallest cell of such a table, each cell exactly binomial, with Šidák's
correction over the cells.  Holm's procedure adjusts every p-value over the whole battery.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from baccarat.core.cards import standard_deck
from baccarat.reports.dealing import GAP_TOP, PER_SHOE, POKER_CLASSES, TABLES, IntArray, Tally
from baccarat.reports.exact import (
    BANKER,
    FIRST_COUP_CLASSES,
    PLAYER,
    RESULT_NAMES,
    coupon_distribution,
    exact_probabilities,
    first_coup_probabilities,
    gap_probabilities,
    poker_probabilities,
    successions_moments,
    sure_coups,
)

#: The confidence the requirements name: each test passes at p >= 1 - CONFIDENCE.
CONFIDENCE = 0.99
ALPHA = 0.01  #: 1 - CONFIDENCE, written out (the subtraction is not exactly 0.01 in floating point)
#: The sub-samples of the Kolmogorov-Smirnov test, and the fewest shoes that make it worth running.
SUB_SAMPLES = 10
SUB_SAMPLE_FLOOR = 2_000
#: Original positions are grouped in this many bands for the coarse permutation test.
BANDS = 8
_CARDS = tuple(f"{card.rank}{card.suit}" for card in standard_deck())


@dataclass(frozen=True)
class Residual:
    """One cell or bin of a test, and how far it is from expectation (``z`` in standard deviations)."""

    label: str
    observed: float
    expected: float
    z: float


@dataclass(frozen=True)
class Finding:
    """One test of the battery: what it found."""

    code: str
    name: str
    statistic_name: str
    statistic: float
    df: int | None  #: degrees of freedom of a chi-square; None for other statistics
    p_value: float
    what: str  #: what was counted, in one sentence
    adjusted_p: float = 1.0  #: Holm's adjusted p-value within the battery
    expected: float | None = None  #: the statistic's expected value for a perfect shuffle
    residuals: tuple[Residual, ...] = ()  #: the largest departures, largest first

    @property
    def passed(self) -> bool:
        """The test's own 99% criterion: p >= 0.01."""
        return self.p_value >= ALPHA


def holm(tests: Sequence[Finding], family: int = 0) -> list[Finding]:
    """``tests`` with Holm's adjusted p-values (step-down; the family-wise error is at most the level).

    ``family``: the size of the family when it has tests not in ``tests`` (their p-values taken as 1).
    """
    m = max(len(tests), family)
    order = sorted(range(len(tests)), key=lambda i: tests[i].p_value)
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * tests[i].p_value))
        adjusted[i] = running
    return [dataclasses.replace(t, adjusted_p=adjusted[i]) for i, t in enumerate(tests)]


# --- helpers ----------------------------------------------------------------------------------------------------

def _two_sided(z: float) -> float:
    return float(2 * stats.norm.sf(abs(z)))


def _top(labels: Callable[[int], str], observed: npt.NDArray[np.float64], expected: npt.NDArray[np.float64],
         sd: npt.NDArray[np.float64], k: int = 3) -> tuple[Residual, ...]:
    """The ``k`` cells furthest from expectation, in standard deviations."""
    z = ((observed - expected) / sd).ravel()
    return tuple(Residual(labels(int(i)), float(observed.ravel()[i]), float(expected.ravel()[i]), float(z[i]))
                 for i in np.argsort(-np.abs(z))[:k])


def _permutation_chi_square(table: IntArray, n: int) -> tuple[float, int, float, npt.NDArray[np.float64]]:
    """Pearson's chi-square of independence for a sum of random-permutation tables; also the expected counts.

    Each shoe adds a table whose row and column totals are fixed (every position holds one card, every
    card is somewhere): the permutation distribution, whose Pearson statistic has mean
    ``(R - 1)(C - 1) n / (n - 1)`` for ``n`` cards; times ``(n - 1) / n`` it is chi-square with
    ``(R - 1)(C - 1)`` degrees of freedom (``n`` large, every expected count large).
    """
    rows, columns = table.sum(axis=1), table.sum(axis=0)
    expected = np.outer(rows, columns) / table.sum()
    chi2 = float(((table - expected) ** 2 / expected).sum()) * (n - 1) / n
    df = (table.shape[0] - 1) * (table.shape[1] - 1)
    return chi2, df, float(stats.chi2.sf(chi2, df)), expected


def _table_test(code: str, name: str, table: IntArray, n: int, what: str,
                labels: Callable[[int], str]) -> Finding:
    chi2, df, p, expected = _permutation_chi_square(table, n)
    return Finding(code, name, "chi-square", chi2, df, p, what, expected=float(df),
                   residuals=_top(labels, table.astype(np.float64), expected, np.sqrt(expected)))


def _extreme(code: str, name: str, table: IntArray, trials: int, q: float, what: str,
             labels: Callable[[int], str]) -> Finding:
    """The largest and smallest cell of a table whose every cell is Binomial(trials, q), Šidák over the cells."""
    high, low = int(table.max()), int(table.min())
    p_cell = min(float(stats.binom.sf(high - 1, trials, q)), float(stats.binom.cdf(low, trials, q)))
    cells = table.size
    p = float(-math.expm1(cells * math.log1p(-min(1.0, 2 * p_cell))) if p_cell < 0.5 else 1.0)
    mean, sd = trials * q, math.sqrt(trials * q * (1 - q))
    z = max(abs(high - mean), abs(low - mean)) / sd
    typical = float(stats.norm.isf(math.log(2) / (2 * cells)))  # the median of the largest |z| of `cells`
    return Finding(code, name, "largest |z|", z, None, p, what, expected=typical,
                   residuals=_top(labels, table.astype(np.float64), np.full(table.shape, mean),
                                  np.full(table.shape, sd)))


def _hotelling(code: str, name: str, vectors: npt.NDArray[np.float64], mean: npt.NDArray[np.float64],
               what: str, labels: Sequence[str]) -> Finding:
    """Hotelling's test that independent per-shoe vectors have the exact ``mean`` (the last bin, fixed by the
    others, is left out)."""
    shoes = vectors.shape[0]
    d = vectors.mean(axis=0) - mean
    cov = np.atleast_2d(np.cov(vectors[:, :-1], rowvar=False))
    df = int(np.linalg.matrix_rank(cov))
    statistic = float(shoes * d[:-1] @ np.linalg.pinv(cov) @ d[:-1])
    spread = np.var(vectors, axis=0, ddof=1)
    # a bin no shoe has filled yet (a rare poker hand in a short run) has no spread: take a Poisson count's
    sd = np.sqrt(np.where(spread > 0, spread, np.maximum(mean, 1e-12)) / shoes)
    return Finding(code, name, "Hotelling T²", statistic, df, float(stats.chi2.sf(statistic, df)), what,
                   expected=float(df), residuals=_top(lambda i: labels[i], vectors.mean(axis=0), mean, sd))


def _label_position_kind(i: int) -> str:
    return f"position {i // 52 + 1}, {_CARDS[i % 52]}"


# --- the card and permutation tests ------------------------------------------------------------------------------

def card_tests(tally: Tally) -> list[Finding]:
    """The card at each position, the permutation (whole, banded, extremes), successions and shoe to shoe."""
    n, shoes = 52 * tally.decks, tally.shoes

    def by_place(i: int) -> str:
        return f"card {i // n + 1} of the unshuffled shoe at position {i % n + 1}"

    def move(i: int) -> str:
        return f"a card at position {i // n + 1} of one shoe at {i % n + 1} of the next"

    band = n // BANDS
    banded = tally.places.reshape(BANDS, band, n).sum(axis=1)
    out = [
        _table_test("positions", "Card at each position", tally.kinds, n,
                    f"the card (52 kinds) at each of the {n} positions of the shoe, against uniform",
                    _label_position_kind),
        _extreme("positions-extreme", "Commonest and rarest card at a position", tally.kinds, shoes,
                 1 / 52, "the largest and smallest count of one kind at one position, each binomial",
                 _label_position_kind),
        _table_test("permutation", "Pairwise uniformity of the permutation", tally.places, n,
                    f"where each of the {n} cards of the unshuffled shoe ends up, against uniform over the {n} "
                    "positions", by_place),
        _table_test("permutation-bands", "Permutation by bands of the unshuffled shoe", banded, n,
                    f"the {n} positions against {BANDS} bands of {band} cards of the unshuffled shoe (finds "
                    "small, spread biases such as a modulo draw)",
                    lambda i: f"band {i // n + 1} at position {i % n + 1}"),
        _extreme("permutation-extreme", "Commonest and rarest place of a card", tally.places, shoes, 1 / n,
                 "the largest and smallest count of one card of the unshuffled shoe at one position (finds a "
                 "card left in place now and then)", by_place),
        _successions(tally),
        _draws(tally),
    ]
    if shoes > 2:
        pairs = shoes - 1
        out += [
            _table_test("shoe-to-shoe", "Each card's position from one shoe to the next", tally.transitions, n,
                        f"each card's position in a shoe against its position in the next, over {pairs:,} "
                        "pairs of consecutive shoes", move),
            _extreme("shoe-to-shoe-extreme", "Commonest and rarest move from one shoe to the next",
                     tally.transitions, pairs, 1 / n,
                     "the largest and smallest count of one move (a position in a shoe to one in the next)", move),
        ]
    return out


def _successions(tally: Tally) -> Finding:
    n = 52 * tally.decks
    mean, variance = successions_moments(n)
    total = float(tally.successions.sum())
    expected = float(mean) * tally.shoes
    z = (total - expected) / math.sqrt(float(variance) * tally.shoes)
    return Finding("successions", "Cards followed by their neighbour", "z", z, None, _two_sided(z),
                   f"cards followed in the shoe by the card after them in the unshuffled shoe: {total:,.0f} "
                   f"against {expected:,.1f} (short sorts and too few riffles keep neighbours together)",
                   expected=0.0, residuals=(Residual("successions", total, expected, z),))


def _draws(tally: Tally) -> Finding:
    n = 52 * tally.decks
    variance = sum((m * m - 1) / (12 * m * m) for m in range(2, n + 1)) * tally.shoes
    total = float(tally.draws.sum())
    z = total / math.sqrt(variance)
    return Finding("fisher-yates-draws", "The Fisher-Yates draws behind each order", "z", z, None, _two_sided(z),
                   f"each order read back as the {n - 1} draws of the Fisher-Yates that makes it (one sequence an "
                   "order; independent and uniform for a uniform order): the mean place of each draw in its range "
                   "(a modulo-biased draw favours the low end)", expected=0.0)


def collision_tests(tally: Tally) -> list[Finding]:
    """Repeated shoes and repeated three-card starts: a small seed space shows as birthdays."""
    n, shoes = 52 * tally.decks, tally.shoes
    repeated = shoes - int(np.unique(tally.hashes).shape[0])
    log_orders = math.lgamma(n + 1) - 52 * math.lgamma(tally.decks + 1)
    pairs = shoes * (shoes - 1) / 2
    expected = math.exp(math.log(pairs) - log_orders) if log_orders < 700 else 0.0
    p = float(stats.poisson.sf(repeated - 1, expected)) if repeated else 1.0
    _, counts = np.unique(tally.prefixes, return_counts=True)
    same = int((counts * (counts - 1) // 2).sum())
    prefix_expected = pairs / (n * (n - 1) * (n - 2))
    z = (same - prefix_expected) / math.sqrt(prefix_expected)
    return [
        Finding("collisions", "Repeated shoes", "repeats", float(repeated), None, p,
                f"shoes whose cards come in the same order as an earlier shoe's (expected {expected:.3g} among "
                f"{shoes:,} shoes)", expected=expected),
        Finding("prefix-collisions", "Repeated three-card starts", "pairs", float(same), None,
                float(stats.poisson.sf(same - 1, prefix_expected)) if same else 1.0,
                "pairs of shoes whose first three cards are the same cards of the unshuffled shoe",
                expected=prefix_expected, residuals=(Residual("pairs", same, prefix_expected, z),)),
    ]


# --- the card stream: gap, poker, coupon collector ------------------------------------------------------------------

def stream_tests(tally: Tally) -> list[Finding]:
    """Knuth's gap, poker and coupon-collector tests on each shoe's cards, with exact expectations."""
    decks = tally.decks
    gaps = np.array([float(q) for q in gap_probabilities(decks, GAP_TOP)]) * (16 * decks - 1)
    hands = 52 * decks // 5
    poker = np.array([float(q) for q in poker_probabilities(decks, POKER_CLASSES)]) * hands
    coupon, edges = _coupon_bins(decks)
    # each shoe's two coupon runs as counts by bin (a run of n cards is in bin i when edges[i] <= n < edges[i + 1])
    coupon_vectors = np.zeros((tally.shoes, len(coupon)))
    for half in range(2):
        np.add.at(coupon_vectors, (np.arange(tally.shoes), np.digitize(tally.coupons[:, half], edges[1:-1])), 1)
    return [
        _hotelling("gap", "Gap test", tally.gaps.astype(np.float64), gaps,
                   f"gaps between consecutive ten-value cards ({16 * decks - 1} a shoe), lengths 0 to "
                   f"{GAP_TOP - 1} and longer", [f"gap {g}" for g in range(GAP_TOP)] + [f"gap {GAP_TOP}+"]),
        _hotelling("poker", "Poker test", tally.poker.astype(np.float64), poker,
                   f"the rank patterns of the {hands} disjoint five-card hands of each shoe",
                   ["+".join(map(str, c)) for c in POKER_CLASSES]),
        _hotelling("coupon", "Coupon-collector test", coupon_vectors, np.array(coupon) * 2,
                   "cards from the top of each half of the shoe until all 13 ranks have shown",
                   [_span(int(edges[i]), int(edges[i + 1]) - 1, last=i == len(coupon) - 1)
                    for i in range(len(coupon))]),
    ]


def _span(low: int, high: int, *, last: bool) -> str:
    return f"{low} cards or more" if last else f"{low} cards" if low == high else f"{low}-{high} cards"


def _coupon_bins(decks: int) -> tuple[list[float], npt.NDArray[np.float64]]:
    """Bins of at least 2% each of the coupon collector's cards (13 up), and their probabilities."""
    window = 52 * decks // 2
    pmf = coupon_distribution(decks, window)
    probabilities, edges, running = [], [13.0], 0.0
    for t, q in enumerate(pmf, start=13):
        running += float(q)
        if running >= 0.02 and sum(float(r) for r in pmf[t - 13 + 1:]) >= 0.02:
            probabilities.append(running)
            edges.append(t + 1.0)
            running = 0.0
    probabilities.append(running)
    edges.append(window + 2.0)
    return probabilities, np.array(edges)


# --- the results ------------------------------------------------------------------------------------------------

def _runs(results: npt.NDArray[np.int8]) -> tuple[float, float]:
    """Wald-Wolfowitz over shoes: (z, p) of the runs of Banker and Player results, ties left out."""
    total_runs = expected = variance = 0.0
    for row in results:
        seq = row[(row == BANKER) | (row == PLAYER)]
        n1 = float(np.count_nonzero(seq == BANKER))
        n2 = float(seq.shape[0]) - n1
        n = n1 + n2
        if n1 == 0 or n2 == 0:
            continue  # one run whatever the order: no information
        total_runs += 1 + float(np.count_nonzero(seq[1:] != seq[:-1]))
        expected += 1 + 2 * n1 * n2 / n
        variance += 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    z = (total_runs - expected) / math.sqrt(variance)
    return z, _two_sided(z)


def _lag_one(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> tuple[float, float, int]:
    """(r, z, pairs): the correlation of the pairs (x, y); z = r sqrt(pairs) under independence."""
    r = float(np.corrcoef(x, y)[0, 1])
    return r, r * math.sqrt(x.shape[0]), int(x.shape[0])


def result_tests(tally: Tally) -> list[Finding]:
    """Runs, serial correlation within and between shoes, frequencies and the first coup."""
    z, p = _runs(tally.results)
    out = [Finding("runs", "Runs of Banker and Player", "z", z, None, p,
                   "Wald-Wolfowitz runs of Banker and Player results within each shoe (ties left out), summed "
                   "over shoes", expected=0.0)]
    valid = tally.results >= 0
    coded = np.where(tally.results == BANKER, 1.0, np.where(tally.results == PLAYER, -1.0, 0.0))
    pair = valid[:, :-1] & valid[:, 1:]
    r, z, pairs = _lag_one(coded[:, :-1][pair], coded[:, 1:][pair])
    out.append(Finding("serial-rounds", "Serial correlation of consecutive rounds", "z", z, None, _two_sided(z),
                       f"lag-1 correlation r = {r:.5f} of results (Banker +1, Player -1, Tie 0) over {pairs:,} "
                       "pairs of consecutive rounds of a shoe", expected=0.0))
    margin = (coded * valid).sum(axis=1)
    r, z, pairs = _lag_one(margin[:-1], margin[1:])
    out.append(Finding("serial-shoes", "Serial correlation of consecutive shoes", "z", z, None, _two_sided(z),
                       f"lag-1 correlation r = {r:.5f} of each shoe's Banker wins minus Player wins over {pairs:,} "
                       "pairs of consecutive shoes", expected=0.0))
    out += [_frequencies(tally), _first_coup(tally), _first_coups_in_turn(tally)]
    return out


def _multinomial(code: str, name: str, observed: npt.NDArray[np.float64], probabilities: Sequence[float],
                 what: str, labels: Sequence[str]) -> Finding:
    expected = observed.sum() * np.array(probabilities)
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    df = len(probabilities) - 1
    return Finding(code, name, "chi-square", chi2, df, float(stats.chi2.sf(chi2, df)), what, expected=float(df),
                   residuals=_top(lambda i: labels[i], observed, expected, np.sqrt(expected)))


def _frequencies(tally: Tally) -> Finding:
    k = sure_coups(tally.decks, tally.cut_card)
    head = tally.results[:, :k]
    observed = np.array([np.count_nonzero(head == r) for r in range(3)], dtype=np.float64)
    exact = exact_probabilities(tally.decks)
    shares = ", ".join(f"{name} {o / observed.sum():.5f} (exactly {float(q):.5f})"
                       for name, o, q in zip(RESULT_NAMES, observed, exact, strict=True))
    return _multinomial("frequencies", "Result frequencies against the exact probabilities", observed,
                        [float(q) for q in exact],
                        f"the first {k} coups of every shoe ({int(observed.sum()):,} coups): {shares}", RESULT_NAMES)


def _first_coup(tally: Tally) -> Finding:
    keys = tally.first_keys
    pt, bt = keys // 1000, (keys // 100) % 10
    natural = (pt >= 8) | (bt >= 8)
    result = tally.results[:, 0].astype(np.int64)
    classes = result * 2 + np.where(natural, 0, 1)
    observed = np.bincount(classes, minlength=len(FIRST_COUP_CLASSES)).astype(np.float64)
    return _multinomial("first-coup", "The first coup of each shoe", observed,
                        [float(q) for q in first_coup_probabilities(tally.decks)],
                        "the result of each shoe's first coup and whether it was a natural, against the exact "
                        "probabilities (a rigged first coup shows here)",
                        [f"{r} {'natural' if n else 'drawn'}" for r, n in FIRST_COUP_CLASSES])


def _first_coups_in_turn(tally: Tally) -> Finding:
    first = tally.results[:, 0].astype(np.int64)
    table = np.zeros((3, 3))
    np.add.at(table, (first[:-1], first[1:]), 1)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    chi2, p, df, expected = stats.chi2_contingency(table, correction=False)
    return Finding("first-coups-in-turn", "First coups of consecutive shoes", "chi-square", float(chi2), int(df),
                   float(p), "each shoe's first result against the previous shoe's first result",
                   expected=float(df), residuals=_top(lambda i: f"{RESULT_NAMES[i // 3]} then {RESULT_NAMES[i % 3]}",
                                                      table, expected, np.sqrt(expected)))


# --- the battery ---------------------------------------------------------------------------------------------------

def sub_sample_test(tally: Tally) -> Finding | None:
    """Kolmogorov-Smirnov: the p-values of the per-shoe tests over ``SUB_SAMPLES`` consecutive sub-samples
    are uniform (a shuffle that drifts, or fails in bursts, shows here); None below ``SUB_SAMPLE_FLOOR`` shoes."""
    if tally.shoes < SUB_SAMPLE_FLOOR:
        return None
    p_values: list[float] = []
    bounds = np.linspace(0, tally.shoes, SUB_SAMPLES + 1).astype(int)
    for a, b in itertools.pairwise(bounds):
        part = _shoes(tally, int(a), int(b))
        p_values += [t.p_value for t in (*result_tests(part), *stream_tests(part), _successions(part), _draws(part))]
    statistic, p = stats.kstest(p_values, "uniform")
    return Finding("sub-samples", "Kolmogorov-Smirnov of the sub-samples' p-values", "D", float(statistic), None,
                   float(p), f"the {len(p_values)} p-values of the result, stream, succession and draw tests on "
                             f"{SUB_SAMPLES} consecutive sub-samples of the shoes, against uniform",
                   expected=float(math.sqrt(math.pi / 2) * math.log(2) / math.sqrt(len(p_values))))


def _shoes(tally: Tally, a: int, b: int) -> Tally:
    """The shoes ``a`` to ``b - 1`` of ``tally`` (their per-shoe figures; the tables are left empty)."""
    changes: dict[str, Any] = {**dict.fromkeys(TABLES, np.zeros((0, 0), dtype=np.int64)),
                               **{name: getattr(tally, name)[a:b] for name in PER_SHOE}}
    return dataclasses.replace(tally, **changes)


def battery(tally: Tally) -> list[Finding]:
    """Run every test on ``tally`` (Holm's adjustment is made over the whole family by the caller)."""
    tests = [*card_tests(tally), *collision_tests(tally), *stream_tests(tally), *result_tests(tally)]
    sub = sub_sample_test(tally)
    return tests if sub is None else [*tests, sub]
