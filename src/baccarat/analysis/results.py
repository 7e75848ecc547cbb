"""Results of an exact analysis and their two forms: the return table of
``specs/analysis.md`` (text) and the JSON document of ``baccarat analyze --json``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from baccarat.analysis.composition import LABEL_VALUES, VALUE_LABELS, Composition

#: Wagers whose house edge is also given excluding ties.
TIE_EXCLUDED = frozenset({"player", "banker"})


@dataclass(frozen=True)
class EventLine:
    """One row of a return table."""

    event: str
    pays: Fraction  #: net odds per unit of the initial wager (-1 loses, 0 pushes)
    combinations: int


@dataclass(frozen=True)
class WagerAnalysis:
    """Everything known exactly about one wager in one shoe."""

    code: str
    name: str
    lines: tuple[EventLine, ...]
    draw_probability: Fraction | None = None  #: Lucky Draw's Enter: how often the seat draws
    eor: tuple[Fraction, ...] | None = None  #: effect of removal, indexed by point value (0 = ten-value)
    notes: tuple[str, ...] = ()
    fee: Fraction = Fraction(0)  #: charged at the bet, per unit staked (:attr:`house_edge` leaves it out)
    #: True when struck cards multiply its wins: a winning line's pays is then its average multiplied pay
    multiplied: bool = False

    @property
    def total(self) -> int:
        return sum(line.combinations for line in self.lines)

    def probability(self, line: EventLine) -> Fraction:
        return Fraction(line.combinations, self.total)

    @property
    def expected_value(self) -> Fraction:
        """Expected net result per unit of the initial wager."""
        return sum((line.pays * self.probability(line) for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_value

    @property
    def return_to_player(self) -> Fraction:
        """What comes back per unit the player pays, stake and fee: ``(1 + EV) / (1 + fee)``."""
        return (1 + self.expected_value) / (1 + self.fee)

    @property
    def house_edge_with_fee(self) -> Fraction:
        """The house's share of everything the player pays, stake and fee."""
        return 1 - self.return_to_player

    @property
    def house_edge_excluding_ties(self) -> Fraction | None:
        """House edge over the coups that are not ties (Player and Banker only)."""
        if self.code not in TIE_EXCLUDED:
            return None
        tie = sum((self.probability(line) for line in self.lines if line.event == "Tie"), Fraction(0))
        return self.house_edge / (1 - tie)

    @property
    def element_of_risk(self) -> Fraction | None:
        """Minus EV over the average total amount wagered (when a Draw wager may be added)."""
        if self.draw_probability is None:
            return None
        return self.house_edge / (1 + self.draw_probability)

    @property
    def std_dev(self) -> float:
        second = sum((line.pays**2 * self.probability(line) for line in self.lines), Fraction(0))
        return math.sqrt(second - self.expected_value**2)

    @property
    def hit_frequency(self) -> Fraction:
        """Probability of a net win."""
        return sum((self.probability(line) for line in self.lines if line.pays > 0), Fraction(0))

    def eor_check(self, composition: Composition) -> Fraction | None:
        """Sum over values of (cards of that value) x EOR: exactly zero when the EORs are right."""
        if self.eor is None:
            return None
        return sum((n * e for n, e in zip(composition.counts, self.eor, strict=True)), Fraction(0))


@dataclass(frozen=True)
class StrategyReport:
    """Lucky Draw's Draw decision: the strategy card, its deviations, and what each strategy is worth."""

    used: str  #: "composition" or "total": the one the Enter return table follows
    card: tuple[str, ...]  #: per seat total 0-9, one letter (D/S) per up card in :data:`VALUE_LABELS` order
    decisions: tuple[tuple[int, int, int, str, Fraction, Fraction], ...]  #: (card, card, up, D/S, EV stand, EV draw)
    deviations: tuple[tuple[int, int, int, str], ...]  #: composition cells that differ from the card
    results: dict[str, tuple[Fraction, Fraction, Fraction]] = field(default_factory=dict)
    #: strategy -> (house edge, element of risk, probability of drawing)


@dataclass(frozen=True)
class GameAnalysis:
    """The analysis of every wager of one game in one shoe."""

    game: str
    name: str
    composition: Composition
    wagers: tuple[WagerAnalysis, ...]
    paytable: int | None = None
    strategy: StrategyReport | None = None
    skipped: dict[str, str] = field(default_factory=dict)  #: wager code -> why it was not analysed


def _label(value: int) -> str:
    return VALUE_LABELS[LABEL_VALUES.index(value)]


def format_pays(pays: Fraction) -> str:
    """Net odds as a short decimal: ``0.95``, ``1.5``, ``-1``, ``40``."""
    if pays.denominator == 1:
        return str(pays.numerator)
    return f"{float(pays):.6f}".rstrip("0")


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}%"


def format_wager(analysis: WagerAnalysis, composition: Composition) -> str:
    """The return table of one wager, then its summary lines."""
    width = max(len("Event"), len("Total"), *(len(line.event) for line in analysis.lines))
    comb_width = max(len(f"{analysis.total:,}"), len("Combinations"))
    pays_width = max(4, *(len(format_pays(line.pays)) for line in analysis.lines))
    rows = [
        f"{analysis.name} — {composition.label()}",
        f"{'Event':<{width}}  {'Pays':<{pays_width}}  {'Combinations':<{comb_width}}  {'Probability':<11}  Return",
    ]
    for line in analysis.lines:
        probability = analysis.probability(line)
        rows.append(
            f"{line.event:<{width}}  {format_pays(line.pays):<{pays_width}}  {line.combinations:>{comb_width},}  "
            f"{float(probability):<11.6f}  {float(line.pays * probability):>9.6f}"
        )
    rows.append(
        f"{'Total':<{width}}  {'':<{pays_width}}  {analysis.total:>{comb_width},}  "
        f"{1:<11.6f}  {float(analysis.expected_value):>9.6f}"
    )
    edge = f"House edge {percent(analysis.house_edge)}" + (" per unit staked, the fee left out" if analysis.fee else "")
    if analysis.house_edge_excluding_ties is not None:
        edge += f" ({percent(analysis.house_edge_excluding_ties)} excluding ties)"
    rows.append(edge)
    rows.append(f"Exactly {analysis.house_edge}")
    if analysis.fee:
        rows.append(f"With the fee of {percent(analysis.fee)} of the stake: return to player "
                    f"{percent(analysis.return_to_player)}, house edge {percent(analysis.house_edge_with_fee)} of "
                    f"what is paid (exactly {analysis.house_edge_with_fee})")
    if analysis.multiplied:
        rows.append("A winning line's pays is its average with the struck cards' multipliers; the standard "
                    "deviation below leaves the multipliers' spread out.")
    rows.append(f"Standard deviation {analysis.std_dev:.4f}; hit frequency {percent(analysis.hit_frequency)}")
    if analysis.element_of_risk is not None and analysis.draw_probability is not None:
        rows.append(
            f"Element of risk {percent(analysis.element_of_risk)}; "
            f"the seat draws in {percent(analysis.draw_probability)} of rounds"
        )
    rows.extend(analysis.notes)
    if analysis.eor is not None:
        rows.append("Effect of removal (EV change per card removed, in % of the wager):")
        rows.append("  " + "  ".join(f"{_label(v):>7}" for v in LABEL_VALUES))
        rows.append("  " + "  ".join(f"{float(analysis.eor[v]) * 100:>+7.4f}" for v in LABEL_VALUES))
        rows.append(f"  Sum of count x EOR = {analysis.eor_check(composition)} (exactly zero when right)")
    return "\n".join(rows)


def format_strategy(strategy: StrategyReport) -> str:
    """The total-dependent strategy card, its house edges and the composition-dependent deviations."""
    rows = ["Lucky Draw strategy card (D = draw, S = stand)", "Total  " + " ".join(VALUE_LABELS) + "  <- up card"]
    for total, row in enumerate(strategy.card):
        rows.append(f"{total:>5}  " + " ".join(row))
    for kind, (edge, risk, draw) in strategy.results.items():
        rows.append(
            f"{kind.capitalize()}-dependent strategy: house edge {percent(edge)} per Enter, "
            f"element of risk {percent(risk)}, draws {percent(draw)}"
        )
    if strategy.deviations:
        rows.append("Composition-dependent deviations from the card:")
        for a, b, up, decision in strategy.deviations:
            verb = "draw" if decision == "D" else "stand"
            rows.append(f"  {_label(a)},{_label(b)} against {_label(up)}: {verb}")
    else:
        rows.append("No composition-dependent deviations from the card.")
    return "\n".join(rows)


def format_analysis(analysis: GameAnalysis) -> str:
    """Every return table of a game, then (Lucky Draw) the strategy."""
    title = f"{analysis.name}, {analysis.composition.label()}"
    parts = [title + "\n" + "=" * len(title)]
    parts.extend(format_wager(w, analysis.composition) for w in analysis.wagers)
    parts.extend(f"{code}: not analysed: {why}" for code, why in analysis.skipped.items())
    if analysis.strategy is not None:
        parts.append(format_strategy(analysis.strategy))
    return "\n\n".join(parts) + "\n"


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def wager_json(analysis: WagerAnalysis, composition: Composition) -> dict[str, Any]:
    """One wager as the JSON object of ``specs/analysis.md``."""
    data: dict[str, Any] = {
        "name": analysis.name,
        "house_edge": float(analysis.house_edge),
        "house_edge_exact": _fraction(analysis.house_edge),
        "std_dev": analysis.std_dev,
        "hit_frequency": float(analysis.hit_frequency),
        "combinations": analysis.total,
        "events": [
            {
                "event": line.event,
                "pays": float(line.pays),
                "combinations": line.combinations,
                "probability": float(analysis.probability(line)),
                "return": float(line.pays * analysis.probability(line)),
            }
            for line in analysis.lines
        ],
    }
    if analysis.house_edge_excluding_ties is not None:
        data["house_edge_excluding_ties"] = float(analysis.house_edge_excluding_ties)
    if analysis.fee:
        data["fee"] = _fraction(analysis.fee)
        data["return_to_player"] = float(analysis.return_to_player)
        data["return_to_player_exact"] = _fraction(analysis.return_to_player)
        data["house_edge_with_fee"] = float(analysis.house_edge_with_fee)
    if analysis.multiplied:
        data["multiplied"] = True
        for event, line in zip(data["events"], analysis.lines, strict=True):
            event["pays_exact"] = _fraction(line.pays)
    if analysis.element_of_risk is not None and analysis.draw_probability is not None:
        data["element_of_risk"] = float(analysis.element_of_risk)
        data["draw_probability"] = float(analysis.draw_probability)
    if analysis.eor is not None:
        data["eor"] = {_label(v): float(analysis.eor[v]) for v in LABEL_VALUES}
        data["eor_exact"] = {_label(v): _fraction(analysis.eor[v]) for v in LABEL_VALUES}
        data["eor_check"] = _fraction(analysis.eor_check(composition) or Fraction(0))
    return data


def analysis_json(analysis: GameAnalysis) -> dict[str, Any]:
    """The whole ``--json`` document."""
    composition = analysis.composition
    data: dict[str, Any] = {
        "game": analysis.game,
        "decks": composition.decks,
        "shoe": {_label(v): composition.counts[v] for v in LABEL_VALUES},
    }
    if analysis.paytable is not None:
        data["paytable"] = analysis.paytable
    data["wagers"] = {w.code: wager_json(w, composition) for w in analysis.wagers}
    if analysis.skipped:
        data["skipped"] = dict(analysis.skipped)
    strategy = analysis.strategy
    if strategy is not None:
        data["strategy"] = {
            "used": strategy.used,
            "up_cards": list(VALUE_LABELS),
            "card": {str(total): row for total, row in enumerate(strategy.card)},
            "results": {
                kind: {"house_edge": float(edge), "house_edge_exact": _fraction(edge),
                       "element_of_risk": float(risk), "draw_probability": float(draw)}
                for kind, (edge, risk, draw) in strategy.results.items()
            },
            "deviations": [{"cards": [_label(a), _label(b)], "up": _label(up), "decision": d}
                           for a, b, up, d in strategy.deviations],
            "decisions": [{"cards": [_label(a), _label(b)], "up": _label(up), "decision": d,
                           "ev_stand": float(stand), "ev_draw": float(draw)}
                          for a, b, up, d, stand, draw in strategy.decisions],
        }
    return data
