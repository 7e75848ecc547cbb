"""Exact pricing of wagers that read the ranks and suits of the hands' first two cards.

The punto banco analysis (:mod:`baccarat.analysis.punto`) reduces a coup to its point values.  A
wager on pairs needs more: the ranks (and for suited pairs the suits) of the first four cards.  But
nothing else: the rest of the coup is decided by point values.  So the six-card-convention count of
ordered deals splits exactly as

    (ordered first four cards by rank and suit)  x  (fifth and sixth cards by point value, from what is left)

and every fact of :mod:`baccarat.core.facts` is a function of the coup's point values and the *pattern*
of the first four cards (which are pairs, twins, suited).  This module counts, for every coup key
``(player total, banker total, fifth, sixth)`` and every pattern, the ordered deals behind it:

* by rank, from any shoe given by rank (13 counts), enumerating the 13^4 rank sequences of the
  first four cards with falling-factorial weights;
* by rank and suit, for full decks, where each of the 52 cards appears ``decks`` times: the weight
  of a rank sequence summed over suits depends only on which positions share a rank, so a table of
  the 15 equality masks by suit agreement (4^4 suit sequences each) finishes the count.

A wager's events then come from its own rule on :func:`baccarat.core.facts.facts_from`, once per distinct
value-level coup and pattern; nothing here restates a wager.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import product

import numpy as np
import numpy.typing as npt

from baccarat.analysis.keys import coup_table
from baccarat.core.coup import Coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.facts import CoupFacts, Pattern, all_patterns, facts_from

IntArray = npt.NDArray[np.int64]

PATTERNS = all_patterns()
_PATTERN_INDEX = {p: i for i, p in enumerate(PATTERNS)}
#: A pattern with no pair and no suited hand (any will do for a wager on point values only).
NO_PATTERN = _PATTERN_INDEX[Pattern(False, False, False, False, False)]
#: Point value of each rank A, 2, ..., 9, T, J, Q, K.
RANK_VALUES = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], dtype=np.int64)
# Deal order of the first four cards: Player, Banker, Player, Banker.
_P1, _B1, _P2, _B2 = 0, 1, 2, 3
_PAIRS_OF_POSITIONS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


@cache
def _rank_sequences() -> tuple[IntArray, IntArray, IntArray]:
    """Every ordered rank sequence of the first four cards, its value sequence code and its equality mask."""
    ranks = np.array(list(product(range(13), repeat=4)), dtype=np.int64)  # [28561, 4]
    values = RANK_VALUES[ranks]
    vcode = ((values[:, 0] * 10 + values[:, 1]) * 10 + values[:, 2]) * 10 + values[:, 3]
    mask = np.zeros(len(ranks), dtype=np.int64)
    for bit, (i, j) in enumerate(_PAIRS_OF_POSITIONS):
        mask |= (ranks[:, i] == ranks[:, j]).astype(np.int64) << bit
    return ranks, vcode, mask


def _rank_bits(mask: int) -> tuple[bool, bool, bool]:
    """(player pair, banker pair, twin pairs) from an equality mask."""
    equal = {pair: bool(mask >> bit & 1) for bit, pair in enumerate(_PAIRS_OF_POSITIONS)}
    player, banker = equal[(_P1, _P2)], equal[(_B1, _B2)]
    return player, banker, player and banker and equal[(_P1, _B1)]


def _falling_weights(counts: IntArray, items: IntArray) -> IntArray:
    """``prod_i (counts[items[:, i]] - earlier equal items)`` for each row of ``items``."""
    weights = np.ones(len(items), dtype=np.int64)
    for i in range(items.shape[1]):
        earlier = sum((items[:, j] == items[:, i]).astype(np.int64) for j in range(i))
        weights *= np.maximum(counts[items[:, i]] - earlier, 0)
    return weights


@cache
def _suit_table(decks: int) -> dict[int, IntArray]:
    """Equality mask -> ``[player suited, banker suited]`` weight summed over the 4^4 suit sequences.

    With ``decks`` copies of each card, a sequence of (rank, suit) cards weighs
    ``prod (decks - earlier identical cards)``; two cards are identical when rank and suit agree.
    """
    suits = np.array(list(product(range(4), repeat=4)), dtype=np.int64)  # [256, 4]
    player_suited = suits[:, _P1] == suits[:, _P2]
    banker_suited = suits[:, _B1] == suits[:, _B2]
    table = {}
    for mask in set(int(m) for m in _rank_sequences()[2]):
        same_rank = {pair: bool(mask >> bit & 1) for bit, pair in enumerate(_PAIRS_OF_POSITIONS)}
        weights = np.ones(len(suits), dtype=np.int64)
        for i in range(4):
            earlier = sum(((suits[:, j] == suits[:, i]) & same_rank[(j, i)]).astype(np.int64) for j in range(i))
            weights *= np.maximum(decks - earlier, 0)
        cell = np.zeros((2, 2), dtype=np.int64)
        for ps in (0, 1):
            for bs in (0, 1):
                cell[ps, bs] = weights[(player_suited == ps) & (banker_suited == bs)].sum()
        table[mask] = cell
    return table


def first_four(rank_counts: tuple[int, ...], decks: int | None) -> IntArray:
    """``[value sequence code, pattern]``: ordered first-four deals by value sequence and pattern.

    Suits are known only for full decks (``decks``); otherwise every deal is put under the
    patterns with no suited hand, and wagers that read suits are refused before this is asked.
    """
    ranks, vcode, mask = _rank_sequences()
    counts = np.array(rank_counts, dtype=np.int64)
    out = np.zeros((10_000, len(PATTERNS)), dtype=np.int64)
    if decks is None:
        weights = _falling_weights(counts, ranks)
        for m in np.unique(mask):
            pp, bp, twin = _rank_bits(int(m))
            column = _PATTERN_INDEX[Pattern(pp, bp, twin, False, False)]
            chosen = mask == m
            out[:, column] += _sum_by(vcode[chosen], weights[chosen])
        return out
    table = _suit_table(decks)
    for m in np.unique(mask):
        pp, bp, twin = _rank_bits(int(m))
        per_value = np.bincount(vcode[mask == m], minlength=10_000).astype(np.int64)  # rank sequences
        for ps in (0, 1):
            for bs in (0, 1):
                column = _PATTERN_INDEX[Pattern(pp, bp, twin, bool(ps), bool(bs))]
                out[:, column] += per_value * table[int(m)][ps, bs]
    return out


def _sum_by(keys: IntArray, weights: IntArray) -> IntArray:
    """Exact integer sums of ``weights`` by ``keys`` (0..9999): bincount would go through floats."""
    out = np.zeros(10_000, dtype=np.int64)
    np.add.at(out, keys, weights)
    return out


def _rest_weights(value_counts: tuple[int, ...]) -> IntArray:
    """``[value sequence code, fifth * 10 + sixth]``: ways to draw the fifth and sixth values after the first four."""
    counts = np.array(value_counts, dtype=np.int64)
    seq = np.array(list(product(range(10), repeat=4)), dtype=np.int64)  # row i has code i
    fifth = np.repeat(np.arange(10), 10)
    sixth = np.tile(np.arange(10), 10)
    used5 = (seq[:, :, None] == fifth[None, None, :]).sum(axis=1)  # [10000, 100]
    used6 = (seq[:, :, None] == sixth[None, None, :]).sum(axis=1)
    first = np.maximum(counts[fifth][None, :] - used5, 0)
    second = np.maximum(counts[sixth][None, :] - used6 - (fifth == sixth)[None, :], 0)
    return first * second  # type: ignore[no-any-return]


def key_pattern_weights(rank_counts: tuple[int, ...], decks: int | None) -> IntArray:
    """``[pt, bt, fifth, sixth, pattern]``: six-card-convention deals behind each coup key and pattern.

    They sum to ``falling(size, 6)``, as :func:`baccarat.analysis.keys.key_weights` does.
    """
    if len(rank_counts) != 13:
        raise ConfigurationError("a shoe by rank is thirteen counts, A,2,...,9,T,J,Q,K")
    values = [0] * 10
    for rank, n in enumerate(rank_counts):
        values[int(RANK_VALUES[rank])] += n
    a = first_four(rank_counts, decks)  # [10000, P]
    rest = _rest_weights(tuple(values))  # [10000, 100]
    seq = np.arange(10_000)
    v1, v2, v3, v4 = seq // 1000, seq // 100 % 10, seq // 10 % 10, seq % 10
    group = (v1 + v3) % 10 * 10 + (v2 + v4) % 10  # player total, banker total
    out = np.zeros((100, 100, len(PATTERNS)), dtype=np.int64)
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(101))
    for g in range(100):
        rows = order[bounds[g]:bounds[g + 1]]
        out[g] = rest[rows].T @ a[rows]
    return out.reshape(10, 10, 10, 10, len(PATTERNS))


@cache
def _value_classes() -> tuple[IntArray, tuple[Coup, ...]]:
    """Each coup of the coup table mapped to one coup per distinct set of value-level facts."""
    table = coup_table()
    seen: dict[tuple[object, ...], int] = {}
    representatives: list[Coup] = []
    class_of = np.empty(len(table.coups), dtype=np.int64)
    for i, coup in enumerate(table.coups):
        key = (coup.player_total, coup.banker_total, len(coup.player_cards), len(coup.banker_cards),
               coup.player_natural, coup.banker_natural)
        if key not in seen:
            seen[key] = len(representatives)
            representatives.append(coup)
        class_of[i] = seen[key]
    return class_of, tuple(representatives)


@cache
def _class_facts() -> tuple[tuple[CoupFacts, ...], ...]:
    """The facts of every value class under every pattern (the rules of all wagers read these)."""
    return tuple(tuple(facts_from(coup, p) for p in PATTERNS) for coup in _value_classes()[1])


def coup_events(rule: Callable[[CoupFacts], str], events: list[str]) -> IntArray:
    """``[coup of the coup table, pattern]``: the position in ``events`` of each coup's event."""
    class_of, _ = _value_classes()
    by_class = np.array([[events.index(rule(f)) for f in row] for row in _class_facts()], dtype=np.int64)
    return by_class[class_of]


def event_counts(rule: Callable[[CoupFacts], str], events: list[str], weights: IntArray) -> dict[str, int]:
    """Exact deals of each event of a fact-declared wager, from :func:`key_pattern_weights`."""
    event_of = coup_events(rule, events)[coup_table().index.ravel()]  # [key, pattern]
    flat = weights.reshape(10_000, len(PATTERNS))
    return {event: int(flat[event_of == i].sum()) for i, event in enumerate(events)}
