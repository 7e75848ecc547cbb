"""Simulating a game with struck cards (:mod:`baccarat.core.strikes`): whole shoes dealt by the casino procedure,
and each coup's strike drawn from the game's weight tables, so each multiplied wager's return is measured.

The shoes come from the card-keeping kernel (``punto_banco_deals_chunk``, the cut card and the burn as at the
table); the strikes from numpy's generator (the table draws them from the shoe's provable stream, the same
distribution).  A wager's result per coup is its event's odds (from :mod:`baccarat.sim.outcome_tables`), times the
capped product of the winning hand's struck multipliers when it wins.  The standard error is the ratio
estimator's over whole shoes (coups of a shoe are not independent).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from baccarat.analysis.block import CARD_KINDS
from baccarat.core.cards import standard_deck
from baccarat.core.errors import ConfigurationError
from baccarat.core.registry import get_game
from baccarat.core.shoe import check_cut_card, check_decks
from baccarat.core.strikes import Multipliers
from baccarat.sim.compiled import kernels
from baccarat.sim.outcome_tables import punto_banco_tables, shoe_tables
from baccarat.sim.run import chunk_state

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
CHUNK_SHOES = 2_000  #: shoes dealt at once (about 160,000 coups of 8 decks)


@dataclass(frozen=True)
class Measured:
    """A wager's measured result: its mean net per unit staked (the fee left out), that mean's standard error, and
    the coups it was measured over."""

    code: str
    mean: float
    standard_error: float
    coups: int
    fee: float = 0.0

    @property
    def return_to_player(self) -> float:
        """Per unit paid, stake and fee."""
        return (1 + self.mean) / (1 + self.fee)


def _distinct(rng: np.random.Generator, n: int, most: int) -> IntArray:
    """``n`` rows of ``most`` distinct cards of 52, each ordered choice as likely (the first ``k`` of a row are then
    a uniform ``k``-set): rows drawn with a card twice are drawn again (few, for a handful of cards); for many
    cards, the first ``most`` of a random order."""
    if most > 8:
        return np.argpartition(rng.random((n, 52)), most - 1, axis=1)[:, :most].astype(np.int64)
    struck = rng.integers(0, 52, size=(n, most))
    again = np.arange(n)
    while again.size:
        ordered = np.sort(struck[again], axis=1)
        again = again[(ordered[:, 1:] == ordered[:, :-1]).any(axis=1)]
        struck[again] = rng.integers(0, 52, size=(again.size, most))
    return struck


def struck_factors(feature: Multipliers, cards: IntArray, rng: np.random.Generator) -> IntArray:
    """For each row of ``cards`` (the winning hand's cards as indexes into :func:`standard_deck`, -1 for none), a
    fresh strike's capped product over them."""
    n = len(cards)
    counts = np.array([c for c, _ in feature.counts])
    count_p = np.array([w for _, w in feature.counts], dtype=np.float64)
    values = np.array([v for v, _ in feature.values], dtype=np.int64)
    value_p = np.array([w for _, w in feature.values], dtype=np.float64)
    how_many = rng.choice(counts, size=n, p=count_p / count_p.sum())
    most = int(counts.max())
    struck = _distinct(rng, n, most)
    multiplier = rng.choice(values, size=(n, most), p=value_p / value_p.sum())
    # each row's multiplier of every card (1 where not struck; column 52 stands for "no card")
    rows = np.arange(n)
    of = np.ones((n, 53), dtype=np.int32)
    for column in range(most):
        live = column < how_many
        of[rows[live], struck[live, column]] = multiplier[live, column]
    held = np.where(cards >= 0, cards, 52)
    product = of[rows[:, None], held].astype(np.int64).prod(axis=1)
    return product if feature.cap is None else np.asarray(np.minimum(product, feature.cap), dtype=np.int64)


def simulate(code: str, shoes: int, *, decks: int = 8, cut_card: int = 14, seed: int = 1,
             progress: Callable[[int], None] | None = None) -> dict[str, Measured]:
    """Deal ``shoes`` whole shoes of the game ``code`` (which must strike cards) and measure every wager it
    multiplies or charges a fee on."""
    game = get_game(code)
    feature = game.multipliers
    if feature is None or game.kind != "punto_banco":
        raise ConfigurationError(f"{code} strikes no cards: simulate it with baccarat simulate")
    check_decks(decks)
    check_cut_card(cut_card, 52 * decks)
    wagers = [(i, w) for i, w in enumerate(game.wagers) if game.multiplies(w.code) or w.fee]
    tables, shoe = punto_banco_tables(code), shoe_tables(decks)
    if tables.cards:
        raise ConfigurationError(f"{code} has wagers on the cards themselves; the strike simulation prices "
                                 "wagers on point values")
    odds = {w.code: np.array([float(o) for o in w.paytable.values()]) for _, w in wagers}
    deck = [str(card) for card in standard_deck()]
    designation = np.array([deck.index(str(card)) for card in CARD_KINDS] + [-1], dtype=np.int64)
    value_of = np.array([card.value for card in CARD_KINDS], dtype=np.int64)
    rng = np.random.default_rng(seed)
    by_shoe = {w.code: np.zeros(shoes) for _, w in wagers}
    coups_of = np.zeros(shoes)
    done = 0
    while done < shoes:
        size = min(CHUNK_SHOES, shoes - done)
        keys, dealt, shoe_of, hands = kernels().punto_banco_deals_chunk(
            size, chunk_state(seed, done // CHUNK_SHOES), shoe.deck, shoe.value_of, shoe.burn, cut_card,
            tables.player_draws, tables.banker_draws, tables.natural)
        dealt = np.asarray(dealt, dtype=np.int64)
        totals = np.where(dealt >= 0, value_of[np.maximum(dealt, 0)], 0)
        player, banker = totals[:, :3].sum(axis=1) % 10, totals[:, 3:].sum(axis=1) % 10
        cards = designation[dealt]  # -1 (not dealt) maps to -1
        cards = np.where((player > banker)[:, None], np.where(np.arange(6) < 3, cards, -1),
                         np.where((banker > player)[:, None], np.where(np.arange(6) >= 3, cards, -1), cards))
        factor = struck_factors(feature, cards, rng)
        for i, wager in wagers:
            paid = odds[wager.code][tables.events[i, keys]]
            if game.multiplies(wager.code):
                paid = np.where(paid > 0, paid * factor, paid)
            by_shoe[wager.code][done:done + size] = np.bincount(shoe_of, weights=paid, minlength=size)
        coups_of[done:done + size] = hands
        done += size
        if progress is not None:
            progress(size)
    out = {}
    total = coups_of.sum()
    for _, wager in wagers:
        sums = by_shoe[wager.code]
        mean = sums.sum() / total
        error = math.sqrt(((sums - mean * coups_of) ** 2).sum() * shoes / (shoes - 1)) / total
        out[wager.code] = Measured(wager.code, float(mean), error, int(total), float(wager.fee))
    return out
