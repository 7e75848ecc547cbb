"""Expected values of a punto banco game's wagers for many shoe compositions at once.

Used by counting studies and the simulator: numpy arrays in, numpy arrays out.

How: by exchangeability, the chance of dealing a given ordered sequence of six
point values depends only on its *multiset* ``m`` of values:
``prod_v falling(c_v, m_v) / falling(N, 6)``.  So each wager's expected value
is a polynomial in the counts with one term per multiset of six values (5,005
of them).  The coefficients (the sum of the wager's pays over the sequences
of each multiset) are computed once per game from the exact analyzer's own
coup table; evaluating a shoe is then 5,005 products of falling factorials and
one dot product per wager (:mod:`baccarat.analysis.batch_kernel`).
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

import numpy as np
import numpy.typing as npt

from baccarat.analysis import cache as disk
from baccarat.analysis.composition import LABEL_VALUES, MAX_CARDS, MIN_CARDS
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game, Wager

FloatArray = npt.NDArray[np.float64]

#: Every multiset of six point values, as sorted tuples (5,005 of them).
MULTISETS = tuple(combinations_with_replacement(range(10), 6))


def _factor_tree() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every sorted multiset of 0 to 6 values, each built from its parent by one more value.

    Entry 0 is the empty multiset; the last 5,005 entries are :data:`MULTISETS`
    in order.  For entry ``t``: its parent (``t`` without its last value), the
    last value, and how many equal values the parent already holds.  Then
    ``monomial[t] = monomial[parent[t]] * (count[last[t]] - earlier[t])``.
    """
    levels: list[tuple[tuple[int, ...], ...]] = [((),)]
    for size in range(1, 7):
        levels.append(tuple(combinations_with_replacement(range(10), size)))
    position = {m: i for i, m in enumerate(m for level in levels for m in level)}
    entries = [m for level in levels for m in level][1:]
    parent = np.array([0] + [position[m[:-1]] for m in entries], dtype=np.int64)
    last = np.array([0] + [m[-1] for m in entries], dtype=np.int64)
    earlier = np.array([0] + [m[:-1].count(m[-1]) for m in entries], dtype=np.int64)
    return parent, last, earlier


def _coefficients(game: Game, wagers: tuple[Wager[Any], ...]) -> FloatArray:
    """``[wager, multiset]``: the sum of the wager's pays over the ordered sequences of each multiset."""
    from baccarat.analysis.keys import coup_table

    table = coup_table()
    grid = np.indices((10,) * 6).reshape(6, -1)  # every ordered sequence p1, b1, p2, b2, fifth, sixth
    key = (((grid[0] + grid[2]) % 10 * 10 + (grid[1] + grid[3]) % 10) * 10 + grid[4]) * 10 + grid[5]
    coup_of = table.index.ravel()[key]
    ordered = np.sort(grid, axis=0)
    code = np.zeros(grid.shape[1], dtype=np.int64)
    for row in ordered:
        code = code * 10 + row
    multiset_codes = np.array([int("".join(map(str, m))) for m in MULTISETS], dtype=np.int64)
    multiset_of = np.searchsorted(multiset_codes, code)
    coefficients = np.empty((len(wagers), len(MULTISETS)))
    for w, wager in enumerate(wagers):
        pays = np.array([float(wager.odds(coup)) for coup in table.coups])
        coefficients[w] = np.bincount(multiset_of, weights=pays[coup_of], minlength=len(MULTISETS))
    return coefficients


class BatchEvaluator:
    """EVs of every wager of a punto banco game, for a batch of shoe compositions.

    >>> from baccarat.core.registry import EZ
    >>> evaluator = BatchEvaluator(EZ)
    >>> evs = evaluator.expected_values(np.array([[4] * 9 + [16]]) * 8)  # one 8-deck shoe, A..9,T
    >>> round(float(evs[0, evaluator.codes.index("banker")]), 6)
    -0.010183
    """

    def __init__(self, game: Game) -> None:
        if game.kind != "punto_banco":
            raise ConfigurationError(f"the batch evaluator takes punto banco games, not {game.name}")
        from baccarat.analysis.punto import unpriceable

        self.game = game
        #: Wagers it cannot evaluate, and why: the polynomial is in the counts by point value, so a
        #: wager on ranks or suits is refused (``baccarat analyze`` prices it exactly for one shoe).
        self.refused: dict[str, str] = {}
        for wager in game.wagers:
            why = unpriceable(wager, game=game) or (
                None if wager.depends == "values" else
                f"it depends on the cards' {wager.depends}, and the batch evaluator works by point value") or (
                "struck cards multiply it, priced in a full shoe only (baccarat analyze)"
                if game.multiplies(wager.code) else None)
            if why is not None:
                self.refused[wager.code] = why
        wagers = tuple(w for w in game.wagers if w.code not in self.refused)
        #: Wager codes, in the order of the result's columns (the wagers on point values).
        self.codes = tuple(wager.code for wager in wagers)
        #: (parent, last value, earlier equal values) of every multiset node; see :func:`_factor_tree`.
        self.tree = _factor_tree()
        #: ``[wager, multiset]`` coefficients of each wager's polynomial (kept on disk: 0.1 s to compute).
        key = {"game": game.code, "source": game.source,
               "wagers": [[w.code, {e: str(p) for e, p in w.paytable.items()}] for w in wagers]}
        self.coefficients: FloatArray = disk.arrays(
            "batch-coefficients", key, lambda: {"coefficients": _coefficients(game, wagers)})["coefficients"]
        self._by_multiset = np.ascontiguousarray(self.coefficients.T)  # one multiset's wagers together

    def expected_values(self, shoes: npt.ArrayLike, *, order: str = "A-T") -> FloatArray:
        """EV per unit wagered, shape ``(shoes, wagers)``, for an array of shape ``(shoes, 10)``.

        Columns of ``shoes`` are card counts in the order ``A,2,...,9,T``
        (``order="A-T"``, as ``--shoe`` takes them) or by point value with the
        ten-value cards first (``order="value"``).
        """
        counts = np.asarray(shoes)
        if counts.ndim != 2 or counts.shape[1] != 10 or not np.issubdtype(counts.dtype, np.integer):
            raise ConfigurationError("shoes must be an integer array of shape (n, 10)")
        if order not in ("A-T", "value"):
            raise ConfigurationError("order must be 'A-T' or 'value'")
        counts = counts.astype(np.int64)
        if order == "A-T":
            counts = counts[:, np.argsort(LABEL_VALUES)]
        sizes = counts.sum(axis=1)
        if (counts < 0).any() or (sizes < MIN_CARDS).any() or (sizes > MAX_CARDS).any():
            raise ConfigurationError(f"every shoe needs non-negative counts and {MIN_CARDS} to {MAX_CARDS} cards")
        from baccarat.analysis.batch_kernel import LANES, evaluate  # numba: only when shoes are evaluated

        return evaluate(np.ascontiguousarray(counts), self._by_multiset, max(1, min(LANES, len(counts))))
