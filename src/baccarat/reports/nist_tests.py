"""The fifteen tests of NIST SP 800-22 rev. 1a, one function each (the battery is :mod:`baccarat.reports.nist`).

Every function takes one sequence, a ``uint8`` numpy array of 0/1 bits (:func:`bits_of` makes one
from bytes), and NIST's parameters as keywords with sts-2.1.2's defaults; it returns the tuple of
the sequence's p-values, empty when the test does not apply (the random excursions tests with too
few cycles).  Parameters a test cannot be computed with raise
:class:`~baccarat.core.errors.ConfigurationError`.  The section numbers are SP 800-22's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

from baccarat.core.errors import ConfigurationError
from baccarat.reports import nist_kernels as kernels
from baccarat.reports.nist_kernels import BitArray

PValues = tuple[float, ...]

#: 2.4: (bits at least, block size M, the classes' longest runs from lowest to highest, their
#: probabilities), the probabilities as sts-2.1.2 has them (those for M = 10,000 to four places).
LONGEST_RUN_TABLES = (
    (128, 8, (1, 2, 3, 4), (0.21484375, 0.3671875, 0.23046875, 0.1875)),
    (6272, 128, (4, 5, 6, 7, 8, 9),
     (0.1174035788, 0.242955959, 0.249363483, 0.17517706, 0.102701071, 0.112398847)),
    (750_000, 10_000, (10, 11, 12, 13, 14, 15, 16), (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
)
#: 2.8: the probabilities of 0, 1, 2, 3, 4 and 5 or more matches of the 9-bit template of ones in a
#: 1032-bit block, as rev. 1a and sts-2.1.2 list them (Hamano and Kaneko's correction).
OVERLAPPING_PROBABILITIES = (0.364091, 0.185659, 0.139381, 0.100571, 0.0704323, 0.139865)
#: 2.9: Maurer's test's block length L by sequence length (the least n for each L), as sts-2.1.2.
UNIVERSAL_LENGTHS = ((387_840, 6), (904_960, 7), (2_068_480, 8), (4_654_080, 9), (10_342_400, 10),
                     (22_753_280, 11), (49_643_520, 12), (107_560_960, 13), (231_669_760, 14),
                     (496_435_200, 15), (1_059_061_760, 16))
#: 2.9: the expected value and variance of the statistic for L = 1 to 16.
UNIVERSAL_EXPECTED = (0.7326495, 1.5374383, 2.4016068, 3.3112247, 4.2534266, 5.2177052, 6.1962507,
                      7.1836656, 8.1764248, 9.1723243, 10.170032, 11.168765, 12.168070, 13.167693,
                      14.167488, 15.167379)
UNIVERSAL_VARIANCE = (0.690, 1.338, 1.901, 2.358, 2.705, 2.954, 3.125, 3.238, 3.311, 3.356, 3.384,
                      3.401, 3.410, 3.416, 3.419, 3.421)
#: 2.10: the probabilities of the seven classes of T, exactly (the spec prints 0.010417 ... 0.020833;
#: sts-2.1.2 has 0.01047 for the first, a typing slip).
LINEAR_COMPLEXITY_PROBABILITIES = tuple(float(Fraction(1, d)) for d in (96, 32, 8, 2, 4, 16, 48))
#: 2.14 and 2.15: the states of the random excursions tests.
EXCURSION_STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = (-9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9)


def bits_of(data: bytes) -> BitArray:
    """The bits of ``data``, most significant bit of each byte first.

    >>> bits_of(b"\\xa0").tolist()
    [1, 0, 1, 0, 0, 0, 0, 0]
    """
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


def as_bits(bits: npt.ArrayLike, *, least: int = 1, test: str = "the test") -> BitArray:
    """``bits`` as a ``uint8`` array of 0/1, refused unless it is one-dimensional, all 0/1, ``least`` long or more."""
    array = np.asarray(bits)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_):
        raise ConfigurationError(f"{test}: the bits must be a one-dimensional array of integers 0 and 1")
    if len(array) and (array.min() < 0 or array.max() > 1):
        others = [int(value) for value in np.unique(array) if value not in (0, 1)]
        raise ConfigurationError(f"{test}: the bits must be 0 or 1, not {', '.join(map(str, others[:3]))}")
    if len(array) < least:
        raise ConfigurationError(f"{test} needs at least {least:,} bit{'s' * (least != 1)}, not {len(array):,}")
    return array.astype(np.uint8, copy=False)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigurationError(message)


def _igamc(a: float, x: float) -> float:
    """NIST's igamc: the regularised upper incomplete gamma function Q(a, x)."""
    return float(special.gammaincc(a, x))


def _chi_square(observed: Sequence[float] | npt.NDArray[Any], expected: Sequence[float] | npt.NDArray[Any]) -> float:
    o, e = np.asarray(observed, dtype=float), np.asarray(expected, dtype=float)
    return float(np.sum((o - e) ** 2 / e))


def frequency(bits: npt.ArrayLike) -> PValues:
    """2.1 Frequency (monobit): the balance of ones and zeros."""
    b = as_bits(bits, test="frequency")
    s = 2 * int(np.count_nonzero(b)) - len(b)
    return (math.erfc(abs(s) / math.sqrt(len(b)) / math.sqrt(2)),)


def block_frequency(bits: npt.ArrayLike, *, block_size: int = 128) -> PValues:
    """2.2 Frequency within a block: the share of ones in each ``block_size``-bit block."""
    b = as_bits(bits, least=block_size, test="block-frequency")
    _require(block_size >= 1, "block-frequency: the block size must be 1 or more")
    blocks = len(b) // block_size
    shares = b[: blocks * block_size].reshape(blocks, block_size).sum(axis=1) / block_size
    chi2 = 4.0 * block_size * float(np.sum((shares - 0.5) ** 2))
    return (_igamc(blocks / 2, chi2 / 2),)


def runs(bits: npt.ArrayLike) -> PValues:
    """2.3 Runs: the number of runs of identical bits.

    Its prerequisite is the frequency test's: when the share of ones is 2/sqrt(n) or more away
    from one half, the test is not run and its p-value is 0.0, as 2.3.4 says.
    """
    b = as_bits(bits, least=2, test="runs")
    n, ones = len(b), int(np.count_nonzero(b))
    # |pi - 1/2| >= 2/sqrt(n) in integers: (2 ones - n)^2 >= 16 n, so that the boundary is exact
    if (2 * ones - n) ** 2 >= 16 * n:
        return (0.0,)
    pi = ones / n
    v_obs = 1 + int(np.count_nonzero(b[1:] != b[:-1]))
    spread = 2.0 * pi * (1 - pi)
    return (math.erfc(abs(v_obs - n * spread) / (spread * math.sqrt(2 * n))),)


def longest_run(bits: npt.ArrayLike) -> PValues:
    """2.4 Longest run of ones in a block, the block size M chosen by n (8, 128 or 10,000)."""
    b = as_bits(bits, least=LONGEST_RUN_TABLES[0][0], test="longest-run")
    _, block_size, classes, probabilities = [table for table in LONGEST_RUN_TABLES if len(b) >= table[0]][-1]
    blocks = len(b) // block_size
    longest = np.clip(kernels.longest_runs(b, block_size, blocks), classes[0], classes[-1]) - classes[0]
    observed = np.bincount(longest, minlength=len(classes))
    chi2 = _chi_square(observed, blocks * np.asarray(probabilities))
    return (_igamc((len(classes) - 1) / 2, chi2 / 2),)


def rank_probabilities(rows: int, cols: int) -> tuple[float, float, float]:
    """The probabilities that a random ``rows`` x ``cols`` matrix over GF(2) has full rank, one less, or less.

    >>> [round(p, 4) for p in rank_probabilities(32, 32)]
    [0.2888, 0.5776, 0.1336]
    """
    full = min(rows, cols)

    def exactly(r: int) -> float:
        product = 1.0
        for i in range(r):
            product *= (1 - 2.0 ** (i - rows)) * (1 - 2.0 ** (i - cols)) / (1 - 2.0 ** (i - r))
        return 2.0 ** (r * (rows + cols - r) - rows * cols) * product

    top, next_ = exactly(full), exactly(full - 1)
    return top, next_, 1 - top - next_


def matrix_rank(bits: npt.ArrayLike, *, rows: int = 32, cols: int = 32) -> PValues:
    """2.5 Binary matrix rank: the ranks of disjoint ``rows`` x ``cols`` matrices (up to 64 columns)."""
    _require(rows >= 2 and 2 <= cols <= 64, "rank: the matrices must be 2 rows high or more and 2 to 64 columns wide")
    b = as_bits(bits, least=rows * cols, test="rank")
    matrices = len(b) // (rows * cols)
    ranks = kernels.matrix_ranks(b, rows, cols, matrices)
    full = min(rows, cols)
    observed = [int(np.count_nonzero(ranks == full)), int(np.count_nonzero(ranks == full - 1)),
                int(np.count_nonzero(ranks < full - 1))]
    chi2 = _chi_square(observed, matrices * np.asarray(rank_probabilities(rows, cols)))
    return (math.exp(-chi2 / 2),)


def dft(bits: npt.ArrayLike) -> PValues:
    """2.6 Discrete Fourier transform (spectral): the share of peaks below the 95% threshold.

    With rev. 1a's threshold sqrt(ln(1/0.05) n) and variance n (0.95)(0.05)/4.
    """
    b = as_bits(bits, least=2, test="dft")
    n = len(b)
    moduli = np.abs(np.fft.rfft(2.0 * b - 1.0)[: n // 2])
    threshold = math.sqrt(math.log(1 / 0.05) * n)
    below = int(np.count_nonzero(moduli < threshold))
    d = (below - 0.95 * n / 2) / math.sqrt(n * 0.95 * 0.05 / 4)
    return (math.erfc(abs(d) / math.sqrt(2)),)


def _template_values(templates: Sequence[str] | None, length: int) -> list[int]:
    if templates is None:
        return list(kernels.aperiodic_templates(length))
    _require(bool(templates), "non-overlapping-template: give one template or more")
    _require(all(len(t) == length and set(t) <= {"0", "1"} for t in templates),
             f"non-overlapping-template: the templates must be strings of {length} bits")
    return [int(t, 2) for t in templates]


def template_names(length: int = 9) -> tuple[str, ...]:
    """The aperiodic templates of ``length`` bits as bit strings, in the order of the non-overlapping p-values."""
    return tuple(format(t, f"0{length}b") for t in kernels.aperiodic_templates(length))


def non_overlapping_template(bits: npt.ArrayLike, *, template_length: int = 9, blocks: int = 8,
                             templates: Sequence[str] | None = None) -> PValues:
    """2.7 Non-overlapping template matching: one p-value per template (by default all the aperiodic ones).

    The sequence is cut into ``blocks`` blocks; in each, the window jumps past every match.
    """
    _require(2 <= template_length <= 21, "non-overlapping-template: the template length must be 2 to 21")
    _require(blocks >= 1, "non-overlapping-template: there must be 1 block or more")
    b = as_bits(bits, least=blocks * template_length, test="non-overlapping-template")
    values = _template_values(templates, template_length)
    block_size = len(b) // blocks
    lookup = np.full(1 << template_length, -1, dtype=np.int64)
    lookup[values] = np.arange(len(values))
    counts = kernels.non_overlapping_counts(kernels.windows(b, template_length), lookup, len(values), block_size,
                                            blocks, template_length)
    mean = (block_size - template_length + 1) / 2**template_length
    variance = block_size * (1 / 2**template_length - (2 * template_length - 1) / 2 ** (2 * template_length))
    chi2 = np.sum((counts - mean) ** 2, axis=0) / variance
    p_values = special.gammaincc(blocks / 2, chi2 / 2)
    # a template listed twice reads the same counts twice: index by position, not by value
    return tuple(float(p_values[lookup[v]]) for v in values)


def overlapping_probabilities(template_length: int, block_size: int, classes: int = 6) -> tuple[float, ...]:
    """2.8's probabilities of 0, 1, ... and ``classes - 1`` or more matches, from its formula (eta = lambda/2).

    For the default test (9 bits in 1032) rev. 1a lists corrected values instead
    (:data:`OVERLAPPING_PROBABILITIES`); the formula is what sts-2.1.2 computes at run time.
    """
    eta = (block_size - template_length + 1) / 2**template_length / 2
    found = [math.exp(-eta)]
    for u in range(1, classes - 1):
        found.append(sum(math.exp(-eta - u * math.log(2) + ell * math.log(eta) - math.lgamma(ell + 1)
                                  + math.lgamma(u) - math.lgamma(ell) - math.lgamma(u - ell + 1))
                         for ell in range(1, u + 1)))
    return (*found, 1 - sum(found))


def overlapping_template(bits: npt.ArrayLike, *, template_length: int = 9, block_size: int = 1032,
                         probabilities: Sequence[float] | None = None) -> PValues:
    """2.8 Overlapping template matching: the template of ``template_length`` ones, sliding a bit after a match too.

    ``probabilities`` of 0 to 4 and 5 or more matches per block default to rev. 1a's list for 9
    bits in 1032 and to :func:`overlapping_probabilities` for other sizes.
    """
    _require(2 <= template_length <= 21 and block_size > template_length,
             "overlapping-template: the template must be 2 to 21 bits, shorter than the block")
    b = as_bits(bits, least=block_size, test="overlapping-template")
    if probabilities is None:
        default = (template_length, block_size) == (9, 1032)
        probabilities = OVERLAPPING_PROBABILITIES if default else overlapping_probabilities(template_length, block_size)
    _require(len(probabilities) == 6, "overlapping-template: give six probabilities (0 to 4 matches, 5 or more)")
    blocks = len(b) // block_size
    matches = kernels.overlapping_counts(kernels.windows(b, template_length), (1 << template_length) - 1,
                                         block_size, blocks, template_length)
    observed = np.bincount(np.minimum(matches, 5), minlength=6)
    chi2 = _chi_square(observed, blocks * np.asarray(probabilities))
    return (_igamc(5 / 2, chi2 / 2),)


def universal_parameters(n: int) -> tuple[int, int]:
    """Maurer's block length L and initialisation blocks Q = 10 2^L for ``n`` bits (2.9's table).

    >>> universal_parameters(1_000_000)
    (7, 1280)
    """
    lengths = [length for least, length in UNIVERSAL_LENGTHS if n >= least]
    _require(bool(lengths), f"universal needs at least {UNIVERSAL_LENGTHS[0][0]:,} bits, not {n:,}")
    return lengths[-1], 10 * 2 ** lengths[-1]


def universal(bits: npt.ArrayLike, *, block_length: int | None = None, init_blocks: int | None = None) -> PValues:
    """2.9 Maurer's universal statistical test: the distances between repeats of L-bit blocks.

    L and Q default to 2.9's table by n; sigma carries the c(L, K) correction
    c = 0.7 - 0.8/L + (4 + 32/L) K^(-3/L) / 15.
    """
    b = as_bits(bits, test="universal")
    if block_length is None:
        block_length, default_init = universal_parameters(len(b))
        init_blocks = default_init if init_blocks is None else init_blocks
    _require(1 <= block_length <= 16, "universal: the block length L must be 1 to 16")
    init_blocks = 10 * 2**block_length if init_blocks is None else init_blocks
    test_blocks = len(b) // block_length - init_blocks
    _require(init_blocks >= 1 and test_blocks >= 1,
             f"universal: {len(b):,} bits hold no test blocks after {init_blocks:,} blocks of {block_length} bits")
    statistic = kernels.universal_sum(b, block_length, init_blocks, test_blocks) / test_blocks
    c = 0.7 - 0.8 / block_length + (4 + 32 / block_length) * test_blocks ** (-3 / block_length) / 15
    sigma = c * math.sqrt(UNIVERSAL_VARIANCE[block_length - 1] / test_blocks)
    return (math.erfc(abs(statistic - UNIVERSAL_EXPECTED[block_length - 1]) / (math.sqrt(2) * sigma)),)


def linear_complexity(bits: npt.ArrayLike, *, block_size: int = 500,
                      probabilities: Sequence[float] | None = None) -> PValues:
    """2.10 Linear complexity: Berlekamp-Massey on each ``block_size``-bit block, seven classes of T.

    ``probabilities`` default to the exact 1/96, 1/32, 1/8, 1/2, 1/4, 1/16, 1/48.
    """
    _require(block_size >= 2, "linear-complexity: the block size must be 2 or more")
    b = as_bits(bits, least=block_size, test="linear-complexity")
    probabilities = LINEAR_COMPLEXITY_PROBABILITIES if probabilities is None else tuple(probabilities)
    _require(len(probabilities) == 7, "linear-complexity: give seven probabilities")
    blocks = len(b) // block_size
    complexities = kernels.linear_complexities(b, block_size, blocks)
    m = block_size
    mean = m / 2 + (9 + (-1) ** (m + 1)) / 36 - (m / 3 + 2 / 9) / 2**m
    t = (-1) ** m * (complexities - mean) + 2 / 9
    # classes: T <= -2.5, (-2.5, -1.5], ..., (1.5, 2.5], T > 2.5
    classes = np.clip(np.ceil(t - 0.5), -3, 3).astype(np.int64) + 3
    observed = np.bincount(classes, minlength=7)
    chi2 = _chi_square(observed, blocks * np.asarray(probabilities))
    return (_igamc(3.0, chi2 / 2),)


def _pattern_counts(b: BitArray, length: int) -> npt.NDArray[np.int64]:
    """How often each ``length``-bit pattern occurs on the circle (the sequence wrapped onto itself)."""
    return np.bincount(kernels.windows(b, length, wrap=True), minlength=1 << length)


def _fold(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The counts of the patterns one bit shorter: on the circle each is the sum of its two extensions."""
    return counts[0::2] + counts[1::2]


def _check_pattern_length(test: str, length: int, least: int, n: int) -> None:
    # NIST recommends m < log2(n) - 2 (serial) or - 5 (approximate entropy); its own examples do
    # not keep to it, so only what the count needs is refused (the battery checks n, MINIMUM_BITS).
    _require(least <= length <= 20, f"{test}: the pattern length must be {least} to 20")
    _require(n >= length + 1, f"{test} with m = {length} needs more than {length} bits")


def serial(bits: npt.ArrayLike, *, pattern_length: int = 16) -> PValues:
    """2.11 Serial: the frequencies of all overlapping m-bit patterns; two p-values (first and second differences)."""
    b = as_bits(bits, least=2, test="serial")
    n = len(b)
    _check_pattern_length("serial", pattern_length, 2, n)
    counts = _pattern_counts(b, pattern_length)
    psi = []
    for m in (pattern_length, pattern_length - 1, pattern_length - 2):
        psi.append(2.0**m / n * float(np.sum(counts.astype(np.float64) ** 2)) - n)
        counts = _fold(counts)
    first, second = psi[0] - psi[1], psi[0] - 2 * psi[1] + psi[2]
    return _igamc(2.0 ** (pattern_length - 2), first / 2), _igamc(2.0 ** (pattern_length - 3), second / 2)


def approximate_entropy(bits: npt.ArrayLike, *, pattern_length: int = 10) -> PValues:
    """2.12 Approximate entropy: the frequencies of overlapping m- and (m+1)-bit patterns compared."""
    b = as_bits(bits, least=2, test="approximate-entropy")
    n = len(b)
    _check_pattern_length("approximate-entropy", pattern_length, 1, n)
    counts = _pattern_counts(b, pattern_length + 1)
    phi = []
    for _ in range(2):
        present = counts[counts > 0] / n
        phi.append(float(np.sum(present * np.log(present))))
        counts = _fold(counts)
    apen = phi[1] - phi[0]  # phi(m) - phi(m + 1)
    chi2 = 2.0 * n * (math.log(2) - apen)
    return (_igamc(2.0 ** (pattern_length - 1), chi2 / 2),)


def _cusum_p_value(z: int, n: int) -> float:
    """2.13's p-value of the largest excursion ``z`` of the walk.

    Its sums run over the integers k between the bounds (-n/z + 1)/4 ... (n/z - 1)/4 (and
    (-n/z - 3)/4 ...), reckoned exactly: sts-2.1.2's integer divisions give the same k.
    """
    root = math.sqrt(n)
    upper = (n - z) // (4 * z)
    first = np.arange(-((n - z) // (4 * z)), upper + 1)
    second = np.arange(-((n + 3 * z) // (4 * z)), upper + 1)
    total = 1.0 - float(np.sum(special.ndtr((4 * first + 1) * z / root) - special.ndtr((4 * first - 1) * z / root)))
    return total + float(np.sum(special.ndtr((4 * second + 3) * z / root) - special.ndtr((4 * second + 1) * z / root)))


def cumulative_sums(bits: npt.ArrayLike) -> PValues:
    """2.13 Cumulative sums: the walk's largest excursion from zero, forward then backward (two p-values)."""
    b = as_bits(bits, least=1, test="cumulative-sums")
    steps = 2 * b.astype(np.int64) - 1
    forward = int(np.max(np.abs(np.cumsum(steps))))
    backward = int(np.max(np.abs(np.cumsum(steps[::-1]))))
    return _cusum_p_value(forward, len(b)), _cusum_p_value(backward, len(b))


def _walk(b: BitArray) -> tuple[npt.NDArray[np.int64], int]:
    """The random walk S_1 ... S_n and its number of cycles J (the returns to zero, and the end if not at zero)."""
    walk = np.cumsum(2 * b.astype(np.int64) - 1)
    return walk, int(np.count_nonzero(walk == 0)) + int(walk[-1] != 0)


def _applies(cycles: int, n: int, min_cycles: int | None) -> bool:
    least = max(0.005 * math.sqrt(n), 500) if min_cycles is None else min_cycles
    return cycles >= least


def excursion_probabilities(state: int) -> tuple[float, ...]:
    """The probabilities that a cycle of the walk visits ``state`` 0, 1, 2, 3, 4 and 5 or more times (2.14).

    >>> excursion_probabilities(1)
    (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.03125)
    """
    away = 1 / (2 * abs(state))  # the chance that a step from the state heads back to zero
    found = [1 - away] + [away * away * (1 - away) ** (k - 1) for k in range(1, 5)]
    return (*found, away * (1 - away) ** 4)


def random_excursions(bits: npt.ArrayLike, *, min_cycles: int | None = None) -> PValues:
    """2.14 Random excursions: the visits of each cycle to the states -4 ... -1, 1 ... 4 (eight p-values).

    Not applicable, an empty tuple, when the walk has fewer than ``min_cycles`` cycles (NIST's
    default, max(0.005 sqrt(n), 500)).
    """
    b = as_bits(bits, least=1, test="random-excursions")
    walk, cycles = _walk(b)
    if not _applies(cycles, len(b), min_cycles):
        return ()
    # the cycle of each step: the number of returns to zero before it
    cycle_of = np.concatenate(([0], np.cumsum(walk[:-1] == 0)))
    p_values = []
    for state in EXCURSION_STATES:
        visits = np.bincount(cycle_of[walk == state], minlength=cycles)
        observed = np.bincount(np.minimum(visits, 5), minlength=6)
        chi2 = _chi_square(observed, cycles * np.asarray(excursion_probabilities(state)))
        p_values.append(_igamc(5 / 2, chi2 / 2))
    return tuple(p_values)


def random_excursions_variant(bits: npt.ArrayLike, *, min_cycles: int | None = None) -> PValues:
    """2.15 Random excursions variant: the visits of the whole walk to the states -9 ... -1, 1 ... 9 (18 p-values).

    Applicable as :func:`random_excursions`.
    """
    b = as_bits(bits, least=1, test="random-excursions-variant")
    walk, cycles = _walk(b)
    if not _applies(cycles, len(b), min_cycles):
        return ()
    inside = walk[np.abs(walk) <= 9]
    visits = np.bincount(inside + 9, minlength=19)
    return tuple(math.erfc(abs(int(visits[x + 9]) - cycles) / math.sqrt(2.0 * cycles * (4 * abs(x) - 2)))
                 for x in VARIANT_STATES)
