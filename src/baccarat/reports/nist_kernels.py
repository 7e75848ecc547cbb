"""The loops of the NIST SP 800-22 battery (:mod:`baccarat.reports.nist`), compiled with numba.

Each kernel takes a validated ``uint8`` array of 0/1 bits and returns counts; the statistics
and p-values are computed in :mod:`baccarat.reports.nist_tests`.  The window helper and the
aperiodic templates are plain numpy and Python.
"""

from __future__ import annotations

from functools import cache

import numba
import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BitArray = npt.NDArray[np.uint8]

_U64 = np.uint64
_ONE = _U64(1)


def windows(bits: BitArray, length: int, *, wrap: bool = False) -> IntArray:
    """The value of every ``length``-bit window of ``bits``, most significant bit first.

    Without ``wrap`` there are ``n - length + 1`` windows; with it there are ``n``, the sequence
    being extended by its own first ``length - 1`` bits (the serial and approximate entropy tests
    count patterns on the circle).

    >>> windows(np.array([1, 0, 1, 1], dtype=np.uint8), 2).tolist()
    [2, 1, 3]
    >>> windows(np.array([1, 0, 1, 1], dtype=np.uint8), 2, wrap=True).tolist()
    [2, 1, 3, 3]
    """
    source = np.concatenate((bits, bits[: length - 1])) if wrap and length > 1 else bits
    count = len(source) - length + 1
    values = np.zeros(count, dtype=np.int64)
    # One shift-and-or pass per bit of the window: length passes over n, all in numpy.
    for offset in range(length):
        values <<= 1
        values |= source[offset: offset + count]
    return values


@cache
def aperiodic_templates(length: int) -> tuple[int, ...]:
    """The ``length``-bit templates with no proper period, as integers (first bit most significant), ascending.

    A template is aperiodic when no shift ``0 < k < length`` makes its first ``length - k`` bits
    equal to its last ``length - k`` bits: it then cannot overlap itself, which is what the
    non-overlapping template test needs.  For length 9 there are 148 (sts-2.1.2's ``template9``
    file, in the same order).

    >>> [format(t, "03b") for t in aperiodic_templates(3)]
    ['001', '011', '100', '110']
    >>> len(aperiodic_templates(9)), format(aperiodic_templates(9)[0], "09b")
    (148, '000000001')
    """
    found = []
    for value in range(1 << length):
        word = format(value, f"0{length}b")
        if all(word[shift:] != word[: length - shift] for shift in range(1, length)):
            found.append(value)
    return tuple(found)


@numba.njit(cache=True)
def non_overlapping_counts(values: IntArray, lookup: IntArray, templates: int, block_size: int,
                           blocks: int, length: int) -> IntArray:  # pragma: no cover - compiled
    """Matches of each template in each block, the window jumping past every match.

    ``values`` are the windows of the whole sequence, ``lookup[v]`` the index of template ``v``
    (or -1).  One pass serves every template at once: a match of template ``t`` at ``j`` is
    counted when ``j`` is at least ``length`` past the last match of ``t`` counted in the block,
    which is exactly where NIST's scan of ``t`` alone would look next.
    """
    counts = np.zeros((blocks, templates), dtype=np.int64)
    next_free = np.zeros(templates, dtype=np.int64)
    for block in range(blocks):
        next_free[:] = 0
        start = block * block_size
        for j in range(block_size - length + 1):
            t = lookup[values[start + j]]
            if t >= 0 and j >= next_free[t]:
                counts[block, t] += 1
                next_free[t] = j + length
    return counts


@numba.njit(cache=True)
def overlapping_counts(values: IntArray, template: int, block_size: int, blocks: int,
                       length: int) -> IntArray:  # pragma: no cover - compiled
    """Matches of ``template`` in each block, the window sliding one bit after a match too."""
    counts = np.zeros(blocks, dtype=np.int64)
    for block in range(blocks):
        start = block * block_size
        found = 0
        for j in range(block_size - length + 1):
            if values[start + j] == template:
                found += 1
        counts[block] = found
    return counts


@numba.njit(cache=True)
def longest_runs(bits: BitArray, block_size: int, blocks: int) -> IntArray:  # pragma: no cover - compiled
    """The longest run of ones in each block."""
    longest = np.zeros(blocks, dtype=np.int64)
    for block in range(blocks):
        run = 0
        best = 0
        for j in range(block * block_size, (block + 1) * block_size):
            if bits[j]:
                run += 1
                best = max(best, run)
            else:
                run = 0
        longest[block] = best
    return longest


@numba.njit(cache=True)
def matrix_ranks(bits: BitArray, rows: int, cols: int, matrices: int) -> IntArray:  # pragma: no cover - compiled
    """The rank over GF(2) of each ``rows`` x ``cols`` matrix filled row by row from ``bits`` (cols <= 64)."""
    ranks = np.zeros(matrices, dtype=np.int64)
    packed = np.zeros(rows, dtype=np.uint64)
    for k in range(matrices):
        base = k * rows * cols
        for r in range(rows):
            word = _U64(0)
            for c in range(cols):
                # column c is bit (cols - 1 - c): the first bit of a row is the most significant
                word = (word << _ONE) | _U64(bits[base + r * cols + c])
            packed[r] = word
        rank = 0
        for c in range(cols):
            mask = _ONE << _U64(cols - 1 - c)
            pivot = -1
            for r in range(rank, rows):
                if packed[r] & mask:
                    pivot = r
                    break
            if pivot < 0:
                continue
            packed[rank], packed[pivot] = packed[pivot], packed[rank]
            for r in range(rows):
                if r != rank and packed[r] & mask:
                    packed[r] ^= packed[rank]
            rank += 1
            if rank == rows:
                break
        ranks[k] = rank
    return ranks


@numba.njit(cache=True)
def _parity(word: np.uint64) -> int:  # pragma: no cover - compiled
    for shift in (32, 16, 8, 4, 2, 1):
        word ^= word >> _U64(shift)
    return int(word & _ONE)


@numba.njit(cache=True)
def _xor_shifted(target: npt.NDArray[np.uint64], source: npt.NDArray[np.uint64],
                 shift: int) -> None:  # pragma: no cover - compiled
    """target ^= source << shift, both little-endian arrays of 64-bit words."""
    words = len(target)
    whole, part = shift // 64, shift % 64
    for w in range(words - whole):
        if source[w] == 0:
            continue
        target[w + whole] ^= source[w] << _U64(part)
        if part and w + whole + 1 < words:
            target[w + whole + 1] ^= source[w] >> _U64(64 - part)


@numba.njit(cache=True)
def linear_complexities(bits: BitArray, block_size: int, blocks: int) -> IntArray:  # pragma: no cover - compiled
    """The linear complexity of each block (Berlekamp-Massey over GF(2)).

    The polynomials are packed 64 coefficients to a word (bit i of the array is the coefficient
    of x^i), and ``recent`` holds the bits read so far newest first, so the discrepancy is the
    parity of ``C & recent``: a few word operations per bit instead of a loop over the polynomial.
    """
    words = block_size // 64 + 2
    found = np.zeros(blocks, dtype=np.int64)
    c = np.zeros(words, dtype=np.uint64)
    b = np.zeros(words, dtype=np.uint64)
    t = np.zeros(words, dtype=np.uint64)
    recent = np.zeros(words, dtype=np.uint64)
    for block in range(blocks):
        c[:] = 0
        b[:] = 0
        recent[:] = 0
        c[0] = _ONE
        b[0] = _ONE
        complexity = 0
        last = -1  # the step at which the complexity last changed (m in Massey's paper)
        start = block * block_size
        for step in range(block_size):
            for w in range(words - 1, 0, -1):
                recent[w] = (recent[w] << _ONE) | (recent[w - 1] >> _U64(63))
            recent[0] = (recent[0] << _ONE) | _U64(bits[start + step])
            folded = _U64(0)
            for w in range(complexity // 64 + 1):
                folded ^= c[w] & recent[w]
            if _parity(folded) == 0:
                continue
            t[:] = c
            _xor_shifted(c, b, step - last)
            if 2 * complexity <= step:
                complexity = step + 1 - complexity
                last = step
                b[:] = t
        found[block] = complexity
    return found


@numba.njit(cache=True)
def universal_sum(bits: BitArray, length: int, init_blocks: int, test_blocks: int) -> float:  # pragma: no cover
    """Maurer's sum of log2 distances to the previous occurrence of each ``length``-bit block."""
    last_seen = np.zeros(1 << length, dtype=np.int64)
    total = 0.0
    for i in range(1, init_blocks + test_blocks + 1):
        value = 0
        for j in range((i - 1) * length, i * length):
            value = (value << 1) | bits[j]
        if i > init_blocks:
            total += np.log2(i - last_seen[value])
        last_seen[value] = i
    return total
