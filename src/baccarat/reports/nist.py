"""The NIST SP 800-22 rev. 1a statistical test suite, the house's own implementation.

What it is.  NIST Special Publication 800-22 revision 1a, *A Statistical Test Suite for Random and
Pseudorandom Number Generators for Cryptographic Applications* (April 2010), defines fifteen tests
of a binary sequence and a second-level analysis of many sequences (its section 4.2).  NIST's
reference program is sts-2.1.2.  This module follows the publication's section 2 and, wherever the
two are silent or disagree, sts-2.1.2's default parameters and arithmetic; the differences are
listed below.  The tests themselves are in :mod:`baccarat.reports.nist_tests` (re-exported here),
their compiled loops in :mod:`baccarat.reports.nist_kernels`.

The tests and their parameters (sts-2.1.2's defaults; n is the sequence length):

* frequency (monobit), 2.1;
* frequency within a block, 2.2, M = 128;
* runs, 2.3, with its frequency prerequisite: when |pi - 1/2| >= 2/sqrt(n) the p-value is 0.0;
* longest run of ones in a block, 2.4, M = 8, 128 or 10,000 as n reaches 128, 6,272 or 750,000,
  with sts-2.1.2's class probabilities;
* binary matrix rank, 2.5, 32 x 32 matrices, the rank probabilities computed exactly;
* discrete Fourier transform (spectral), 2.6, threshold sqrt(ln(1/0.05) n), variance n(0.95)(0.05)/4;
* non-overlapping template matching, 2.7, m = 9, N = 8 blocks, all 148 aperiodic templates
  (generated here: the 9-bit words with no proper period), one p-value each;
* overlapping template matching, 2.8, the template of nine ones, M = 1032, K = 5, with rev. 1a's
  probabilities 0.364091, 0.185659, 0.139381, 0.100571, 0.0704323, 0.139865;
* Maurer's universal statistical test, 2.9, L and Q = 10 2^L from the table by n (L = 7 for
  n = 10^6), the expected values and variances of the table, sigma with the c(L, K) correction;
* linear complexity, 2.10, M = 500, K = 6, Berlekamp-Massey on each block;
* serial, 2.11, m = 16, two p-values (the first and second differences of psi^2);
* approximate entropy, 2.12, m = 10;
* cumulative sums, 2.13, forward and backward, two p-values;
* random excursions, 2.14, the eight states -4 ... 4, one p-value each;
* random excursions variant, 2.15, the eighteen states -9 ... 9, one p-value each.

The two random excursions tests apply only when the walk has J >= max(0.005 sqrt(n), 500) cycles;
otherwise they give no p-value (an empty tuple), not a failing one.  The battery
(:func:`run_sequence`, :func:`run_suite`) refuses sequences shorter than the test's input-size
minimum in :data:`MINIMUM_BITS` (524,288 bits for all fifteen, set by the serial test's m = 16;
NIST recommends 10^6, the default).

Second-level analysis (4.2, sts-2.1.2's final analysis report): for each test, and for each
sub-test of the tests with several p-values a sequence (each template, each serial difference,
each cusum direction, each excursion state), the proportion of sequences with p >= 0.01 must lie
within p_hat +- 3 sqrt(p_hat (1 - p_hat) / m), p_hat = 0.99, m the number of sequences (for the
excursion tests, the number where the test applied), and the p-values must be uniform: the
chi-square over ten bins gives P-value_T = igamc(9/2, chi^2/2) >= 0.0001 (NIST asks for 55
sequences or more for this).  A test with sub-tests reports the worst of them: its lowest
proportion and lowest P-value_T, passed only if every sub-test passed.  That is strict: each sub-test
of a perfect generator fails with a chance near 2% (at 20 sequences as at 100), so about three of
the 148 templates fail in a typical run and the non-overlapping test as a whole fails in most runs;
NIST's guidance leaves that reading to the analyst, and :attr:`NistSummary.sub_tests` keeps the
detail for it.

Checked against NIST's published numbers (``tests/reports/test_nist.py``): every worked example
of section 2 that can be reproduced, on its short sequence or on the first 10^5 or 10^6 bits of
the binary expansion of e (computed there exactly, and laid out as sts's ``data.e``: "10" then
the fraction), and Appendix B's p-values for e of every test.  Where NIST's numbers cannot be
reproduced, the tests pin what this module computes and say why:

* 2.6.4 and 2.6.8 (DFT) print P = 0.029523 and 0.168669 from peak counts N1 of 4 and 46; the
  sequences have 5 and 48 peaks below the threshold (sts-2.1.2 counts the same), P = 0.468160 and
  0.646355.  Appendix B's DFT value for e (0.847187) is reproduced.
* 2.8.4 (overlapping template) counts two matches of "11" in its block 0010110100, which holds
  one; its chi^2 = 3.167729 follows from that tally, but its P = 0.274932 does not follow from
  its chi^2 (igamc(5/2, 3.167729/2) = 0.674145).  On the sequence as printed this module gives
  P = 0.409635.
* 2.8.8 and Appendix B (e, P = 0.110434) were computed with the probabilities of 2.8's
  Poisson-based formula (eta = 1), which sts-2.1.2 computes at run time over the corrected table
  it declares; with rev. 1a's corrected probabilities, used here, e gives P = 0.159032.  The
  tests check both.
* 2.10 (linear complexity): sts-2.1.2 has pi_0 = 0.01047 where the spec has 0.010417 (= 1/96);
  2.10.8 (M = 1000, P = 0.845406) and Appendix B (M = 500, 0.826335) were computed with the slip.
  This module uses the exact probabilities (P = 0.844738 and 0.826202); the tests check both.
* 2.11.4 (serial) prints 0.9057 and 0.8805 in its step 5 and 0.808792 and 0.670320 in 2.11.6;
  the latter are igamc's true values and are what this module gives.
* 2.14.4 (random excursions) prints chi^2 = 4.333033 and P = 0.502529: section 3.14's table
  rounded to four places, 1/32 printed 0.0312.  With the exact probabilities (sts-2.1.2's too)
  chi^2 = 4.333333 and P = 0.502488.
* 2.14.8's negative states are reproduced; its positive states (P = 0.778616, 0.365752, 0.790853,
  0.792378) are not.  This module gives 0.786868, 0.440912, 0.797854, 0.778186, the same as the
  mirrored sequence's negative states, and Appendix B prints 0.786868 for x = +1.
* 2.5.4 (rank) applies the 32 x 32 probabilities to 3 x 3 matrices; this module computes the
  probabilities of the matrix size asked for, P = 0.820962 for 0.741948.
* 2.9.4 (universal) is an illustration with L = 2 and no c(L, K) correction; only its statistic
  is checked.  2.7.8 and 2.9.8 use 2^20 bits of a SHA-1 generator NIST does not publish.
* Appendix B prints the cumulative sums for e as 0.669887 and 0.724266; 2.13's formula gives
  0.6698865 and 0.7242653 (the last printed digit differs by one).

Speed: one 10^6-bit sequence takes about a quarter of a second on one core once the kernels are
compiled (0.24 to 0.27 s measured on the development machine: 100 sequences in under half a minute);
``python -m baccarat.reports.nist`` prints the figure for the machine it runs on.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy import special

from baccarat.core.errors import ConfigurationError
from baccarat.reports.nist_tests import (
    EXCURSION_STATES,
    VARIANT_STATES,
    PValues,
    approximate_entropy,
    as_bits,
    bits_of,
    block_frequency,
    cumulative_sums,
    dft,
    frequency,
    linear_complexity,
    longest_run,
    matrix_rank,
    non_overlapping_template,
    overlapping_template,
    random_excursions,
    random_excursions_variant,
    runs,
    serial,
    template_names,
    universal,
)

__all__ = [
    "ALPHA", "CODES", "MINIMUM_BITS", "NAMES", "UNIFORMITY_ALPHA", "NistSummary", "NistTest",
    "approximate_entropy", "bits_of", "block_frequency", "cumulative_sums", "dft", "frequency",
    "linear_complexity", "longest_run", "matrix_rank", "non_overlapping_template", "overlapping_template",
    "random_excursions", "random_excursions_variant", "run_sequence", "run_suite", "run_tests", "runs",
    "serial", "sub_test_labels", "summarise", "universal",
]

#: The significance level of one p-value (NIST's alpha).
ALPHA = 0.01
#: The least P-value_T of a uniform spread of p-values (4.2.2).
UNIFORMITY_ALPHA = 0.0001

#: The tests in NIST's order: code, name, the function with its default parameters.
_TESTS: tuple[tuple[str, str, Callable[[npt.NDArray[np.uint8]], PValues]], ...] = (
    ("frequency", "Frequency (monobit)", frequency),
    ("block-frequency", "Frequency within a block", block_frequency),
    ("runs", "Runs", runs),
    ("longest-run", "Longest run of ones in a block", longest_run),
    ("rank", "Binary matrix rank", matrix_rank),
    ("dft", "Discrete Fourier transform (spectral)", dft),
    ("non-overlapping-template", "Non-overlapping template matching", non_overlapping_template),
    ("overlapping-template", "Overlapping template matching", overlapping_template),
    ("universal", "Maurer's universal statistical", universal),
    ("linear-complexity", "Linear complexity", linear_complexity),
    ("serial", "Serial", serial),
    ("approximate-entropy", "Approximate entropy", approximate_entropy),
    ("cumulative-sums", "Cumulative sums", cumulative_sums),
    ("random-excursions", "Random excursions", random_excursions),
    ("random-excursions-variant", "Random excursions variant", random_excursions_variant),
)
CODES: tuple[str, ...] = tuple(code for code, _, _ in _TESTS)
NAMES: dict[str, str] = {code: name for code, name, _ in _TESTS}
_FUNCTIONS = {code: function for code, _, function in _TESTS}

#: The fewest bits a sequence needs for each test with its default parameters: NIST's input-size
#: recommendations (2.x.7) where they bind, otherwise what the statistic needs.  Non-overlapping:
#: each of the 8 blocks should expect one match of a template; overlapping: N pi_min > 5 (71
#: blocks); linear complexity: N >= 200 blocks; serial and approximate entropy: m < log2(n) - 2
#: and m < log2(n) - 5; the random excursions tests decide by their cycles.
MINIMUM_BITS: dict[str, int] = {
    "frequency": 100, "block-frequency": 128, "runs": 100, "longest-run": 128, "rank": 38 * 32 * 32,
    "dft": 1000, "non-overlapping-template": 8 * (2**9 + 9 - 1), "overlapping-template": 71 * 1032,
    "universal": 387_840, "linear-complexity": 200 * 500, "serial": 2 ** (16 + 3),
    "approximate-entropy": 2 ** (10 + 6), "cumulative-sums": 100, "random-excursions": 1,
    "random-excursions-variant": 1,
}


def sub_test_labels(code: str) -> tuple[str, ...]:
    """The sub-tests of a test with several p-values a sequence, in the order of its p-values; () for the others.

    >>> sub_test_labels("cumulative-sums"), sub_test_labels("runs")
    (('forward', 'backward'), ())
    >>> sub_test_labels("random-excursions")[:2], len(sub_test_labels("non-overlapping-template"))
    (('x=-4', 'x=-3'), 148)
    """
    labels = {
        "non-overlapping-template": template_names(9),
        "serial": ("1", "2"),
        "cumulative-sums": ("forward", "backward"),
        "random-excursions": tuple(f"x={x:+d}" for x in EXCURSION_STATES),
        "random-excursions-variant": tuple(f"x={x:+d}" for x in VARIANT_STATES),
    }
    _check_codes([code])
    return labels.get(code, ())


def _check_codes(codes: Collection[str]) -> None:
    unknown = sorted(set(codes) - set(CODES))
    if unknown:
        raise ConfigurationError(f"unknown NIST test {', '.join(unknown)}: choose from {', '.join(CODES)}")


@dataclass(frozen=True)
class NistTest:
    """One test's p-values on one sequence (one or more; none when a random excursions test does not apply)."""

    code: str  #: the test's code, e.g. ``"frequency"`` (:data:`CODES`)
    name: str  #: NIST's name for it
    p_values: PValues  #: in the order of :func:`sub_test_labels` for the tests with several


@dataclass(frozen=True)
class NistSummary:
    """NIST's second-level analysis (4.2) of one test, or one sub-test, over many sequences."""

    code: str  #: the test's code; a sub-test's is ``"<test>:<label>"``, e.g. ``"serial:1"``
    name: str
    sequences: int  #: how many sequences gave p-values (for the random excursions tests, where they applied)
    p_values: PValues  #: every p-value of those sequences (a test with sub-tests: all of theirs, pooled)
    proportion: float  #: the share of p-values of 0.01 or more (a test with sub-tests: its sub-tests' lowest)
    proportion_range: tuple[float, float]  #: p_hat +- 3 sqrt(p_hat (1 - p_hat) / sequences), p_hat = 0.99
    uniformity_p: float  #: P-value_T of the ten-bin chi-square (a test with sub-tests: its sub-tests' lowest)
    passed: bool  #: the proportion in range and P-value_T >= 0.0001 (every sub-test so, if it has them)
    histogram: tuple[int, ...] = ()  #: the p-values in ten bins [0, 0.1) ... [0.9, 1] (sts's C1 ... C10)
    sub_tests: tuple[NistSummary, ...] = field(default=())  #: a test with several p-values: one summary each

    @property
    def applicable(self) -> bool:
        """False when no sequence gave a p-value (a random excursions test on walks with too few cycles)."""
        return self.sequences > 0


def _second_level(code: str, name: str, p_values: Sequence[float]) -> NistSummary:
    """The proportion and uniformity of one list of p-values (one per sequence)."""
    m = len(p_values)
    if m == 0:
        # nothing to judge: sts prints dashes and flags nothing
        return NistSummary(code, name, 0, (), math.nan, (math.nan, math.nan), math.nan, True, (0,) * 10)
    values = np.asarray(p_values, dtype=float)
    proportion = float(np.count_nonzero(values >= ALPHA)) / m
    spread = 3 * math.sqrt((1 - ALPHA) * ALPHA / m)
    low, high = 1 - ALPHA - spread, 1 - ALPHA + spread
    bins = np.bincount(np.minimum((values * 10).astype(np.int64), 9), minlength=10)
    expected = m / 10  # sts-2.1.2 rounds m/10 down; the spec's formula does not
    chi2 = float(np.sum((bins - expected) ** 2) / expected)
    uniformity = float(special.gammaincc(9 / 2, chi2 / 2))
    passed = low <= proportion <= high and uniformity >= UNIFORMITY_ALPHA
    return NistSummary(code, name, m, tuple(float(p) for p in values), proportion, (low, high), uniformity, passed,
                       tuple(int(c) for c in bins))


def summarise(code: str, results: Sequence[PValues]) -> NistSummary:
    """NIST's second-level analysis of one test from its p-values on each sequence (as :func:`run_sequence` gives them).

    An empty tuple (a random excursions test that did not apply) leaves that sequence out.
    """
    _check_codes([code])
    name = NAMES[code]
    given = [p for p in results if p]
    labels = sub_test_labels(code)
    if not labels:
        if any(len(p) != 1 for p in given):
            raise ConfigurationError(f"{code} gives one p-value a sequence")
        return _second_level(code, name, [p[0] for p in given])
    if any(len(p) != len(labels) for p in given):
        raise ConfigurationError(f"{code} gives {len(labels)} p-values a sequence with its default parameters")
    subs = tuple(_second_level(f"{code}:{label}", f"{name} ({label})", [p[i] for p in given])
                 for i, label in enumerate(labels))
    if not given:
        return NistSummary(code, name, 0, (), math.nan, (math.nan, math.nan), math.nan, True, (0,) * 10, subs)
    pooled = tuple(value for sub in subs for value in sub.p_values)
    histogram = tuple(int(c) for c in np.sum([sub.histogram for sub in subs], axis=0))
    return NistSummary(code, name, len(given), pooled, min(s.proportion for s in subs), subs[0].proportion_range,
                       min(s.uniformity_p for s in subs), all(s.passed for s in subs), histogram, subs)


def _selected(tests_: Collection[str] | None) -> tuple[str, ...]:
    if tests_ is None:
        return CODES
    _check_codes(tests_)
    return tuple(code for code in CODES if code in tests_)


def _check_length(n: int, codes: Sequence[str]) -> None:
    short = [code for code in codes if n < MINIMUM_BITS[code]]
    if short:
        least = max(MINIMUM_BITS[code] for code in short)
        raise ConfigurationError(
            f"sequences of {n:,} bits are too short for {', '.join(short)}: use {least:,} bits or more"
            " (NIST recommends 1,000,000), or leave those tests out")


def run_tests(bits: npt.ArrayLike, *, tests: Collection[str] | None = None) -> list[NistTest]:
    """Every test (or those in ``tests``, by code) on one sequence, with NIST's default parameters."""
    codes = _selected(tests)
    b = as_bits(bits, test="the NIST battery")
    _check_length(len(b), codes)
    return [NistTest(code, NAMES[code], _FUNCTIONS[code](b)) for code in codes]


def run_sequence(bits: npt.ArrayLike, *, tests: Collection[str] | None = None) -> dict[str, PValues]:
    """The p-values of every test (or those in ``tests``) on one sequence, by test code."""
    return {result.code: result.p_values for result in run_tests(bits, tests=tests)}


def _sequence_bits(data: bytes, index: int, length: int) -> npt.NDArray[np.uint8]:
    """Bits ``index * length`` onwards, ``length`` of them, unpacking only the bytes that hold them."""
    start = index * length
    first, last = start // 8, (start + length + 7) // 8
    return bits_of(data[first:last])[start - 8 * first: start - 8 * first + length]


def _run_one(job: tuple[bytes, int, tuple[str, ...]]) -> dict[str, PValues]:
    data, length, codes = job
    return run_sequence(_sequence_bits(data, 0, length), tests=codes)


def run_suite(data: bytes, *, sequence_bits: int = 1_000_000, sequences: int | None = None,
              tests: Collection[str] | None = None, workers: int = 1,
              progress: Callable[[int], None] | None = None) -> list[NistSummary]:
    """NIST's battery on ``data``: cut into sequences of ``sequence_bits`` bits, every test on each, summarised (4.2).

    ``sequences`` is how many to test (by default as many as the data holds); ``tests`` picks
    tests by code; ``workers`` > 1 runs sequences in that many processes; ``progress(done)`` is
    called with the number of sequences done after each one.  One summary per test, in NIST's order.
    """
    codes = _selected(tests)
    _check_length(sequence_bits, codes)
    available = len(data) * 8 // sequence_bits
    count = available if sequences is None else sequences
    if count < 1 or count > available:
        raise ConfigurationError(f"{len(data):,} bytes hold {available} sequences of {sequence_bits:,} bits,"
                                 f" not {count}")
    if workers < 1:
        raise ConfigurationError("workers must be 1 or more")
    results: list[dict[str, PValues]] = []

    def record(result: dict[str, PValues]) -> None:
        results.append(result)
        if progress is not None:
            progress(len(results))

    if workers == 1:
        for index in range(count):
            record(run_sequence(_sequence_bits(data, index, sequence_bits), tests=codes))
    else:
        # each worker gets the bytes of its own sequence only, re-packed to start on a byte
        jobs = ((np.packbits(_sequence_bits(data, i, sequence_bits)).tobytes(), sequence_bits, codes)
                for i in range(count))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_run_one, jobs):
                record(result)
    return [summarise(code, [result[code] for result in results]) for code in codes]


def _time_one_sequence() -> None:  # pragma: no cover - a measurement for the reader, run by hand
    """Print the time of one 10^6-bit sequence, after a first run that compiles the kernels."""
    data = os.urandom(125_000)
    run_sequence(bits_of(data))
    started = time.perf_counter()
    repeats = 5
    for _ in range(repeats):
        run_sequence(bits_of(os.urandom(125_000)))
    print(f"{(time.perf_counter() - started) / repeats:.3f} s per 10^6-bit sequence (all 15 tests, one core)")


if __name__ == "__main__":  # pragma: no cover
    _time_one_sequence()
