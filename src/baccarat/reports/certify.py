"""The certification (``baccarat certify``): the statistics a test lab asks of a shuffle, and the verdict.

Regulators' RNG requirements (25 CFR 547.14, GLI-19 as publicly summarised; docs/requirements.md)
ask that the outcomes be statistically independent and fairly distributed, shown by chi-square,
runs and serial-correlation tests at 99% confidence.  :func:`certify` deals many shoes exactly as the
table server does (:mod:`baccarat.reports.dealing`) and runs the battery on them
(:mod:`baccarat.reports.battery`).

Every test gives its statistic, p-value and the 99% criterion (p >= 0.01); the verdict controls the
family-wise error at 1% over all the tests with Holm's step-down procedure.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from baccarat.core.errors import ConfigurationError
from baccarat.core.fair import ALGORITHM
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS, check_decks
from baccarat.reports.battery import ALPHA, CONFIDENCE, Finding, battery, holm
from baccarat.reports.dealing import CLIENT_SEEDS, ServerShuffle, Shuffler, deal
from baccarat.reports.provenance import Provenance

if TYPE_CHECKING:
    from baccarat.reports.nist import NistSummary
    from baccarat.reports.stream_battery import DieharderResult

#: A lab's default: the size at which the battery catches every defect of the power table (docs/certification.md).
DEFAULT_SHOES = 100_000
#: NIST SP 800-22 sequences of 10^6 bits by default (NIST's uniformity test wants 55 or more).
DEFAULT_NIST_SEQUENCES = 100
#: The stream's findings in the Holm family, counted whether or not they run (NIST's 15, Dieharder's 1),
#: so that the power table measured without them holds in every run.
STREAM_FAMILY = 16


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
    nist: tuple[NistSummary, ...] = ()  #: NIST SP 800-22's second-level analysis of the stream
    dieharder: tuple[DieharderResult, ...] = ()  #: Dieharder's table, when it ran
    provenance: Provenance | None = None
    family: int = 0  #: the size of Holm's family (the tests here and the stream's that did not run)

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
            "family": max(self.family, len(self.tests)),
            "verdict": "pass" if self.passed else "fail",
            "provenance": None if self.provenance is None else self.provenance.to_json(),
            "tests": [{"code": t.code, "name": t.name, "statistic_name": t.statistic_name,
                       "statistic": t.statistic, "df": t.df, "expected": t.expected, "p_value": t.p_value,
                       "adjusted_p": t.adjusted_p, "criterion": f"p >= {ALPHA:.2f}", "passed": t.passed,
                       "what": t.what, "residuals": [{"where": r.label, "observed": r.observed,
                                                      "expected": r.expected, "z": r.z} for r in t.residuals]}
                      for t in self.tests],
            "nist": [{"code": n.code, "name": n.name, "sequences": n.sequences, "proportion": n.proportion,
                      "proportion_range": list(n.proportion_range), "uniformity_p": n.uniformity_p,
                      "passed": n.passed, "histogram": list(n.histogram)} for n in self.nist],
            "dieharder": [{"test": d.test, "ntup": d.ntup, "p_value": d.p_value, "assessment": d.assessment}
                          for d in self.dieharder],
        }


def certify(shoes: int = DEFAULT_SHOES, *, game: str = "mini", decks: int = DEFAULT_DECKS,
            cut_card: int = DEFAULT_CUT_CARD, seed: int | None = None, workers: int | None = None,
            shuffler: Shuffler | None = None, nist_sequences: int = 0, dieharder: str | None = None,
            family_extra: int = STREAM_FAMILY, provenance: Provenance | None = None,
            progress: Callable[[int], None] | None = None) -> Certification:
    """Deal ``shoes`` shoes as the server does (or by ``shuffler``) and run the battery on them.

    ``nist_sequences``: run NIST SP 800-22 on that many sequences of the server's stream (0: not);
    ``dieharder``: run Dieharder's tests (``"all"`` or numbers) on it too.  The stream tests test the
    server's stream, so they need the server's shuffle (no ``shuffler``).  Holm's family is the shoe
    tests and ``family_extra`` more (the stream's, counted whether they run or not).
    ``workers`` None: one process per CPU core.
    """
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ConfigurationError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(nist_sequences, int) or isinstance(nist_sequences, bool) or nist_sequences < 0:
        raise ConfigurationError(f"nist_sequences must be a non-negative integer, got {nist_sequences!r}")
    if shuffler is not None and (nist_sequences or dieharder):
        raise ConfigurationError("the stream tests test the server's stream: leave out the shuffler to run them")
    chosen: Shuffler = ServerShuffle(check_decks(decks), seed) if shuffler is None else shuffler
    processes = (os.cpu_count() or 1) if workers is None else workers
    tally = deal(shoes, shuffler=chosen, game=game, cut_card=cut_card, workers=processes, progress=progress)
    tests = battery(tally)
    family = len(tests) + family_extra
    summaries: list[NistSummary] = []
    table: list[DieharderResult] = []
    if nist_sequences:
        from baccarat.reports.stream_battery import nist

        summaries, found = nist(nist_sequences, seed=seed, decks=chosen.decks, workers=processes)
        tests += found
    if dieharder:
        from baccarat.reports.stream_battery import dieharder as run_dieharder

        table, finding = run_dieharder(dieharder, seed=seed, decks=chosen.decks)
        tests.append(finding)
    return Certification(game, shoes, chosen.decks, cut_card, seed, int(tally.coups.sum()),
                         tuple(holm(tests, family=family)), tuple(summaries),
                         tuple(table), provenance, family)

