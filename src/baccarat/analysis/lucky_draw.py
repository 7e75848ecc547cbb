"""Lucky Draw Baccarat, heads-up: exact Enter/Draw results and the optimal Draw decision.

A round deals, in order, the seat's first card ``s1``, the dealer's up card
``u``, the seat's second card ``s2``, the Draw card ``d`` (only when the seat
draws), the dealer's second card and the dealer's possible third card.  A
*cell* is ``(s1, u, s2)`` by point value: everything the seat knows when it
decides.  For each cell this module counts, exactly and with card removal,
how often each outcome happens if the seat stands and if it draws.  The
optimal decision compares the two expected results per unit of Enter; the
total-dependent strategy card makes one decision per (seat total, up card).

Counting convention: every round counts as an ordered sequence of six cards
(a standing seat's sixth card is an unused card), so the combinations of all
events add up to ``falling(size, 6)``, as for punto banco.

The outcomes come from the game's own wagers (``enter`` and ``draw``) and the
dealer's rule from :func:`baccarat.core.tableau.dealer_draws`; nothing is restated.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from baccarat.analysis.composition import Composition, IntArray, sequence_weights
from baccarat.analysis.keys import VALUE_CARDS
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game
from baccarat.core.lucky import LuckyDrawHand
from baccarat.core.tableau import dealer_draws

BoolArray = npt.NDArray[np.bool_]
StrategyKind = Literal["composition", "total"]
STRATEGIES: tuple[StrategyKind, ...] = ("composition", "total")

_TEN = VALUE_CARDS[0]
_VALUES = np.arange(10)
#: The two-card total of every pair of card values (seat ``[s1, s2]``, dealer ``[up, second]``).
TWO_CARD_TOTAL: IntArray = (_VALUES[:, None] + _VALUES[None, :]) % 10


def _hand(seat_total: int, dealer_total: int, *, drew: bool) -> LuckyDrawHand:
    # Only totals and the number of seat cards matter to Enter and Draw; the
    # dealer gets three cards so the hand is complete whatever the total.
    seat = (VALUE_CARDS[seat_total], _TEN, _TEN) if drew else (VALUE_CARDS[seat_total], _TEN)
    return LuckyDrawHand(seat, (VALUE_CARDS[dealer_total], _TEN, _TEN))


def dealer_final_totals() -> IntArray:
    """The dealer's final total for up card, second card and possible third card values."""
    two = TWO_CARD_TOTAL
    draws = np.array([dealer_draws(total) for total in range(10)])[two]
    three = (two[:, :, None] + _VALUES[None, None, :]) % 10
    return np.where(draws[:, :, None], three, two[:, :, None])


@dataclass(frozen=True)
class Outcomes:
    """One decision's outcomes: names, pays per unit of Enter, and the event of every (seat, dealer) total."""

    events: tuple[str, ...]
    pays: tuple[Fraction, ...]
    table: IntArray  #: [seat total, dealer total] -> index in :attr:`events`


def outcomes(game: Game, *, drew: bool) -> Outcomes:
    """Outcomes of standing (Enter alone) or drawing (Enter plus an equal Draw), from the game's wagers."""
    if game.kind != "lucky_draw":
        raise ConfigurationError(f"{game.name} is not Lucky Draw Baccarat")
    enter, draw = game.wager("enter"), game.wager("draw")
    events: list[str] = []
    pays: list[Fraction] = []
    table = np.empty((10, 10), dtype=np.int64)
    for seat in range(10):
        for dealer in range(10):
            hand = _hand(seat, dealer, drew=drew)
            if drew:
                name, pay = f"Draw, {draw.event(hand)}", enter.odds(hand) + draw.odds(hand)
            else:
                name, pay = f"Stand, {enter.event(hand)}", enter.odds(hand)
            if name not in events:
                events.append(name)
                pays.append(pay)
            table[seat, dealer] = events.index(name)
    return Outcomes(tuple(events), tuple(pays), table)


@dataclass(frozen=True)
class Cells:
    """Exact outcome counts per cell ``[s1, u, s2]`` for standing and for drawing."""

    composition: Composition
    stand: Outcomes
    draw: Outcomes
    stand_counts: IntArray  #: [s1, u, s2, event]: ordered five-card sequences
    draw_counts: IntArray  #: [s1, u, s2, event]: ordered six-card sequences

    @property
    def cell_weights(self) -> IntArray:
        """Ordered ways to deal each cell's three cards."""
        return sequence_weights(self.composition.array(), 3)

    def values(self, *, drew: bool) -> list[list[list[Fraction]]]:
        """Expected result per unit of Enter of every cell (0 for a cell that cannot be dealt)."""
        outcome, counts = (self.draw, self.draw_counts) if drew else (self.stand, self.stand_counts)
        scale = _scale(self)
        numerators = _scaled_totals(counts, outcome.pays, scale).tolist()
        weights = (counts.sum(axis=3) * scale).tolist()
        return [[[Fraction(n, w) if w else Fraction(0) for n, w in zip(row_n, row_w, strict=True)]
                 for row_n, row_w in zip(plane_n, plane_w, strict=True)]
                for plane_n, plane_w in zip(numerators, weights, strict=True)]


def dealer_rest(counts: IntArray, cards: tuple[IntArray, ...], dealer: IntArray) -> IntArray:
    """``[*cards, dealer's final total]``: ordered ways to deal the dealer's second and third cards
    (a standing dealer's third is an unused card) after ``cards``, value arrays that broadcast
    together, the second of them the up card.

    The ways are ``(c[u2] - m[u2]) (c[u3] - m[u3] - [u2 = u3])`` with ``m`` the multiplicities of the
    values in ``cards``; expanded, the sum over ``(u2, u3)`` by final total needs a few 10x10x10
    tables and one look-up per card and pair of cards, instead of an array over every six-card
    sequence (which dominated a fresh ``baccarat analyze lucky-draw``).  No factor needs
    clamping at 0: one below 0 comes after a factor 0 of the same value in ``cards``' own ways.
    """
    one = np.eye(10, dtype=np.int64)
    hit = (dealer[:, :, :, None] == _VALUES).astype(np.int64)  # [u, u2, u3, final total]
    third_left = counts[None, :] - one  # [u2, u3]: c[u3] - [u2 = u3]
    base = np.einsum("b,bc,abcd->ad", counts, third_left, hit)  # [u, total]: no card of ``cards`` removed
    # [u, x, total]: the terms linear in m[x], from the second card (c[u2] m[x]) and the third.
    single = np.einsum("b,abcd->acd", counts, hit) + np.einsum("bc,abcd->abd", third_left, hit)
    up = cards[1]
    out: IntArray = base[up] - sum((single[up, v] for v in cards), np.int64(0))
    for v in cards:  # the terms m[x] m[y]
        for w in cards:
            out = out + hit[up, v, w]
    return out


def cells(game: Game, composition: Composition) -> Cells:
    """Count every cell's outcomes for standing and drawing in ``composition``."""
    stand, draw = outcomes(game, drew=False), outcomes(game, drew=True)
    counts = composition.array()
    dealer = dealer_final_totals()  # [u, u2, u3]
    s1, u, s2, d = _VALUES[:, None, None, None], _VALUES[None, :, None, None], _VALUES[None, None, :, None], \
        _VALUES[None, None, None, :]

    # Standing: [s1, u, s2, dealer's total], then by event.
    stand_ways = sequence_weights(counts, 3)[..., None] * dealer_rest(counts, (s1[..., 0], u[..., 0], s2[..., 0]),
                                                                      dealer)
    stand_event = stand.table[TWO_CARD_TOTAL[:, None, :, None], _VALUES]  # [s1, 1, s2, total]
    stand_counts = np.stack([(stand_ways * (stand_event == e)).sum(axis=3) for e in range(len(stand.events))],
                            axis=3)

    # Drawing: [s1, u, s2, d, dealer's total], then by event.
    draw_ways = sequence_weights(counts, 4)[..., None] * dealer_rest(counts, (s1, u, s2, d), dealer)
    seat_three = (TWO_CARD_TOTAL[:, :, None] + _VALUES[None, None, :]) % 10  # [s1, s2, d]
    draw_event = draw.table[seat_three[:, None, :, :, None], _VALUES]  # [s1, 1, s2, d, total]
    draw_counts = np.stack(
        [(draw_ways * (draw_event == e)).sum(axis=(3, 4)) for e in range(len(draw.events))], axis=3
    )
    return Cells(composition, stand, draw, stand_counts, draw_counts)


def _scaled_totals(counts: IntArray, pays: tuple[Fraction, ...], scale: int) -> IntArray:
    """Sum over events of count x pay x scale (exact integers: ``scale`` clears the pays' denominators)."""
    weights = np.array([int(p * scale) for p in pays], dtype=np.int64)
    return counts @ weights


def _scale(c: Cells) -> int:
    return int(np.lcm.reduce([p.denominator for p in (*c.stand.pays, *c.draw.pays)]))


def _compare(c: Cells) -> tuple[IntArray, IntArray]:
    """Each cell's total result standing and drawing, on one denominator (ordered six-card sequences)."""
    scale, spare = _scale(c), c.composition.size - 5
    stand = _scaled_totals(c.stand_counts, c.stand.pays, scale) * spare
    draw = _scaled_totals(c.draw_counts, c.draw.pays, scale)
    return stand, draw


def optimal_draws(c: Cells) -> BoolArray:
    """Composition-dependent optimum: draw in cell ``[s1, u, s2]`` when it is worth more than standing.

    A cell where the two are worth exactly the same stands (less money at risk).
    """
    stand, draw = _compare(c)
    return draw > stand


def total_strategy_card(c: Cells) -> BoolArray:
    """The total-dependent strategy card: ``[seat total, up card]`` -> draw."""
    stand, draw = _compare(c)
    card = np.zeros((10, 10), dtype=bool)
    for total in range(10):
        mask = total == TWO_CARD_TOTAL  # [s1, s2]
        card[total] = draw.transpose(0, 2, 1)[mask].sum(axis=0) > stand.transpose(0, 2, 1)[mask].sum(axis=0)
    return card


def total_values(c: Cells) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """``(stand, draw)``: ``[seat total][up card]`` -> the expected result per unit of Enter of standing and
    of drawing, for a seat that decides on its total and the up card (what :func:`total_strategy_card`
    compares; a total and up card that cannot be dealt are worth 0).

    Both are over the ordered six-card sequences of the cells with that total, so comparing them is the
    strategy card's own comparison (its decision is the larger one; equal stands).
    """
    stand, draw = _compare(c)
    size, scale = c.composition.size, _scale(c)
    # every cell's three cards, then three more in order: the six-card sequences both counts are over
    sequences = c.cell_weights.astype(object) * ((size - 3) * (size - 4) * (size - 5))
    stand_values: list[list[Fraction]] = []
    draw_values: list[list[Fraction]] = []
    for total in range(10):
        mask = total == TWO_CARD_TOTAL  # [s1, s2]
        ways = sequences.transpose(0, 2, 1)[mask].sum(axis=0)  # [up]: python ints, no overflow
        stood = stand.transpose(0, 2, 1)[mask].astype(object).sum(axis=0)
        drawn = draw.transpose(0, 2, 1)[mask].astype(object).sum(axis=0)
        for values, sums in ((stand_values, stood), (draw_values, drawn)):
            values.append([Fraction(int(n), int(w) * scale) if w else Fraction(0)
                           for n, w in zip(sums, ways, strict=True)])
    return stand_values, draw_values


def draws_from_card(card: BoolArray) -> BoolArray:
    """Expand a strategy card ``[total, up]`` to the decision in every cell ``[s1, u, s2]``."""
    return card[TWO_CARD_TOTAL[:, None, :], _VALUES[None, :, None]]


def strategy_draws(c: Cells, kind: StrategyKind) -> BoolArray:
    """Decisions per cell for the named strategy."""
    if kind not in STRATEGIES:
        raise ConfigurationError(f"strategy must be one of {', '.join(STRATEGIES)}, got {kind!r}")
    return optimal_draws(c) if kind == "composition" else draws_from_card(total_strategy_card(c))


def enter_combinations(c: Cells, draws: BoolArray) -> dict[str, tuple[Fraction, int]]:
    """Event -> (pays per unit Enter, six-card combinations) of the whole Enter-plus-Draw game."""
    spare = c.composition.size - 5
    result: dict[str, tuple[Fraction, int]] = {}
    for i, (event, pay) in enumerate(zip(c.stand.events, c.stand.pays, strict=True)):
        result[event] = (pay, int(c.stand_counts[..., i][~draws].sum()) * spare)
    for i, (event, pay) in enumerate(zip(c.draw.events, c.draw.pays, strict=True)):
        result[event] = (pay, int(c.draw_counts[..., i][draws].sum()))
    return result


def draw_probability(c: Cells, draws: BoolArray) -> Fraction:
    """Probability that the seat draws under ``draws``."""
    weights = c.cell_weights
    return Fraction(int(weights[draws].sum()), int(weights.sum()))
