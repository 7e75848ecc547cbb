"""Card-counting studies for punto banco wagers, and the perfect-information bound.

A counter keeps a running count: the tag of every card seen, starting from an
initial count (the turned burn card is seen; the other burned cards are not).
Before each coup the true count is the running count over the decks left in
the shoe (or the running count itself with ``true_count=False``); the counter
bets one unit on the wager when the count reaches the trigger.

The perfect-information bound bets only when the exact expected value of the
wager for the cards actually left is positive, using the batch analyzer's
polynomial: no count can do better with one-unit bets.

Published counts shipped as presets (tags for A,2,...,9,T), from Eliot
Jacobson's EZ Baccarat studies (8 decks, cut card 14): Dragon 7
``0,0,0,-1,-1,-1,-1,2,2,0`` (bet at a true count of +4) and Panda 8
``1,1,-2,-2,-2,-1,-1,-2,4,1`` (bet at +11, our choice); our exact effects of
removal have the same signs as the tags (a test checks it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from baccarat.analysis.batch import BatchEvaluator
from baccarat.analysis.composition import LABEL_VALUES, VALUE_LABELS
from baccarat.core.errors import ConfigurationError
from baccarat.core.facts import LEVEL_WORDS
from baccarat.core.registry import all_games, get_game
from baccarat.sim.compiled import kernels
from baccarat.sim.outcome_tables import punto_banco_tables, shoe_tables
from baccarat.sim.results import json_number
from baccarat.sim.run import CHUNK_SHOES, ChunkedRun, chunk_state, execute

#: The widest initial count a study takes: far beyond any real count (tags are at most 100 a card), and far
#: inside the kernel's 64-bit running count, which a larger number would overflow.
MAX_INITIAL_COUNT = 10**6


@dataclass(frozen=True)
class CountPreset:
    tags: tuple[int, ...]  #: A,2,...,9,T
    wager: str
    trigger: float
    source: str


PRESETS = {
    "dragon-7": CountPreset((0, 0, 0, -1, -1, -1, -1, 2, 2, 0), "dragon_7", 4.0,
                            "Eliot Jacobson's Dragon 7 count; bet at a true count of +4 or more"),
    "panda-8": CountPreset((1, 1, -2, -2, -2, -1, -1, -2, 4, 1), "panda_8", 11.0,
                           "Panda 8 count published by Eliot Jacobson; bet at +11 or more (the best trigger "
                           "in our sweep of +8 to +14, docs/simulation.md)"),
}


def parse_tags(text: str) -> tuple[int, ...]:
    """Tags for A,2,...,9,T, e.g. ``"0,0,0,-1,-1,-1,-1,2,2,0"``."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        tags = tuple(int(p) for p in parts)
    except ValueError:
        tags = ()
    if len(tags) != 10 or any(abs(t) > 100 for t in tags):
        raise ConfigurationError(
            f"--count takes a preset ({', '.join(PRESETS)}) or ten whole tags for A,2,...,9,T; got {text!r}"
        )
    return tags


@dataclass(frozen=True)
class CountPlan(ChunkedRun):
    """A counting study; picklable like :class:`baccarat.sim.run.Plan`."""

    game: str
    wager: str
    tags: tuple[int, ...]  #: A,2,...,9,T
    trigger: float
    shoes: int
    seed: int
    decks: int = 8
    cut_card: int = 14
    true_count: bool = True
    initial_count: int = 0
    perfect: bool = False  #: bet on the exact EV instead of the count (the bound)
    chunk_size: int = CHUNK_SHOES  #: shoes per chunk; part of what the seed reproduces

    def __post_init__(self) -> None:
        game = get_game(self.game)
        if game.kind != "punto_banco":
            eligible = ", ".join(g.code for g in all_games() if g.kind == "punto_banco")
            raise ConfigurationError(f"counting studies are for punto banco games ({eligible}), not {game.name}")
        codes = [w.code for w in game.wagers]
        if self.wager not in codes:
            raise ConfigurationError(f"unknown wager {self.wager!r} in {self.game}; wagers are: {', '.join(codes)}")
        if game.wager(self.wager).depends != "values":
            raise ConfigurationError(f"{game.wager(self.wager).name} depends on "
                                     f"{LEVEL_WORDS[game.wager(self.wager).depends]}: a count by point value cannot "
                                     "follow it; count a wager on point values")
        if game.multiplies(self.wager) or game.wager(self.wager).fee:
            raise ConfigurationError(f"{game.wager(self.wager).name} is multiplied by struck cards or charged a fee: "
                                     "a counting study follows fixed pays; count another wager")
        if not math.isfinite(self.trigger):
            raise ConfigurationError("the trigger must be a finite number")
        if (not isinstance(self.initial_count, int) or isinstance(self.initial_count, bool)
                or abs(self.initial_count) > MAX_INITIAL_COUNT):
            raise ConfigurationError(f"the initial count must be a whole number from {-MAX_INITIAL_COUNT:,} to "
                                     f"{MAX_INITIAL_COUNT:,}, got {self.initial_count!r}")
        self.check_run()

    @property
    def tags_by_value(self) -> npt.NDArray[np.int64]:
        by_value = np.zeros(10, dtype=np.int64)
        for label_value, tag in zip(LABEL_VALUES, self.tags, strict=True):
            by_value[label_value] = tag
        return by_value


def run_count_chunk(plan: CountPlan, index: int) -> npt.NDArray[np.float64]:
    """One chunk of a counting study (top level, for processes and Dask)."""
    shoe = shoe_tables(plan.decks)
    tables = punto_banco_tables(plan.game)
    row = [w.code for w in get_game(plan.game).wagers].index(plan.wager)
    # A counted wager reads point values only: in a game that also has wagers on pairs its pay is
    # the same under every card pattern of a key, so the first pattern's is the key's.
    pay_by_key = np.ascontiguousarray(tables.pays[row].reshape(10_000, tables.patterns)[:, 0])
    parent, last, earlier, coefficients = _polynomial(plan.game, row) if plan.perfect else _NO_POLYNOMIAL
    result: npt.NDArray[np.float64] = kernels().count_chunk(
        plan.chunk_shoes(index), chunk_state(plan.seed, index), shoe.deck, shoe.value_of, shoe.burn, plan.cut_card,
        tables.player_draws, tables.banker_draws, tables.natural, pay_by_key,
        plan.tags_by_value, float(plan.trigger), plan.true_count, plan.initial_count, plan.perfect, parent, last,
        earlier, coefficients)
    return result


_EMPTY = np.zeros(1, dtype=np.int64)
_NO_POLYNOMIAL = (np.zeros(2, dtype=np.int64), _EMPTY, _EMPTY, np.zeros(1))
_POLYNOMIALS: dict[tuple[str, int], tuple[Any, ...]] = {}


def _polynomial(game: str, row: int) -> tuple[Any, ...]:
    if (game, row) not in _POLYNOMIALS:
        evaluator = BatchEvaluator(get_game(game))
        code = get_game(game).wagers[row].code
        _POLYNOMIALS[(game, row)] = (*evaluator.tree,
                                     np.ascontiguousarray(evaluator.coefficients[evaluator.codes.index(code)]))
    return _POLYNOMIALS[(game, row)]


@dataclass(frozen=True)
class CountResult:
    plan: CountPlan
    shoes: int
    hands: int
    bets: int
    win: float
    win_per_shoe: float
    win_per_shoe_error: float

    @property
    def hands_per_shoe(self) -> float:
        return self.hands / self.shoes

    @property
    def bets_per_shoe(self) -> float:
        return self.bets / self.shoes

    @property
    def bet_fraction(self) -> float:
        return self.bets / self.hands if self.hands else 0.0

    @property
    def edge_when_betting(self) -> float:
        """Mean result per unit bet."""
        return self.win / self.bets if self.bets else float("nan")

    @property
    def win_per_100_hands(self) -> float:
        return 100 * self.win / self.hands if self.hands else 0.0


def summarize_count(plan: CountPlan, results: list[npt.NDArray[np.float64]]) -> CountResult:
    """Add the chunks up (in order) and compute the per-shoe figures."""
    sums = np.zeros(8)
    for chunk in results:
        sums += chunk
    hands, _, bets, win, win2, shoes = sums[:6]
    mean = win / shoes
    error = math.sqrt(max(win2 / shoes - mean * mean, 0.0) / (shoes - 1)) if shoes > 1 else float("nan")
    return CountResult(plan, int(shoes), int(hands), int(bets), win, mean, error)


def run_count(plan: CountPlan, **kwargs: Any) -> CountResult:
    """Run a counting study (``workers``, ``scheduler``, ``progress`` as for :func:`baccarat.sim.run.run`)."""
    return summarize_count(plan, execute(plan, run_count_chunk, **kwargs))


def format_count(result: CountResult, bound: CountResult | None = None) -> str:
    """The card-counting summary of ``specs/analysis.md``."""
    plan = result.plan
    tags = ", ".join(f"{label}:{tag:+d}" for label, tag in zip(VALUE_LABELS, plan.tags, strict=True))
    rule = "true count (running count per deck left)" if plan.true_count else "running count"
    rows = [
        f"Counting {plan.wager} in {plan.game}: {result.shoes:,} shoes, {plan.decks} decks, cut card {plan.cut_card}, "
        f"seed {plan.seed}",
        f"Tags {tags}; initial count {plan.initial_count}; bet 1 unit when the {rule} >= {plan.trigger:g}",
    ]
    for label, r in (("Count", result), ("Perfect information (bet when exact EV > 0)", bound)):
        if r is None:
            continue
        edge = f"{r.edge_when_betting:+.4%}" if r.bets else "none (no bets)"
        error = f" ± {r.win_per_shoe_error:.4f}" if math.isfinite(r.win_per_shoe_error) else " (one shoe: no error)"
        rows.append(
            f"{label}: {r.hands_per_shoe:.2f} hands and {r.bets_per_shoe:.3f} bets per shoe "
            f"({r.bet_fraction:.3%} of hands); edge when betting {edge}; "
            f"win per shoe {r.win_per_shoe:+.4f}{error} units; "
            f"per 100 hands {r.win_per_100_hands:+.4f} units" + (f" ({r.shoes:,} shoes)" if r is bound else "")
        )
    return "\n".join(rows) + "\n"


def count_json(result: CountResult, bound: CountResult | None = None) -> dict[str, Any]:
    def one(r: CountResult) -> dict[str, Any]:
        return {"shoes": r.shoes, "hands": r.hands, "bets": r.bets, "hands_per_shoe": r.hands_per_shoe,
                "bets_per_shoe": r.bets_per_shoe, "bet_fraction": r.bet_fraction,
                "edge_when_betting": json_number(r.edge_when_betting), "win_per_shoe": r.win_per_shoe,
                "win_per_shoe_std_error": json_number(r.win_per_shoe_error), "win_per_100_hands": r.win_per_100_hands}

    plan = result.plan
    data: dict[str, Any] = {"wager": plan.wager, "tags": dict(zip(VALUE_LABELS, plan.tags, strict=True)),
                            "trigger": plan.trigger, "true_count": plan.true_count,
                            "initial_count": plan.initial_count, **one(result)}
    if bound is not None:
        data["perfect_information"] = one(bound)
    return data
