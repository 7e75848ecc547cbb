"""The certification report (``baccarat certify --report FILE.html``): one self-contained HTML page.

It holds what a lab signs: the software (version and the installed package's SHA-256), the platform,
the exact command line and seed; the verdict and every test (statistic, expected value, p-value,
Holm's adjusted p-value, the 99% criterion, the largest residuals); NIST SP 800-22's analysis of the
random stream (and Dieharder's, when it ran); the power table (at what number of shoes each defective
shuffle is caught); the protocol in prose; and the PAR sheet of every registered game (exact analysis;
``baccarat analyze GAME --report`` adds the simulations).  Like the PAR sheet, it needs no network:
the style is inline.  ``certify --json`` holds the same figures.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

from baccarat import __version__
from baccarat.core import fair
from baccarat.core.registry import all_games
from baccarat.reports import par_sheet, power
from baccarat.reports.battery import ALPHA, CONFIDENCE, Finding
from baccarat.reports.certify import Certification
from baccarat.reports.dealing import CHECK_EVERY, CLIENT_SEEDS

_BODY = re.compile(r"<body>(.*)</body>", re.S)


def _e(text: object) -> str:
    return html.escape(str(text))


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 1e-300 else "&lt; 1e-300"


def _statistic(t: Finding) -> str:
    df = "" if t.df is None else f" ({t.df:,} df)"
    return f"{_e(t.statistic_name)} = {t.statistic:,.3f}{df}"


def _tests(certification: Certification) -> str:
    rows = "".join(
        f"<tr><td>{_e(t.name)}</td><td>{_statistic(t)}</td>"
        f"<td class=n>{'' if t.expected is None else f'{t.expected:,.4g}'}</td><td class=n>{_p(t.p_value)}</td>"
        f"<td class=n>{_p(t.adjusted_p)}</td>"
        f"<td>{'<span class=ok>pass</span>' if t.passed else '<span class=bad>fail</span>'}</td>"
        f"<td class=muted>{_e(t.what)}</td></tr>"
        for t in certification.tests)
    return ("<table><tr><th>Test</th><th>Statistic</th><th>Expected</th><th>p-value</th><th>Holm-adjusted</th>"
            f"<th>p &ge; {ALPHA:g}</th><th>What was counted</th></tr>{rows}</table>")


def _residuals(certification: Certification) -> str:
    rows = "".join(
        f"<tr><td>{_e(t.name)}</td><td>{_e(r.label)}</td><td class=n>{r.observed:,.4g}</td>"
        f"<td class=n>{r.expected:,.4g}</td><td class=n>{r.z:+.2f}</td></tr>"
        for t in certification.tests for r in t.residuals)
    return ("<h2>Largest residuals</h2><p>For each test, the cells or bins furthest from what a perfect shuffle "
            "gives, in standard deviations (z).  With many cells a few |z| near the test's expected largest "
            "are what chance gives.</p>"
            "<table><tr><th>Test</th><th>Where</th><th>Observed</th><th>Expected</th><th>z</th></tr>"
            f"{rows}</table>")


def _provenance(c: Certification) -> str:
    made = c.provenance
    seed = "none (server seeds from the operating system)" if c.seed is None else str(c.seed)
    rows = [("Seed", seed)]
    if made is not None:
        rows = [("Software", made.software), ("Package SHA-256", made.package_sha256), ("Python", made.python),
                ("Platform", made.platform),
                ("Libraries", ", ".join(f"{k} {v}" for k, v in made.libraries.items())),
                ("Command", made.command), ("Started", made.started), *rows]
    body = "".join(f"<tr><th>{_e(k)}</th><td><code>{_e(v)}</code></td></tr>" for k, v in rows)
    return f"<h2>Software, machine and command</h2><table>{body}</table>"


def _stream(c: Certification) -> str:
    if not c.nist and not c.dieharder:
        return ("<h2>The random stream</h2><p>Not tested in this run (<code>--nist-sequences 0</code>).</p>")
    parts = ["<h2>The random stream</h2>"]
    if c.nist:
        rows = "".join(
            f"<tr><td>{_e(n.name)}</td><td class=n>{n.sequences}</td><td class=n>{n.proportion:.3f}</td>"
            f"<td class=n>{n.proportion_range[0]:.3f}-{n.proportion_range[1]:.3f}</td>"
            f"<td class=n>{_p(n.uniformity_p)}</td>"
            f"<td>{'<span class=ok>met</span>' if n.passed else '<span class=bad>not met</span>'}</td></tr>"
            for n in c.nist)
        parts.append("<h3>NIST SP 800-22 rev. 1a</h3><p>The words the shuffle reads, shoe after shoe, as sequences "
                     "of 10<sup>6</sup> bits; NIST's second-level analysis: the proportion of sequences passing at "
                     "1% (the lowest over a test's sub-tests) against NIST's range, and the uniformity of the "
                     "p-values (P-value<sub>T</sub> &ge; 0.0001).  NIST's marks are per sub-test, with no correction "
                     "for their number: over the 188 sub-tests (148 templates among them) a perfect generator misses "
                     "one or more in most runs.  The verdict reads each test once, as "
                     "one finding in the table above, corrected for its sub-tests.</p>"
                     "<table><tr><th>Test</th><th>Sequences</th><th>Proportion</th>"
                     f"<th>NIST's range</th><th>P-value<sub>T</sub></th><th>NIST's criteria</th></tr>{rows}</table>")
    if c.dieharder:
        rows = "".join(f"<tr><td>{_e(d.test)}</td><td class=n>{d.ntup}</td><td class=n>{d.p_value:.6f}</td>"
                       f"<td>{_e(d.assessment)}</td></tr>" for d in c.dieharder)
        parts.append("<h3>Dieharder</h3><table><tr><th>Test</th><th>ntup</th><th>p-value</th><th>Assessment</th>"
                     f"</tr>{rows}</table>")
    return "".join(parts)


def _power() -> str:
    table = power.load()

    def caught(size: int | None) -> str:
        return "not caught" if size is None else f"{size:,}"

    rows = "".join(
        f"<tr><td>{_e(d['name'])}</td><td class=n>{caught(d['caught_from'])}</td>"
        f"<td>{_e(', '.join(d['runs'][-1]['tests'][:4]))}</td></tr>"
        for d in table["defects"])
    return ("<h2>Power: the defects the battery catches</h2>"
            f"<p>Each defective shuffle below went through this battery (Holm over a family of {table['family']} "
            f"tests, as in this run) at {', '.join(f'{n:,}' for n in table['sizes'])} shoes "
            f"(seed {table['seed']}, measured {_e(table['measured'])} by <code>{_e(table['command'])}</code>).  "
            "'Caught from' is the smallest size from which every larger size measured failed it; the last "
            f"column names the tests that rejected it at {table['default_shoes']:,} shoes, the default size.</p>"
            "<table><tr><th>Defect</th><th>Caught from (shoes)</th><th>Rejected by, at the default size</th></tr>"
            f"{rows}</table>")


def _sheets(decks: int, cut_card: int) -> list[str]:
    parts = []
    for game in all_games():
        label = game.code if game.paytable is None else f"{game.code}-{game.paytable}"
        page = par_sheet.render(par_sheet.build(game, decks=decks, shoes=0, count_shoes=0, cut_card=cut_card))
        match = _BODY.search(page)
        body = match.group(1) if match else ""
        # One page holds every game's sheet: their headings go down a level and their ids get the game's code.
        body = body.replace('id="wager-', f'id="{_e(label)}-wager-')
        for level in (3, 2, 1):
            body = body.replace(f"<h{level}>", f"<h{level + 1}>").replace(f"</h{level}>", f"</h{level + 1}>")
        parts.append(f'<section class="sheet" id="par-{_e(label)}">{body}</section>')
    return parts


def render(certification: Certification, *, generated: datetime | None = None) -> str:
    """The certification report of ``certification`` as one HTML document."""
    c = certification
    when = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    verdict = ('<span class=ok>PASS</span>' if c.passed else '<span class=bad>FAIL</span>')
    seeds = ("32 bytes from the operating system's cryptographic generator for every shoe, as the table server "
             "makes them (this run cannot be repeated)" if c.seed is None else
             f"derived from seed {c.seed} and each shoe's number (SHA-256), so the run can be repeated")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Certification: {c.shoes:,} shoes</title><style>{par_sheet._STYLE}"
        ".sheet { border-top: 3px double #0a4a2f; margin-top: 2em; } pre { white-space: pre-wrap; }</style>"
        "</head><body>",
        "<h1>Shuffle certification</h1>",
        f"<p class=muted>baccarat {_e(__version__)}; generated {_e(when)}.</p>",
        f"<h2>Verdict: {verdict}</h2>",
        f"<p>{c.shoes:,} shoes of {c.decks} decks (cut card {c.cut_card}) dealt at a table of {_e(c.game)}: "
        f"{c.coups:,} coups.  Each test is judged at {CONFIDENCE:.0%} confidence (p &ge; {ALPHA:g}); the verdict "
        f"holds the chance of a false alarm over all {max(c.family, len(c.tests))} tests to {ALPHA:.0%} with "
        f"Holm's step-down procedure: it fails when a Holm-adjusted p-value is at or below {ALPHA:g}.</p>",
        _tests(c),
        _provenance(c),
        _residuals(c),
        _stream(c),
        _power(),
        "<h2>The protocol</h2>",
        f"<p><b>The shoes.</b> Every shoe is shuffled as the table server shuffles it (algorithm "
        f"<code>{_e(fair.ALGORITHM)}</code>).  Its server seed is {_e(seeds)}.  The client seed "
        f"<code>{_e(', '.join(CLIENT_SEEDS))}</code> is taken into each shoe as a player's would be: the shuffle "
        "key is HMAC-SHA256 keyed with the server seed of the SHA-256 of the client seeds.  The key's stream is "
        "HMAC-SHA256 of the block number (0, 1, 2, ... as 8 bytes), read as 32-bit big-endian words; a position "
        "below n takes words until one is below the largest multiple of n under 2<sup>32</sup> (rejection, so no "
        "position is favoured) and keeps that word modulo n; the Fisher-Yates shuffle then swaps each position, "
        "from the last down to the second, with such a position at or below it, starting from the decks in "
        "their boxed order (clubs, diamonds, hearts, spades, each Ace to King).</p>",
        f"<p><b>Dealing.</b> The permutation is computed from the same stream by a compiled Fisher-Yates; the "
        f"first shoe and every {CHECK_EVERY}th after it are shuffled again by the server's own code and must "
        "agree card for card, or the run stops.  Each shoe is dealt by the simulator's kernels as at the table: "
        "the first card is turned and that many more burned (tens ten), coups follow the punto banco tableau, "
        "and the coup in which the cut card comes out is followed by one more.</p>",
        "<p><b>The tests.</b> Every expectation is exact, counted from the shoe's composition, not simulated.  "
        "Tables of positions are sums of permutation tables (one card a position, each card somewhere, in "
        "every shoe), so Pearson's statistic is scaled by (n-1)/n before the chi-square is read; the "
        "extreme-cell tests take each cell as binomial and correct over the cells (Šidák).  Tests of figures "
        "that a shoe gives several of at once (its gaps, its poker hands, its coupon runs) use Hotelling's "
        "statistic, the covariance estimated from the independent shoes.  The stream is tested as NIST SP "
        "800-22 rev. 1a prescribes, on sequences of a million bits.</p>",
        f"<p><b>The verdict.</b> Each test is judged at {CONFIDENCE:.0%} confidence; the verdict holds the chance "
        f"of a false alarm over the whole family to {ALPHA:.0%} with Holm's step-down procedure (the family "
        "counts the stream's tests whether or not they ran, so the power table holds for every run).  A "
        "perfect shuffle therefore fails 1% of runs; a lab repeats a failed run with a fresh seed, and a "
        "defective shuffle fails again.</p>",
        "<h2>PAR sheets</h2>",
        "<p class=muted>Exact analysis of every game, at the decks and cut card certified.  "
        "<code>baccarat analyze GAME --report FILE.html</code> adds a simulation's confirmation and a count "
        "study.</p>",
        *_sheets(c.decks, c.cut_card),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
