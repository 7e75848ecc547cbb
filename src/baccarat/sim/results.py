"""Turning a simulation's summed chunks into per-wager results, text and JSON."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from baccarat.analysis import cache as disk
from baccarat.core.games import Game
from baccarat.core.lucky import BLOCK_EVENTS
from baccarat.sim.outcome_tables import lucky_draw_tables, punto_banco_tables
from baccarat.sim.run import ChunkResult, Plan

Z95 = 1.959963984540054


def json_number(value: float) -> float | None:
    """``value`` for a JSON document: None (``null``) where it is not a number (a standard error of one
    shoe, an edge with no bets), since strict JSON has no NaN."""
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class WagerResult:
    """One wager over the whole run, per unit of the initial wager per hand."""

    code: str
    name: str
    events: dict[str, int]  #: event -> hands
    mean: float
    std_error: float
    exact: float  #: the exact full-shoe expected value (analysis), for comparison

    @property
    def interval(self) -> tuple[float, float]:
        """95% confidence interval of the mean."""
        return self.mean - Z95 * self.std_error, self.mean + Z95 * self.std_error


@dataclass(frozen=True)
class SimulationResult:
    game: str
    name: str
    plan: Plan
    shoes: int
    hands: int
    wagers: tuple[WagerResult, ...]
    draw_fraction: float | None = None  #: Lucky Draw: share of hands where the seat drew


def ratio_stats(sums: np.ndarray, row: int) -> tuple[float, float]:
    """Mean per hand and its standard error, treating each shoe as one observation.

    Hands in a shoe are not independent (they share the shoe), so the standard
    error is the ratio estimator's over shoes: mean = sum(net) / sum(hands).
    """
    net, net2, net_hands = sums[row]
    hands, hands2, shoes = sums[-1]
    mean = net / hands
    if shoes < 2:
        return mean, float("nan")
    variance = (net2 - 2 * mean * net_hands + mean * mean * hands2) / (shoes - 1)
    return mean, math.sqrt(max(variance, 0.0) / shoes) / (hands / shoes)


def _punto_banco_events(game: Game, histogram: np.ndarray) -> dict[str, dict[str, int]]:
    """Hands per event of every wager, from the coup-key histogram and each key's event."""
    events = punto_banco_tables(game.code).events
    result: dict[str, dict[str, int]] = {}
    for row, wager in enumerate(game.wagers):
        counts = np.zeros(len(wager.paytable), dtype=np.int64)
        np.add.at(counts, events[row], histogram)
        result[wager.code] = {event: int(n) for event, n in zip(wager.paytable, counts, strict=True)}
    return result


def _compute_exact_values(game: Game, plan: Plan) -> dict[str, float]:
    # Imported here: the analyzer is needed only when the values are not on disk yet.
    from baccarat.analysis import lucky_draw as ld
    from baccarat.analysis.analyze import analyze, block_bonus, enter_lines
    from baccarat.analysis.composition import Composition
    from baccarat.analysis.results import WagerAnalysis

    shoe = Composition.full(plan.decks)
    if game.kind == "lucky_draw":
        draws = np.frombuffer(plan.draws or b"", dtype=bool).reshape(10, 10, 10)
        enter = WagerAnalysis("enter", "", enter_lines(ld.cells(game, shoe), draws)).expected_value
        return {"enter": float(enter), "block_bonus": float(block_bonus(game.wager("block_bonus"), plan.decks)
                                                              .expected_value)}
    return {w.code: float(w.expected_value) for w in analyze(game, shoe).wagers}


def exact_values(game: Game, plan: Plan) -> dict[str, float]:
    """The exact full-shoe expected value of every wager, for the plan's shoe (and Lucky Draw strategy).

    Kept on disk (:mod:`baccarat.analysis.cache`): the analysis takes 40 to 150 ms, which a run
    would otherwise add to its start-up.  JSON keeps the floats exactly.
    """
    key = {"game": game.code, "source": game.source, "paytable": game.paytable, "decks": plan.decks,
           "draws": hashlib.sha256(plan.draws).hexdigest() if plan.draws is not None else None}
    return disk.json_value("exact-values", key, lambda: _compute_exact_values(game, plan))


def summarize(game: Game, plan: Plan, totals: ChunkResult) -> SimulationResult:
    """Per-wager counts, means, standard errors and the exact values beside them."""
    histogram, sums = totals
    hands, shoes = int(sums[-1, 0]), int(sums[-1, 2])
    exact = exact_values(game, plan)
    wagers = []
    draw_fraction = None
    if game.kind == "lucky_draw":
        tables = lucky_draw_tables(game.paytable or 1)
        enter: Counter[str] = Counter({e: 0 for e in (*tables.stand.events, *tables.draw.events)})
        for seat in range(10):
            for dealer in range(10):
                enter[tables.stand.events[tables.stand.table[seat, dealer]]] += int(histogram[seat * 10 + dealer])
                enter[tables.draw.events[tables.draw.table[seat, dealer]]] += int(histogram[100 + seat * 10 + dealer])
        block = {event: int(histogram[200 + i]) for i, event in enumerate(BLOCK_EVENTS)}
        draw_fraction = float(histogram[100:200].sum() / hands) if hands else 0.0
        for code, name, events, row in (
            ("enter", "Enter, with the Draw wager", dict(enter), 0),
            ("block_bonus", "Block Bonus", block, 1),
        ):
            mean, error = ratio_stats(sums, row)
            wagers.append(WagerResult(code, name, events, mean, error, exact[code]))
    else:
        events_by_wager = _punto_banco_events(game, histogram)
        for row, wager in enumerate(game.wagers):
            mean, error = ratio_stats(sums, row)
            wagers.append(WagerResult(wager.code, wager.name, events_by_wager[wager.code], mean, error,
                                      exact[wager.code]))
    return SimulationResult(game.code, game.name, plan, shoes, hands, tuple(wagers), draw_fraction)


def format_result(result: SimulationResult) -> str:
    """A table per wager (event, count, share) and the mean with its 95% interval beside the exact value."""
    plan = result.plan
    title = (f"{result.name}: {result.shoes:,} shoes, {result.hands:,} hands, {plan.decks} decks, "
             f"cut card {plan.cut_card}, seed {plan.seed}")
    rows = [title, "=" * len(title)]
    for wager in result.wagers:
        width = max(len("Event"), *(len(e) for e in wager.events))
        rows.append("")
        rows.append(f"{wager.name}")
        rows.append(f"{'Event':<{width}}  {'Count':>15}  Share")
        for event, count in wager.events.items():
            share = count / result.hands if result.hands else 0.0
            rows.append(f"{event:<{width}}  {count:>15,}  {share:.6f}")
        low, high = wager.interval
        spread = (f" ± {wager.std_error:.6f} (95%: {low:+.6f} to {high:+.6f})" if math.isfinite(wager.std_error)
                  else " (one shoe: no standard error or interval)")
        rows.append(f"Mean net per unit {wager.mean:+.6f}{spread}; exact full-shoe value {wager.exact:+.6f}")
    if result.draw_fraction is not None:
        rows.append("")
        rows.append(f"The seat drew in {result.draw_fraction:.4%} of hands.")
    return "\n".join(rows) + "\n"


def result_json(result: SimulationResult) -> dict[str, Any]:
    """The ``--json`` document."""
    plan = result.plan
    data: dict[str, Any] = {
        "game": result.game, "shoes": result.shoes, "hands": result.hands, "seed": plan.seed,
        "decks": plan.decks, "cut_card": plan.cut_card,
    }
    if plan.paytable is not None:
        data["paytable"] = plan.paytable
    if result.draw_fraction is not None:
        data["draw_fraction"] = result.draw_fraction
    data["wagers"] = {
        w.code: {"name": w.name, "mean": w.mean, "std_error": json_number(w.std_error),
                 "ci95": [json_number(end) for end in w.interval], "exact": w.exact, "events": w.events}
        for w in result.wagers
    }
    return data
