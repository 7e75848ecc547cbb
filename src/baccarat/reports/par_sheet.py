"""A PAR sheet: one self-contained HTML page per game (``baccarat analyze GAME --report FILE.html``).

It holds the game's rules and limits, every wager's exact return table, house edge, hit frequency,
standard deviation and element of risk, the effects of removal as a chart, the gain per shoe of the
best simple count found by simulation, and a simulation's confirmation of every edge.  The page needs
no network: its style is inline and its charts are inline SVG.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from fractions import Fraction

from baccarat.analysis.analyze import analyze
from baccarat.analysis.composition import LABEL_VALUES, VALUE_LABELS, Composition
from baccarat.analysis.results import GameAnalysis, WagerAnalysis, format_pays
from baccarat.core.facts import LEVEL_WORDS
from baccarat.core.games import Game
from baccarat.core.money import format_amount
from baccarat.core.registry import game_codes, register
from baccarat.sim.results import SimulationResult, summarize
from baccarat.sim.run import Plan, run

#: True-count triggers tried for each wager's count (the best is reported).
TRIGGERS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 11.0)


@dataclass(frozen=True)
class CountFinding:
    """The best of the simple counts tried on one wager."""

    tags: tuple[int, ...]  #: A,2,...,9,T
    trigger: float
    win_per_shoe: float
    error: float
    bets_per_shoe: float
    shoes: int


@dataclass(frozen=True)
class ParSheet:
    game: Game
    analysis: GameAnalysis
    simulation: SimulationResult | None
    counts: dict[str, CountFinding | str] = field(default_factory=dict)  #: wager -> finding, or why none
    decks: int = 8
    cut_card: int = 14
    seed: int = 1


def count_tags(eor: tuple[Fraction, ...]) -> tuple[int, ...] | None:
    """Whole tags for A,2,...,9,T proportional to the effects of removal (largest 3), or None when flat.

    A card whose removal raises the wager's value counts +: a high count means such cards are gone.
    """
    largest = max(abs(e) for e in eor)
    if largest == 0:
        return None
    return tuple(round(float(eor[v] / largest) * 3) for v in LABEL_VALUES)


def _best_count(game: Game, code: str, tags: tuple[int, ...], shoes: int, seed: int, decks: int,
                cut_card: int, workers: int) -> CountFinding:
    from baccarat.sim.counting import CountPlan, run_count

    best: CountFinding | None = None
    for trigger in TRIGGERS:
        result = run_count(CountPlan(game.code, code, tags, trigger, shoes, seed, decks=decks, cut_card=cut_card),
                           workers=workers)
        finding = CountFinding(tags, trigger, result.win_per_shoe, result.win_per_shoe_error, result.bets_per_shoe,
                               shoes)
        if best is None or finding.win_per_shoe > best.win_per_shoe:
            best = finding
    assert best is not None
    return best


def build(game: Game, *, decks: int = 8, shoes: int = 20_000, count_shoes: int = 5_000, seed: int = 1,
          cut_card: int = 14, workers: int = 1) -> ParSheet:
    """Analyse ``game`` exactly (with effects of removal), simulate it, and try a count on each wager.

    The simulation finds games by code (worker processes rebuild their tables from it), so a game not
    in the registry yet (read from a rules file) is added to it.
    """
    if game.code not in game_codes():
        register(game)
    analysis = analyze(game, Composition.full(decks), eor=True)
    simulation = None
    if shoes:
        draws = None
        if game.kind == "lucky_draw":
            from baccarat.sim.outcome_tables import strategy_draws

            draws = strategy_draws(game, decks, "composition").tobytes()
        plan = Plan(game.code, shoes, seed, decks=decks, cut_card=cut_card, paytable=game.paytable, draws=draws)
        simulation = summarize(game, plan, run(plan, workers=workers))
    counts: dict[str, CountFinding | str] = {}
    for wager in analysis.wagers:
        if game.kind != "punto_banco":
            counts[wager.code] = "counting studies are for punto banco games"
        elif game.wager(wager.code).depends != "values":
            counts[wager.code] = f"it depends on {LEVEL_WORDS[game.wager(wager.code).depends]}; a count by " \
                                 "point value cannot follow it"
        elif wager.eor is None or (tags := count_tags(wager.eor)) is None:
            counts[wager.code] = "no effect of removal to count"
        elif count_shoes:
            counts[wager.code] = _best_count(game, wager.code, tags, count_shoes, seed, decks, cut_card, workers)
    return ParSheet(game, analysis, simulation, counts, decks, cut_card, seed)


# --- the page ----------------------------------------------------------------------------------------------

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #1b1b1b; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.6em; border-bottom: 2px solid #0a4a2f; }
h3 { margin-bottom: .3em; } .muted { color: #555; }
table { border-collapse: collapse; margin: .4em 0 .8em; } th, td { padding: .2em .6em; border-bottom: 1px solid #ddd; }
th { text-align: left; background: #eef4f0; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.summary td:first-child { color: #555; }
.ok { color: #0a6b2f; font-weight: 700; } .bad { color: #a11; font-weight: 700; }
svg text { font: 11px system-ui, sans-serif; } .bar-up { fill: #0a6b2f; } .bar-down { fill: #a33; }
.wager { page-break-inside: avoid; }
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _pct(value: Fraction | float, places: int = 4) -> str:
    return f"{float(value) * 100:.{places}f}%"


def _pays(pays: Fraction) -> str:
    if pays == -1:
        return "loses"
    if pays == 0:
        return "push"
    return f"{pays.numerator} to {pays.denominator}" if pays.denominator != 1 else f"{pays.numerator} to 1"


def element_of_risk(wager: WagerAnalysis) -> Fraction:
    """Expected loss per unit of the total amount wagered: the house edge, but for Lucky Draw's Enter,
    where the Draw wager adds to what is bet."""
    return wager.element_of_risk if wager.element_of_risk is not None else wager.house_edge


def edge_without_pushes(wager: WagerAnalysis) -> Fraction:
    """Expected loss per bet that is decided (a push counted as no bet), as Player and Banker are often quoted."""
    push = sum((wager.probability(line) for line in wager.lines if line.pays == 0), Fraction(0))
    return wager.house_edge / (1 - push) if push < 1 else Fraction(0)


def eor_chart(eor: tuple[Fraction, ...], label: str) -> str:
    """An inline SVG bar chart of the effects of removal (percent of the wager per card removed)."""
    values = [float(eor[v]) * 100 for v in LABEL_VALUES]
    largest = max((abs(v) for v in values), default=0.0) or 1.0
    width, height, middle, step = 440, 170, 85, 40
    bars = []
    for i, (name, value) in enumerate(zip(VALUE_LABELS, values, strict=True)):
        size = abs(value) / largest * 70
        x = 30 + i * step
        y = middle - size if value >= 0 else middle
        bars.append(f'<rect class="{"bar-up" if value >= 0 else "bar-down"}" x="{x}" y="{y:.1f}" width="26" '
                    f'height="{max(size, 0.5):.1f}"><title>{_e(name)}: {value:+.5f}%</title></rect>'
                    f'<text x="{x + 13}" y="{height - 2}" text-anchor="middle">{_e(name)}</text>')
    return (f'<svg role="img" aria-label="{_e(label)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
            f'<line x1="25" y1="{middle}" x2="{width - 5}" y2="{middle}" stroke="#888"/>'
            f'<text x="2" y="12">+{largest:.4f}%</text><text x="2" y="{height - 16}">-{largest:.4f}%</text>'
            + "".join(bars) + "</svg>")


def _return_table(wager: WagerAnalysis) -> str:
    rows = "".join(
        f"<tr><td>{_e(line.event)}</td><td class=n>{_e(format_pays(line.pays))}</td>"
        f"<td class=n>{line.combinations:,}</td><td class=n>{float(wager.probability(line)):.8f}</td>"
        f"<td class=n>{float(line.pays * wager.probability(line)):+.8f}</td></tr>"
        for line in wager.lines)
    return ("<table><tr><th>Event</th><th>Pays</th><th>Combinations</th><th>Probability</th><th>Return</th></tr>"
            f"{rows}<tr><th>Total</th><th></th><th class=n>{wager.total:,}</th><th class=n>1</th>"
            f"<th class=n>{float(wager.expected_value):+.8f}</th></tr></table>")


def _count_line(finding: CountFinding | str | None) -> str:
    if finding is None:
        return "<p class=muted>No count study (--report-count-shoes 0).</p>"
    if isinstance(finding, str):
        return f"<p class=muted>Best simple count: none tried: {_e(finding)}.</p>"
    tags = ", ".join(f"{name} {tag:+d}" for name, tag in zip(VALUE_LABELS, finding.tags, strict=True))
    if finding.win_per_shoe <= 0:
        return (f"<p>No gain from a simple count: with tags proportional to the effects of removal ({_e(tags)}), "
                f"every trigger tried ({', '.join(f'+{t:g}' for t in TRIGGERS)}) loses; the least loss is "
                f"{finding.win_per_shoe:+.4f} ± {finding.error:.4f} units per shoe at +{finding.trigger:g} "
                f"({finding.shoes:,} shoes per trigger).</p>")
    return (f"<p>Best simple count (tags proportional to the effects of removal: {_e(tags)}), betting one unit at a "
            f"true count of +{finding.trigger:g} or more: <b>{finding.win_per_shoe:+.4f} ± {finding.error:.4f}</b> "
            f"units per shoe, {finding.bets_per_shoe:.2f} bets per shoe ({finding.shoes:,} shoes simulated; "
            f"triggers tried: {', '.join(f'+{t:g}' for t in TRIGGERS)}).</p>")


def _confirmation(sheet: ParSheet, code: str) -> str:
    if sheet.simulation is None:
        return "<p class=muted>Not simulated.</p>"
    result = next((w for w in sheet.simulation.wagers if w.code == code), None)
    if result is None:
        return "<p class=muted>The simulation does not deal this wager by itself.</p>"
    low, high = result.interval
    z = (result.mean - result.exact) / result.std_error if result.std_error else math.inf
    verdict = '<span class=ok>confirmed</span>' if abs(z) < 3 else '<span class=bad>NOT confirmed</span>'
    return (f"<p>Simulation: mean net {result.mean:+.6f} per unit (95% interval {low:+.6f} to {high:+.6f}) against "
            f"the exact {result.exact:+.6f}: {z:+.2f} standard errors, {verdict}.</p>")


def _maximum(amount: int | None) -> str:
    return "as its base wager" if amount is None else format_amount(amount)


def render(sheet: ParSheet) -> str:
    """The PAR sheet as one HTML document."""
    game, analysis = sheet.game, sheet.analysis
    limits = game.limits
    rules_rows = "".join(
        f"<tr><td>{_e(w.name)} <span class=muted>({_e(w.code)})</span></td>"
        f"<td>{_e('; '.join(f'{event}: {_pays(pays)}' for event, pays in w.paytable.items()))}</td>"
        f"<td class=n>{_e(_maximum(limits.maximum(w.code)))}</td><td>{_e(w.requires or '')}</td></tr>"
        for w in game.wagers)
    summary_rows = "".join(
        f"<tr><td>{_e(w.name)}</td><td class=n>{_pct(w.house_edge)}</td><td class=n>{_e(w.house_edge)}</td>"
        f"<td class=n>{_pct(w.hit_frequency, 3)}</td><td class=n>{w.std_dev:.4f}</td>"
        f"<td class=n>{_pct(element_of_risk(w))}</td><td class=n>{_pct(edge_without_pushes(w))}</td></tr>"
        for w in analysis.wagers)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>PAR sheet: {_e(game.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>PAR sheet: {_e(game.name)}</h1>",
        f"<p class=muted>Game code {_e(game.code)}; {sheet.decks} decks, cut card {sheet.cut_card}; "
        f"exact values by full enumeration (six-card convention); simulations seeded {sheet.seed}.</p>",
        "<h2>Rules</h2>",
        f"<p>{_e(game.description or ('Lucky Draw Baccarat' if game.kind == 'lucky_draw' else 'Punto banco'))}</p>",
        f"<p>Procedure: {_e(game.kind.replace('_', ' '))}. Table minimum {_e(format_amount(limits.minimum))}.</p>",
        "<table><tr><th>Wager</th><th>Pays</th><th>Maximum</th><th>Needs</th></tr>" + rules_rows + "</table>",
        "<h2>Summary</h2>",
        "<table class=summary><tr><th>Wager</th><th>House edge</th><th>Exactly</th><th>Hit frequency</th>"
        "<th>Standard deviation</th><th>Element of risk</th><th>Edge, pushes excluded</th></tr>"
        + summary_rows + "</table>",
    ]
    for code, why in analysis.skipped.items():
        parts.append(f"<p class=bad>{_e(code)}: not analysed: {_e(why)}</p>")
    parts.append("<h2>Wagers</h2>")
    for wager in analysis.wagers:
        parts.append(f'<section class="wager" id="wager-{_e(wager.code)}"><h3>{_e(wager.name)}</h3>')
        parts.append(_return_table(wager))
        parts.append(f"<p>House edge <b>{_pct(wager.house_edge)}</b> (exactly {_e(wager.house_edge)}); hit frequency "
                     f"{_pct(wager.hit_frequency, 3)}; standard deviation {wager.std_dev:.4f}; element of risk "
                     f"{_pct(element_of_risk(wager))}; pushes excluded {_pct(edge_without_pushes(wager))}.</p>")
        for note in wager.notes:
            parts.append(f"<p class=muted>{_e(note)}</p>")
        if wager.eor is not None:
            parts.append("<p>Effect of removal (change of the wager's value, in % of the wager, per card "
                         "removed):</p>" + eor_chart(wager.eor, f"Effects of removal on {wager.name}"))
        parts.append(_count_line(sheet.counts.get(wager.code)))
        parts.append(_confirmation(sheet, wager.code))
        parts.append("</section>")
    if game.references:
        parts.append("<h2>Published analyses</h2><ul>")
        parts.extend(f"<li>{_e(reference)}</li>" for reference in game.references)
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
