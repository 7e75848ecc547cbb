"""The certification report (``baccarat certify --report FILE.html``): one self-contained HTML page.

It holds the battery's verdict and every test (statistic, degrees of freedom, p-value, Holm's adjusted
p-value, the 99% criterion), how the shoes were made, the fairness protocol as the code states it
(:mod:`baccarat.core.fair`'s own description, so the two cannot drift apart), and the PAR sheet of
every registered game (exact analysis; ``baccarat analyze GAME --report`` adds the simulations).
Like the PAR sheet, it needs no network: the style is inline.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

from baccarat import __version__
from baccarat.core import fair
from baccarat.core.registry import all_games
from baccarat.reports import par_sheet
from baccarat.reports.certify import ALPHA, CHECK_EVERY, CLIENT_SEEDS, CONFIDENCE, Certification

_BODY = re.compile(r"<body>(.*)</body>", re.S)


def _e(text: object) -> str:
    return html.escape(str(text))


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 1e-300 else "&lt; 1e-300"


def _tests(certification: Certification) -> str:
    rows = "".join(
        f"<tr><td>{_e(t.name)}</td><td>{_e(t.statistic_name)} = {t.statistic:,.3f}"
        f"{'' if t.df is None else f' ({t.df:,} df)'}</td><td class=n>{_p(t.p_value)}</td>"
        f"<td class=n>{_p(t.adjusted_p)}</td>"
        f"<td>{'<span class=ok>pass</span>' if t.passed else '<span class=bad>fail</span>'}</td>"
        f"<td class=muted>{_e(t.what)}</td></tr>"
        for t in certification.tests)
    return ("<table><tr><th>Test</th><th>Statistic</th><th>p-value</th><th>Holm-adjusted</th>"
            f"<th>p &ge; {ALPHA:g}</th><th>What was counted</th></tr>{rows}</table>")


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
        f"holds the chance of a false alarm over all {len(c.tests)} tests to {ALPHA:.0%} with Holm's step-down "
        "procedure: it fails when a Holm-adjusted p-value is at or below "
        f"{ALPHA:g}.</p>",
        _tests(c),
        "<h2>How the shoes were made</h2>",
        f"<p>Every shoe is shuffled as the table server shuffles it: algorithm <code>{_e(fair.ALGORITHM)}</code>; "
        f"server seeds {_e(seeds)}; client seed {_e(', '.join(CLIENT_SEEDS))} "
        "taken into each shoe as a player's would be.  The permutation is computed from the same HMAC-SHA256 "
        f"stream by a compiled Fisher-Yates; the first shoe and every {CHECK_EVERY}th after it are shuffled again by "
        "<code>baccarat.core.fair.fair_cards</code> itself and must agree card for card, or the run stops.  "
        "The shoes are dealt by the simulator's kernels: the burn, the cut card, one more coup, the punto banco "
        "tableau.</p>",
        "<h2>The fairness protocol</h2>",
        f"<pre>{_e((fair.__doc__ or '').strip())}</pre>",
        "<h2>PAR sheets</h2>",
        "<p class=muted>Exact analysis of every game, at the decks and cut card certified.  "
        "<code>baccarat analyze GAME --report FILE.html</code> adds a simulation's confirmation and a count "
        "study.</p>",
        *_sheets(c.decks, c.cut_card),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
