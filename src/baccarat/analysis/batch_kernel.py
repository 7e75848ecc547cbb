"""The compiled evaluation behind :class:`baccarat.analysis.batch.BatchEvaluator`.

Apart from :mod:`baccarat.analysis.batch` so that building an evaluator (its polynomial's
coefficients, which counting studies use by themselves) does not import numba.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Shoes evaluated together, one per lane: every step of the evaluation is a loop across a block of
#: shoes, which the compiler turns into vector instructions.  128 keeps a block's working set
#: (60 rows of falling factors, the partial products, the totals) in the processor's L1 and L2 caches.
LANES = 128


@numba.njit(parallel=True, cache=True, fastmath=True)
def evaluate(counts: npt.NDArray[np.int64], coefficients: FloatArray,
             lanes: int) -> FloatArray:  # pragma: no cover - compiled
    """``[shoe, wager]`` expected values; ``coefficients[multiset, wager]`` in the order of ``batch.MULTISETS``.

    The multisets are visited depth first, in that same (lexicographic) order, as six nested
    loops over ``v1 <= v2 <= ... <= v6``; level ``k`` multiplies the product of level ``k - 1``
    by ``falling[v_k, e]``, the count of ``v_k`` less ``e``, the number of equal values before
    it.  So each partial product is made once and used by all its extensions, nothing is
    stored per multiset, and the terms are added in ``MULTISETS`` order.

    ``lanes`` is an argument, not a constant, on purpose: a loop of unknown length is what the
    compiler vectorises with one overlap check per loop; a short constant loop is unrolled into
    scalar code instead, since numba's arrays might overlap.  Rows are indexed as ``a[row, b]``
    (not ``a[row * lanes + b]``): a computed index could be negative as far as the compiler
    knows, and numba's wrap-around of negative indices then costs a branch per element.
    """
    shoes = counts.shape[0]
    wagers = coefficients.shape[1]
    out = np.empty((shoes, wagers))
    blocks = (shoes + lanes - 1) // lanes
    for block in numba.prange(blocks):
        start = block * lanes
        width = min(lanes, shoes - start)
        falling = np.zeros((60, lanes))  # row v * 6 + e: max(count of v - e, 0)
        size = np.zeros(lanes)
        for b in range(width):
            for v in range(10):
                count = counts[start + b, v]
                size[b] += count
                for e in range(6):
                    falling[v * 6 + e, b] = max(count - e, 0)
        product = np.empty((6, lanes))  # product[k]: the first k values' factors
        total = np.zeros((wagers, lanes))
        term = np.empty(lanes)
        t = 0
        for v1 in range(10):
            for b in range(lanes):
                product[1, b] = falling[v1 * 6, b]
            for v2 in range(v1, 10):
                e2 = 1 if v2 == v1 else 0
                for b in range(lanes):
                    product[2, b] = product[1, b] * falling[v2 * 6 + e2, b]
                for v3 in range(v2, 10):
                    e3 = e2 + 1 if v3 == v2 else 0
                    for b in range(lanes):
                        product[3, b] = product[2, b] * falling[v3 * 6 + e3, b]
                    for v4 in range(v3, 10):
                        e4 = e3 + 1 if v4 == v3 else 0
                        for b in range(lanes):
                            product[4, b] = product[3, b] * falling[v4 * 6 + e4, b]
                        for v5 in range(v4, 10):
                            e5 = e4 + 1 if v5 == v4 else 0
                            for b in range(lanes):
                                product[5, b] = product[4, b] * falling[v5 * 6 + e5, b]
                            for v6 in range(v5, 10):
                                e6 = e5 + 1 if v6 == v5 else 0
                                for b in range(lanes):
                                    term[b] = product[5, b] * falling[v6 * 6 + e6, b]
                                for w in range(wagers):
                                    k = coefficients[t, w]
                                    for b in range(lanes):
                                        total[w, b] += k * term[b]
                                t += 1
        for b in range(width):
            n = size[b]
            denominator = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
            for w in range(wagers):
                out[start + b, w] = total[w, b] / denominator
    return out
