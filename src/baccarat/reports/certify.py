"""The certification battery (``baccarat certify``): the statistics a test lab asks of a shuffle.

Regulators' RNG requirements (25 CFR 547.14, GLI-19 as publicly summarised; docs/requirements.md)
ask that the outcomes be statistically independent and fairly distributed, shown by chi-square,
runs and serial-correlation tests at 99% confidence.  This module deals many shoes exactly as the
table server does and runs those tests on them:

* the shoe: :func:`baccarat.core.fair.shoe_key` of the algorithm of new shoes (a server seed and the players'
  client seeds) and the HMAC-SHA256 Fisher-Yates of :func:`baccarat.core.fair.fair_cards`;
* the server seed of each shoe: 32 bytes from the operating system's generator
  (:func:`baccarat.core.fair.new_server_seed`), or, for a run that can be repeated, derived from
  ``seed`` and the shoe's number;
* the shoe procedure (burn, cut card, one more coup) and the punto banco tableau of the simulator's
  kernels (:mod:`baccarat.sim.kernels`), which deal shoes to the bit as :class:`baccarat.core.shoe.Shoe`.

Speed: the permutation is computed from the same HMAC stream by a compiled Fisher-Yates
(:func:`_fisher_yates`), and every ``CHECK_EVERY``-th shoe (the first included) is shuffled again by
:func:`baccarat.core.fair.fair_cards` itself; a difference stops the run (:class:`ShuffleMismatch`).
The tests compare the two on 800 seeds and on a stream with rejections put in by hand.

Every test gives its statistic, p-value and the 99% criterion (p >= 0.01); the verdict controls the
family-wise error at 1% over all the tests with Holm's step-down procedure.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, Protocol

import numba
import numpy as np
import numpy.typing as npt
from scipy import stats

from baccarat.core.cards import standard_deck
from baccarat.core.errors import BaccaratError, ConfigurationError
from baccarat.core.fair import ALGORITHM, fair_cards, new_server_seed, shoe_key
from baccarat.core.registry import get_game
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS, burn_count, check_cut_card, check_decks
from baccarat.sim.kernels import punto_banco_coup

IntArray = npt.NDArray[np.int64]

#: The confidence the requirements name: each test passes at p >= 1 - CONFIDENCE.
CONFIDENCE = 0.99
ALPHA = 0.01  #: 1 - CONFIDENCE, written out (the subtraction is not exactly 0.01 in floating point)
#: A lab's default: enough for the position tests to have 24 shoes a cell and to find both biased shuffles.
DEFAULT_SHOES = 10_000
#: Every this many shoes (and the first) the shoe is shuffled again by fair.fair_cards and compared.
CHECK_EVERY = 997
#: The client seeds each shoe takes (the server takes those of the players who bet; any will do).
CLIENT_SEEDS = ("certification-lab",)
#: Results as the kernels write them.
BANKER, PLAYER, TIE = 0, 1, 2
RESULT_NAMES = ("Banker", "Player", "Tie")
_BLOCK_WORDS = 8  # 32-bit words in one HMAC-SHA256 block
_CHUNK = 2_000  # shoes a worker deals between two progress reports


class ShuffleMismatch(BaccaratError):
    """The compiled shuffle and :func:`baccarat.core.fair.fair_cards` disagreed on a shoe."""


class Shuffler(Protocol):
    """Deals the permutations of shoes ``first`` to ``first + count - 1``.

    Returns an int16 array ``[count, 52 * decks]``: at each position, the position the card had in
    the unshuffled shoe (``decks`` copies of :func:`baccarat.core.cards.standard_deck`).
    """

    @property
    def decks(self) -> int: ...  # pragma: no cover - protocol

    def __call__(self, first: int, count: int) -> npt.NDArray[np.int16]: ...  # pragma: no cover - protocol


def derived_server_seed(seed: int, shoe: int) -> bytes:
    """The server seed of shoe ``shoe`` in a run seeded ``seed`` (a run that can be repeated)."""
    return hashlib.sha256(f"baccarat certify {seed} shoe {shoe}".encode()).digest()


@numba.njit(cache=True)
def _fisher_yates(words: npt.NDArray[np.uint32], order: npt.NDArray[np.int16]) -> int:  # pragma: no cover
    """fair.py steps 4-5 on the stream ``words``: ``order`` is shuffled in place.

    Returns the number of words used, or -1 when ``words`` ran out (rejections took the spare ones).
    """
    used = 0
    for i in range(order.shape[0] - 1, 0, -1):
        n = np.uint64(i + 1)
        limit = np.uint64(2**32) - np.uint64(2**32) % n
        while True:
            if used == words.shape[0]:
                return -1
            w = np.uint64(words[used])
            used += 1
            if w < limit:
                break
        j = int(w % n)
        order[i], order[j] = order[j], order[i]
    return used


def stream_words(key: bytes, blocks: int) -> npt.NDArray[np.uint32]:
    """fair.py step 3: the first ``blocks`` HMAC-SHA256 blocks of the stream of ``key``, as 32-bit words."""
    data = b"".join([hmac.digest(key, k.to_bytes(8, "big"), "sha256") for k in range(blocks)])
    return np.frombuffer(data, dtype=">u4").astype(np.uint32)


def server_permutation(key: bytes, decks: int) -> npt.NDArray[np.int16]:
    """The permutation :func:`baccarat.core.fair.fair_cards` makes for ``key``, computed fast."""
    size = 52 * decks
    blocks = -(-size // _BLOCK_WORDS)  # one word a swap (size - 1) and a spare
    while True:
        order = np.arange(size, dtype=np.int16)
        if _fisher_yates(stream_words(key, blocks), order) >= 0:
            return order
        blocks += 2  # a rejection or two used the spare: a longer stream, the same start


@dataclass(frozen=True)
class ServerShuffle:
    """The table server's shoes: :func:`shoe_key` of the algorithm of new shoes, then the HMAC-SHA256 Fisher-Yates.

    ``seed`` None: every server seed from the operating system's generator, as the server makes them.
    """

    decks: int = DEFAULT_DECKS
    seed: int | None = None
    client_seeds: tuple[str, ...] = CLIENT_SEEDS

    def __call__(self, first: int, count: int) -> npt.NDArray[np.int16]:
        """The permutations of shoes ``first`` ... ``first + count - 1`` (see :class:`Shuffler`)."""
        deck = standard_deck()
        index = {card: i for i, card in enumerate(deck)}
        out = np.empty((count, 52 * self.decks), dtype=np.int16)
        for row in range(count):
            number = first + row
            server_seed = new_server_seed() if self.seed is None else derived_server_seed(self.seed, number)
            key = shoe_key(ALGORITHM, server_seed, self.client_seeds)
            out[row] = server_permutation(key, self.decks)
            if number % CHECK_EVERY == 1:  # shoe 1, and every CHECK_EVERY-th after it
                cards = fair_cards(key, self.decks)
                if [index[card] for card in cards] != [int(o) % 52 for o in out[row]]:
                    raise ShuffleMismatch(f"shoe {number}: the compiled shuffle differs from fair.fair_cards")
        return out


@numba.njit(cache=True)
def _tally(orders: npt.NDArray[np.int16], value_of: IntArray, burn: IntArray, cut_card: int,
           player_draws: IntArray, banker_draws: IntArray, natural: IntArray, winner_of_key: IntArray,
           kinds: IntArray, places: IntArray, results: npt.NDArray[np.int8],
           coups: IntArray) -> None:  # pragma: no cover - compiled
    """Count each shoe's cards by position and deal it: ``results[s, k]`` is coup ``k``'s result."""
    size = orders.shape[1]
    values = np.empty(size, dtype=np.int64)
    cut_index = size - cut_card
    for s in range(orders.shape[0]):
        for p in range(size):
            origin = orders[s, p]
            kinds[p, origin % 52] += 1
            places[origin, p] += 1
            values[p] = value_of[origin % 52]
        pos = 1 + burn[values[0]]
        last = False
        k = 0
        while size - pos >= 6:  # the procedure of sim.kernels.punto_banco_shoe
            key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
            results[s, k] = winner_of_key[key]
            k += 1
            if last:
                break
            if pos > cut_index:
                last = True
        coups[s] = k


@cache
def _game_tables(code: str) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The tableau as the kernels read it and the result (Banker, Player, Tie) of every coup key."""
    from baccarat.analysis.keys import coup_table
    from baccarat.sim.outcome_tables import punto_banco_tables

    tables = punto_banco_tables(code)
    table = coup_table()
    winners = np.array([RESULT_NAMES.index(c.winner.capitalize()) for c in table.coups], dtype=np.int64)
    return tables.player_draws, tables.banker_draws, tables.natural, winners[table.index.ravel()]


def exact_probabilities(decks: int) -> tuple[Fraction, Fraction, Fraction]:
    """Banker, Player and Tie of one punto banco coup from a full shoe, exactly (the analysis's count)."""
    from baccarat.analysis.composition import Composition
    from baccarat.analysis.keys import coup_table, key_weights

    weights = key_weights(Composition.full(decks)).ravel()
    table = coup_table()
    by_result = [0, 0, 0]
    for key, weight in enumerate(weights):
        by_result[RESULT_NAMES.index(table.coups[table.index.ravel()[key]].winner.capitalize())] += int(weight)
    total = sum(by_result)
    return Fraction(by_result[0], total), Fraction(by_result[1], total), Fraction(by_result[2], total)


def sure_coups(decks: int, cut_card: int) -> int:
    """How many coups every shoe deals whatever its cards (the most burned, six cards a coup).

    The frequency test counts these only: whether a shoe deals one more coup depends on the cards
    dealt before, so the coups near the cut card are not a fair sample (the cut-card effect), while
    each of the first coups of a well-shuffled shoe has exactly the full shoe's probabilities.
    """
    most_burned = 1 + max(burn_count(card) for card in standard_deck())
    return (52 * decks - cut_card - most_burned) // 6 + 1


@dataclass
class Tally:
    """What the shoes dealt: card kind by position, original position by position, each coup's result."""

    decks: int
    cut_card: int
    kinds: IntArray  #: [position, card kind (standard_deck order)]
    places: IntArray  #: [original position, position]
    results: npt.NDArray[np.int8]  #: [shoe, coup]; -1 past the shoe's last coup
    coups: IntArray  #: [shoe] coups dealt

    @property
    def shoes(self) -> int:
        """Shoes dealt."""
        return int(self.coups.shape[0])


def _deal_chunk(shuffler: Shuffler, game: str, cut_card: int, first: int, count: int) -> Tally:
    player_draws, banker_draws, natural, winner_of_key = _game_tables(game)
    size = 52 * shuffler.decks
    value_of = np.array([card.value for card in standard_deck()], dtype=np.int64)
    burn = np.array([burn_count(next(c for c in standard_deck() if c.value == v)) for v in range(10)],
                    dtype=np.int64)
    kinds = np.zeros((size, 52), dtype=np.int64)
    places = np.zeros((size, size), dtype=np.int64)
    results = np.full((count, size // 4 + 1), -1, dtype=np.int8)
    coups = np.zeros(count, dtype=np.int64)
    orders = shuffler(first, count)
    _tally(orders, value_of, burn, cut_card, player_draws, banker_draws, natural, winner_of_key, kinds, places,
           results, coups)
    return Tally(shuffler.decks, cut_card, kinds, places, results, coups)


def deal(shoes: int, *, shuffler: Shuffler, game: str = "mini", cut_card: int = DEFAULT_CUT_CARD,
         workers: int = 1, progress: Callable[[int], None] | None = None) -> Tally:
    """Deal ``shoes`` shoes of ``shuffler`` at a table of ``game`` and tally them (``workers`` processes).

    ``progress`` is called with the number of shoes dealt so far.
    """
    if not isinstance(shoes, int) or isinstance(shoes, bool) or shoes < 2:
        raise ConfigurationError(f"shoes must be an integer of at least 2, got {shoes!r}")
    decks = check_decks(shuffler.decks)
    check_cut_card(cut_card, 52 * decks)
    if get_game(game).kind != "punto_banco":
        raise ConfigurationError(f"the certification battery deals punto banco games; {game!r} is "
                                 f"{get_game(game).kind.replace('_', ' ')} (its shoes are the same shuffle: "
                                 "certify a punto banco game at the same decks)")
    starts = list(range(1, shoes + 1, _CHUNK))
    size = 52 * decks
    kinds = np.zeros((size, 52), dtype=np.int64)
    places = np.zeros((size, size), dtype=np.int64)
    results: list[npt.NDArray[np.int8]] = []
    coups: list[IntArray] = []

    def add(part: Tally) -> None:
        np.add(kinds, part.kinds, out=kinds)  # the tables are added as the chunks come, not kept
        np.add(places, part.places, out=places)
        results.append(part.results)
        coups.append(part.coups)
        if progress is not None:
            progress(sum(c.shape[0] for c in coups))

    if workers <= 1:
        for start in starts:
            add(_deal_chunk(shuffler, game, cut_card, start, min(_CHUNK, shoes + 1 - start)))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # map keeps the shoes in order: the test between consecutive shoes reads that order.
            for part in pool.map(_deal_chunk, *zip(*[(shuffler, game, cut_card, s, min(_CHUNK, shoes + 1 - s))
                                                     for s in starts], strict=True)):
                add(part)
    return Tally(decks, cut_card, kinds, places, np.concatenate(results), np.concatenate(coups))


# --- the tests ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Finding:
    """One test of the battery: what it found."""

    code: str
    name: str
    statistic_name: str
    statistic: float
    df: int | None  #: degrees of freedom of a chi-square; None for a normal z
    p_value: float
    what: str  #: what was counted, in one sentence
    adjusted_p: float = 1.0  #: Holm's adjusted p-value within the battery

    @property
    def passed(self) -> bool:
        """The test's own 99% criterion: p >= 0.01."""
        return self.p_value >= ALPHA


def _permutation_chi_square(table: IntArray, n: int) -> tuple[float, int, float]:
    """Pearson's chi-square of independence for a sum of random-permutation tables.

    Each shoe adds a table whose row and column totals are fixed (every position holds one card, every
    card is somewhere): the permutation distribution, whose Pearson statistic has mean
    ``(R - 1)(C - 1) n / (n - 1)`` for ``n`` cards; times ``(n - 1) / n`` it is chi-square with
    ``(R - 1)(C - 1)`` degrees of freedom (``n`` large, every expected count large).
    """
    rows, columns = table.sum(axis=1), table.sum(axis=0)
    expected = np.outer(rows, columns) / table.sum()
    chi2 = float(((table - expected) ** 2 / expected).sum()) * (n - 1) / n
    df = (table.shape[0] - 1) * (table.shape[1] - 1)
    return chi2, df, float(stats.chi2.sf(chi2, df))


def _two_sided(z: float) -> float:
    return float(2 * stats.norm.sf(abs(z)))


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


def battery(tally: Tally) -> list[Finding]:
    """Run every test on ``tally``; each result carries Holm's adjusted p-value."""
    size = 52 * tally.decks
    tests: list[Finding] = []
    chi2, df, p = _permutation_chi_square(tally.kinds, size)
    tests.append(Finding("positions", "Card at each position", "chi-square", chi2, df, p,
                            f"the card (52 kinds) at each of the {size} positions of the shoe, against uniform"))
    chi2, df, p = _permutation_chi_square(tally.places, size)
    tests.append(Finding("permutation", "Pairwise uniformity of the permutation", "chi-square", chi2, df, p,
                            f"where each of the {size} cards of the unshuffled shoe ends up, against uniform "
                            f"over the {size} positions"))
    z, p = _runs(tally.results)
    tests.append(Finding("runs", "Runs of Banker and Player", "z", z, None, p,
                            "Wald-Wolfowitz runs of Banker and Player results within each shoe (ties left out), "
                            "summed over shoes"))
    valid = tally.results >= 0
    coded = np.where(tally.results == BANKER, 1.0, np.where(tally.results == PLAYER, -1.0, 0.0))
    pair = valid[:, :-1] & valid[:, 1:]
    r, z, pairs = _lag_one(coded[:, :-1][pair], coded[:, 1:][pair])
    tests.append(Finding("serial-rounds", "Serial correlation of consecutive rounds", "z", z, None,
                            _two_sided(z), f"lag-1 correlation r = {r:.5f} of results (Banker +1, Player -1, "
                                           f"Tie 0) over {pairs:,} pairs of consecutive rounds of a shoe"))
    margin = (coded * valid).sum(axis=1)
    r, z, pairs = _lag_one(margin[:-1], margin[1:])
    tests.append(Finding("serial-shoes", "Serial correlation of consecutive shoes", "z", z, None,
                            _two_sided(z), f"lag-1 correlation r = {r:.5f} of each shoe's Banker wins minus Player "
                                           f"wins over {pairs:,} pairs of consecutive shoes"))
    tests.append(_frequencies(tally))
    return holm(tests)


def _frequencies(tally: Tally) -> Finding:
    k = sure_coups(tally.decks, tally.cut_card)
    head = tally.results[:, :k]
    observed = np.array([np.count_nonzero(head == r) for r in (BANKER, PLAYER, TIE)], dtype=np.float64)
    exact = exact_probabilities(tally.decks)
    expected = observed.sum() * np.array([float(q) for q in exact])
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    shares = ", ".join(f"{name} {o / observed.sum():.5f} (exactly {float(q):.5f})"
                       for name, o, q in zip(RESULT_NAMES, observed, exact, strict=True))
    return Finding("frequencies", "Result frequencies against the exact probabilities", "chi-square", chi2, 2,
                      float(stats.chi2.sf(chi2, 2)),
                      f"the first {k} coups of every shoe ({int(observed.sum()):,} coups): {shares}")


def holm(tests: Sequence[Finding]) -> list[Finding]:
    """``tests`` with Holm's adjusted p-values (step-down; the family-wise error is at most the level)."""
    m = len(tests)
    order = sorted(range(m), key=lambda i: tests[i].p_value)
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * tests[i].p_value))
        adjusted[i] = running
    return [Finding(t.code, t.name, t.statistic_name, t.statistic, t.df, t.p_value, t.what, adjusted[i])
            for i, t in enumerate(tests)]


@dataclass(frozen=True)
class Certification:
    """A run of the battery: its settings, every test, and the verdict."""

    game: str
    shoes: int
    decks: int
    cut_card: int
    seed: int | None  #: None: server seeds from the operating system's generator
    coups: int
    tests: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        """The verdict: no test rejected by Holm's procedure at 1% family-wise."""
        return all(t.adjusted_p > ALPHA for t in self.tests)

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object (``baccarat certify --json``)."""
        return {
            "game": self.game, "shoes": self.shoes, "decks": self.decks, "cut_card": self.cut_card,
            "seed": self.seed, "algorithm": ALGORITHM, "client_seeds": list(CLIENT_SEEDS), "coups": self.coups,
            "confidence": CONFIDENCE, "family_wise_error": ALPHA, "correction": "holm",
            "verdict": "pass" if self.passed else "fail",
            "tests": [{"code": t.code, "name": t.name, "statistic_name": t.statistic_name,
                       "statistic": t.statistic, "df": t.df, "p_value": t.p_value, "adjusted_p": t.adjusted_p,
                       "criterion": f"p >= {ALPHA:.2f}", "passed": t.passed, "what": t.what} for t in self.tests],
        }


def certify(shoes: int = DEFAULT_SHOES, *, game: str = "mini", decks: int = DEFAULT_DECKS,
            cut_card: int = DEFAULT_CUT_CARD, seed: int | None = None, workers: int | None = None,
            shuffler: Shuffler | None = None, progress: Callable[[int], None] | None = None) -> Certification:
    """Deal ``shoes`` shoes as the server does (or by ``shuffler``) and run the battery on them.

    ``workers`` None: one process per CPU core.
    """
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ConfigurationError(f"seed must be a non-negative integer, got {seed!r}")
    chosen: Shuffler = ServerShuffle(check_decks(decks), seed) if shuffler is None else shuffler
    tally = deal(shoes, shuffler=chosen, game=game, cut_card=cut_card,
                 workers=(os.cpu_count() or 1) if workers is None else workers, progress=progress)
    return Certification(game, shoes, chosen.decks, cut_card, seed, int(tally.coups.sum()), tuple(battery(tally)))
