"""Exact analysis of every wager of a game in a given shoe (the engine behind ``baccarat analyze``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

import numpy as np

from baccarat.analysis import lucky_draw as ld
from baccarat.analysis import multipliers as mult
from baccarat.analysis.block import block_combinations, kind_counts
from baccarat.analysis.composition import LABEL_VALUES, Composition
from baccarat.analysis.punto import event_combinations, unpriceable
from baccarat.analysis.results import EventLine, GameAnalysis, StrategyReport, WagerAnalysis
from baccarat.core.cards import RANKS, SUITS, Card
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game, Wager


def _lines(wager: Wager[object], combinations: Mapping[str, int]) -> tuple[EventLine, ...]:
    return tuple(EventLine(event, wager.paytable[event], combinations[event]) for event in wager.paytable)


def _ev(lines: tuple[EventLine, ...]) -> Fraction:
    total = sum(line.combinations for line in lines)
    return sum((line.pays * Fraction(line.combinations, total) for line in lines), Fraction(0))


def _eor(
    composition: Composition, ev_without: Callable[[Composition], Fraction], full: Fraction
) -> tuple[Fraction, ...]:
    """EV with one card of each value removed, minus the full-shoe EV (0 for a value the shoe lacks)."""
    return tuple(
        ev_without(composition.without(v)) - full if composition.counts[v] else Fraction(0) for v in range(10)
    )


def analyze(game: Game, composition: Composition, *, strategy: ld.StrategyKind = "composition",
            eor: bool = False) -> GameAnalysis:
    """Analyse every wager of ``game`` for ``composition``, exactly.

    ``strategy`` picks the Lucky Draw decision rule the Enter table follows;
    ``eor`` adds the effect of removal of each card value to every wager.
    """
    if game.kind == "punto_banco":
        if strategy != "composition":
            raise ConfigurationError("--strategy applies to lucky-draw only")
        return _punto_banco(game, composition, eor=eor)
    return _lucky_draw(game, composition, strategy, eor=eor)


def _punto_banco(game: Game, composition: Composition, *, eor: bool) -> GameAnalysis:
    skipped = {w.code: why for w in game.wagers if (why := unpriceable(w, composition, game=game)) is not None}
    priced = tuple(w for w in game.wagers if w.code not in skipped)
    combinations = event_combinations(game, composition, priced)
    by_value = tuple(w for w in priced if w.depends == "values")
    removed = [event_combinations(game, composition.without(v), by_value) if eor and composition.counts[v] else None
               for v in range(10)]
    returns: dict[str, mult.MultipliedReturn] = {}
    if any(game.multiplies(w.code) or w.fee for w in priced):
        if composition.decks is None or composition != Composition.full(composition.decks):
            for w in priced:
                if game.multiplies(w.code):
                    skipped[w.code] = ("struck cards are priced in a full shoe only (which cards of a depleted shoe "
                                       "are of which suit is not known); give --decks")
            priced = tuple(w for w in priced if w.code not in skipped)
        else:
            returns = mult.multiplied_returns(game, composition.decks)
    wagers = []
    for wager in priced:
        lines = _lines(wager, combinations[wager.code])
        if game.multiplies(wager.code):
            average = {event: pays for event, _, pays in returns[wager.code].events}
            lines = tuple(EventLine(line.event, average[line.event], line.combinations) for line in lines)
        effects: tuple[Fraction, ...] | None = None
        notes: tuple[str, ...] = ()
        if eor and wager.depends == "values":
            full = _ev(lines)
            effects = tuple(_ev(_lines(wager, r[wager.code])) - full if r is not None else Fraction(0)
                            for r in removed)
        elif eor and wager.depends == "ranks":
            effects = _rank_eor(game, wager, composition, _ev(lines))
        elif eor:
            notes = ("Effects of removal are not computed for a wager on suits (removing one card breaks the "
                     "suits' symmetry).",)
        if game.multiplies(wager.code):
            effects = None
        wagers.append(WagerAnalysis(wager.code, wager.name, lines, eor=effects, notes=notes, fee=wager.fee,
                                    multiplied=game.multiplies(wager.code)))
    reasons = {code: why if why.startswith("struck") else f"cannot be priced exactly: {why}"
               for code, why in skipped.items()}
    return GameAnalysis(game.code, game.name, composition, tuple(wagers), skipped=reasons)


def _rank_eor(game: Game, wager: Wager[object], composition: Composition, full: Fraction) -> tuple[Fraction, ...]:
    """Effect of removing a card of each value on a wager on ranks: removing a card of that value drawn
    at random from the shoe, so the average over its ranks weighted by their counts."""
    assert composition.ranks is not None
    effects = []
    for value in range(10):
        ranks = [r for r in range(13) if (r + 1 if r < 9 else 0) == value and composition.ranks[r]]
        total = sum(composition.ranks[r] for r in ranks)
        effect = Fraction(0)
        for r in ranks:
            without = composition.without_rank(r)
            ev = _ev(_lines(wager, event_combinations(game, without, (wager,))[wager.code]))
            effect += Fraction(composition.ranks[r], total) * (ev - full)
        effects.append(effect)
    return tuple(effects)


def enter_lines(cells: ld.Cells, draws: ld.BoolArray) -> tuple[EventLine, ...]:
    """The return-table lines of Lucky Draw's Enter-plus-Draw game under the decisions ``draws``."""
    return tuple(EventLine(event, pays, n) for event, (pays, n) in ld.enter_combinations(cells, draws).items())


def _strategy_report(cells: ld.Cells, used: ld.StrategyKind) -> tuple[StrategyReport, ld.BoolArray]:
    optimal = ld.optimal_draws(cells)
    card = ld.total_strategy_card(cells)
    by_card = ld.draws_from_card(card)
    weights = cells.cell_weights
    stand_ev, draw_ev = cells.values(drew=False), cells.values(drew=True)
    decisions, deviations = [], []
    order = LABEL_VALUES  # A..9, then ten-value: the order players read
    for i, a in enumerate(order):
        for b in order[i:]:
            for up in order:
                if not weights[a, up, b]:
                    continue
                decision = "D" if optimal[a, up, b] else "S"
                decisions.append((a, b, up, decision, stand_ev[a][up][b], draw_ev[a][up][b]))
                if optimal[a, up, b] != by_card[a, up, b]:
                    deviations.append((a, b, up, decision))
    results = {}
    for kind, draws in (("composition", optimal), ("total", by_card)):
        edge = -_ev(enter_lines(cells, draws))
        probability = ld.draw_probability(cells, draws)
        results[kind] = (edge, edge / (1 + probability), probability)
    rows = tuple("".join("D" if card[total, up] else "S" for up in order) for total in range(10))
    report = StrategyReport(used, rows, tuple(decisions), tuple(deviations), results)
    return report, (optimal if used == "composition" else by_card)


def _block_ev(wager: Wager[object], counts: np.ndarray) -> tuple[tuple[EventLine, ...], Fraction]:
    lines = _lines(wager, block_combinations(counts))
    return lines, _ev(lines)


def block_bonus(wager: Wager[object], decks: int, *, eor: bool = False) -> WagerAnalysis:
    """Block Bonus in ``decks`` full decks (with its effects of removal when ``eor``)."""
    counts = kind_counts(decks)
    lines, full = _block_ev(wager, counts)
    effects = None
    if eor:
        # Removing a card of a value: average over the ranks of that value (equally many of each in
        # full decks); the suit does not matter, by symmetry.
        per_rank = {}
        for r, rank in enumerate(RANKS):
            without = counts.copy()
            without[r * len(SUITS)] -= 1
            per_rank[rank] = _block_ev(wager, without)[1] - full
        effects = tuple(
            sum((e for rank, e in per_rank.items() if Card(rank, "s").value == v), Fraction(0))
            / sum(1 for rank in RANKS if Card(rank, "s").value == v)
            for v in range(10)
        )
    return WagerAnalysis(wager.code, wager.name, lines, eor=effects)


def _lucky_draw(game: Game, composition: Composition, strategy: ld.StrategyKind, *, eor: bool) -> GameAnalysis:
    if strategy not in ld.STRATEGIES:
        raise ConfigurationError(f"strategy must be one of {', '.join(ld.STRATEGIES)}, got {strategy!r}")
    cells = ld.cells(game, composition)
    report, draws = _strategy_report(cells, strategy)
    lines = enter_lines(cells, draws)
    effects = None
    if eor:  # the strategy is held fixed, so the effects sum to exactly zero
        effects = _eor(composition, lambda c: _ev(enter_lines(ld.cells(game, c), draws)), _ev(lines))
    enter = WagerAnalysis(
        "enter",
        f"Enter, with the Draw wager by the {strategy}-dependent strategy",
        lines,
        draw_probability=ld.draw_probability(cells, draws),
        eor=effects,
    )
    wagers = [enter]
    skipped = {}
    if composition.decks is not None:
        wagers.append(block_bonus(game.wager("block_bonus"), composition.decks, eor=eor))
    else:
        skipped["block_bonus"] = "it depends on ranks and suits, so it needs full decks (--decks), not --shoe"
    return GameAnalysis(game.code, game.name, composition, tuple(wagers), paytable=game.paytable,
                        strategy=report, skipped=skipped)
