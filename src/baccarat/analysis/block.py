"""Block Bonus, exactly: it depends on the seat's first two cards and the dealer's up card,
by rank (Ace high) and suit, so it is counted over the 52 kinds of card.

The event of every ordered triple (first card, second card, up card) comes
from the engine's :func:`baccarat.core.lucky.block_bonus_event`.  The rule compares
suits only for equality and ranks only by their order, so the engine is asked
once per triple *up to renaming the suits and the ranks in order*: 27 rank
triples of three ranks (every order of three ranks, ties included) times five
suit patterns, 135 questions instead of 140,608 (the suits alone left about
eleven thousand, 10 ms of a fresh ``baccarat analyze lucky-draw``); a test
checks the shortcut against every triple.

Combinations are ordered three-card sequences: ``N (N-1) (N-2)`` in all.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from baccarat.analysis.composition import IntArray
from baccarat.core.cards import RANKS, SUITS, Card
from baccarat.core.lucky import BLOCK_EVENTS, block_bonus_event

#: The 52 kinds of card, index ``rank_index * 4 + suit_index``.
CARD_KINDS = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)


def kind_counts(decks: int) -> IntArray:
    """Cards of each kind in ``decks`` full decks."""
    return np.full(52, decks, dtype=np.int64)


@cache
def event_table() -> IntArray:
    """``[first, second, up]`` card kinds -> index in :data:`baccarat.core.lucky.BLOCK_EVENTS`."""
    # Canonical ranks [first, second, up] by rank index: how the first and second compare (Ace
    # high) with the up card and with each other, one of 27.
    order = np.array([CARD_KINDS[r * len(SUITS)].ace_high_rank for r in range(len(RANKS))])
    oa, ob, ou = order[:, None, None], order[None, :, None], order[None, None, :]
    ranks = (np.sign(oa - ou) + 1) * 9 + (np.sign(ob - ou) + 1) * 3 + np.sign(oa - ob) + 1
    # Canonical suits [first, second, up] by suit index, numbered by first appearance in (up, first,
    # second): one of 0, 1, 3, 4, 5.
    suit = np.arange(len(SUITS))
    sa, sb, su = suit[:, None, None], suit[None, :, None], suit[None, None, :]
    ca = np.where(sa == su, 0, 1)
    cb = np.where(sb == su, 0, np.where(sb == sa, ca, ca + 1))
    suits = ca * 3 + cb
    answers = np.full((27, 6), -1, dtype=np.int64)
    three = [r for r in range(len(RANKS)) if order[r] in (2, 3, 4)]  # three ranks: every order of three
    for a in three:
        for b in three:
            for u in three:
                up = CARD_KINDS[u * 4]  # canonical suit 0
                for p in (0, 1, 3, 4, 5):
                    event = block_bonus_event(CARD_KINDS[a * 4 + p // 3], CARD_KINDS[b * 4 + p % 3], up)
                    answers[ranks[a, b, u], p] = BLOCK_EVENTS.index(event)
    # Kind = rank * 4 + suit: [first rank, first suit, second rank, ..., up suit] is [first, second, up].
    table = answers[ranks[:, None, :, None, :, None], suits[None, :, None, :, None, :]]
    return table.reshape(52, 52, 52)  # type: ignore[no-any-return]


def block_combinations(counts: IntArray) -> dict[str, int]:
    """Ordered (first, second, up) sequences of each Block Bonus event, for cards-per-kind ``counts``."""
    a, b, u = np.ix_(range(52), range(52), range(52))
    weights = counts[a] * np.maximum(counts[b] - (b == a), 0) * np.maximum(counts[u] - (u == a) - (u == b), 0)
    table = event_table()
    return {event: int(weights[table == i].sum()) for i, event in enumerate(BLOCK_EVENTS)}
