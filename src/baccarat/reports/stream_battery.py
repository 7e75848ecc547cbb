"""The tests of the server's random stream in a certification: NIST SP 800-22, and Dieharder where installed.

The stream is the words the shuffle reads (:mod:`baccarat.reports.stream`) for the certification's own
shoes when it is seeded (for fresh shoes of the operating system's seeds when not).  Each NIST test
enters the battery's Holm family as one finding, whose p-value joins NIST's two criteria over its
sub-tests: for each sub-test, the uniformity P-value_T and the chance of at least as many sequences
failing at 1% (binomial), the smaller doubled; over the ``k`` sub-tests, the smallest times ``k``
(Bonferroni).  NIST's own pass marks (proportion in range, P-value_T >= 0.0001) are reported beside.
Dieharder's results enter as one finding: its smallest p-value times the number of its tests.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

from scipy import stats

from baccarat.core.errors import ConfigurationError
from baccarat.reports.battery import ALPHA, Finding
from baccarat.reports.nist import NistSummary, run_suite
from baccarat.reports.stream import stream_bytes, write_stream

#: Bits in one NIST sequence (SP 800-22's examples and Appendix B use 10^6).
SEQUENCE_BITS = 1_000_000
#: NIST's tests as findings in the family, and Dieharder's one.
NIST_TESTS = 15
DIEHARDER_TESTS = 1


def _sub_p(summary: NistSummary) -> float:
    failures = sum(1 for p in summary.p_values if p < ALPHA)
    proportion_p = float(stats.binom.sf(failures - 1, summary.sequences, ALPHA)) if failures else 1.0
    return min(1.0, 2 * min(summary.uniformity_p, proportion_p))


def nist_finding(summary: NistSummary) -> Finding:
    """One NIST test as a finding of the battery (see the module's docstring)."""
    parts = summary.sub_tests or (summary,)
    applicable = [s for s in parts if s.applicable]
    if not applicable:
        return Finding(f"nist-{summary.code}", f"NIST {summary.name}", "not applicable", 0.0, None, 1.0,
                       "no sequence had enough cycles for this test (SP 800-22 2.14.4)")
    p = min(1.0, len(applicable) * min(_sub_p(s) for s in applicable))
    low, high = summary.proportion_range
    return Finding(f"nist-{summary.code}", f"NIST {summary.name}", "lowest proportion", summary.proportion, None, p,
                   f"{summary.sequences} sequences of {SEQUENCE_BITS:,} bits, {len(applicable)} sub-test(s): lowest "
                   f"proportion passing {summary.proportion:.3f} (NIST's range {low:.3f}-{high:.3f}), lowest "
                   f"uniformity P-value_T {summary.uniformity_p:.3g}; NIST's criteria "
                   + ("met" if summary.passed else "NOT met"), expected=1 - ALPHA)


def nist(sequences: int, *, seed: int | None, decks: int, workers: int = 1,
         progress: Callable[[int], None] | None = None) -> tuple[list[NistSummary], list[Finding]]:
    """Run NIST SP 800-22 on ``sequences`` sequences of the stream; the summaries and their findings."""
    data = stream_bytes(sequences * SEQUENCE_BITS // 8, seed=seed, decks=decks)
    summaries = run_suite(data, sequence_bits=SEQUENCE_BITS, sequences=sequences, workers=workers,
                          progress=progress)
    return summaries, [nist_finding(s) for s in summaries]


@dataclass(frozen=True)
class DieharderResult:
    """One line of Dieharder's table."""

    test: str
    ntup: int
    p_value: float
    assessment: str  #: PASSED, WEAK or FAILED, as Dieharder judges it


_LINE = re.compile(r"^\s*(\S+)\|\s*(\d+)\|\s*\d+\|\s*\d+\|\s*([0-9.eE+-]+)\|\s*(PASSED|WEAK|FAILED)\s*$")


def parse_dieharder(text: str) -> list[DieharderResult]:
    """The result lines of Dieharder's output."""
    return [DieharderResult(m[1], int(m[2]), float(m[3]), m[4]) for m in map(_LINE.match, text.splitlines()) if m]


def dieharder(tests: str = "all", *, seed: int | None, decks: int,
              timeout: float | None = None) -> tuple[list[DieharderResult], Finding]:
    """Run Dieharder (``-a``, or ``-d N`` for each number of ``tests``) on the stream fed to its standard input."""
    program = shutil.which("dieharder")
    if program is None:
        raise ConfigurationError("dieharder is not installed (Debian: apt-get install dieharder)")
    if tests == "all":
        selections = [["-a"]]
    else:
        try:
            selections = [["-d", str(int(t))] for t in tests.split(",")]
        except ValueError as error:
            raise ConfigurationError(f"--dieharder takes 'all' or test numbers such as 0,1,2; got {tests!r}") from error
    results: list[DieharderResult] = []
    for selection in selections:
        process = subprocess.Popen([program, *selection, "-g", "200"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert process.stdin is not None and process.stdout is not None
        feeder = threading.Thread(target=write_stream, args=(process.stdin, None),
                                  kwargs={"seed": seed, "decks": decks}, daemon=True)
        feeder.start()
        try:
            output = process.stdout.read().decode(errors="replace")
            process.wait(timeout)
        finally:
            # Dieharder stops reading when it has what it needs: the pipe is broken by then, which is no fault
            with suppress(OSError, ValueError):
                process.stdin.close()
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdout.close()
            feeder.join(timeout=10)
        results += parse_dieharder(output)
    if not results:
        raise ConfigurationError("dieharder gave no results (is it Dieharder 3?)")
    lowest = min(r.p_value for r in results)
    failed = sum(r.assessment == "FAILED" for r in results)
    weak = sum(r.assessment == "WEAK" for r in results)
    return results, Finding("dieharder", "Dieharder", "lowest p", lowest, None, min(1.0, len(results) * lowest),
                            f"{len(results)} Dieharder tests ({tests}) on the stream: {failed} failed, {weak} weak "
                            "by Dieharder's own marks")
