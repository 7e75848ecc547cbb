"""Block Bonus, exactly: it depends on the seat's first two cards and the dealer's up card,
by rank (Ace high) and suit, so it is counted over the 52 kinds of card.

The event of every ordered triple (first card, second card, up card) comes
from the engine's :func:`baccarat.lucky.block_bonus_event`.  It is asked once
per triple *up to renaming the suits* (the rule compares suits only for
equality), about eleven thousand questions instead of 140,608; a test checks
the shortcut against every triple.

Combinations are ordered three-card sequences: ``N (N-1) (N-2)`` in all.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from baccarat.analysis.composition import IntArray
from baccarat.cards import RANKS, SUITS, Card
from baccarat.lucky import BLOCK_EVENTS, block_bonus_event

#: The 52 kinds of card, index ``rank_index * 4 + suit_index``.
CARD_KINDS = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)


def kind_counts(decks: int) -> IntArray:
    """Cards of each kind in ``decks`` full decks."""
    return np.full(52, decks, dtype=np.int64)


@cache
def event_table() -> IntArray:
    """``[first, second, up]`` card kinds -> index in :data:`baccarat.lucky.BLOCK_EVENTS`."""
    kinds = np.arange(52)
    rank, suit = kinds // 4, kinds % 4
    ra, rb, ru = rank[:, None, None], rank[None, :, None], rank[None, None, :]
    sa, sb, su = suit[:, None, None], suit[None, :, None], suit[None, None, :]
    # Canonical suits, numbered by first appearance in (up, first, second).
    ca = np.where(sa == su, 0, 1)
    cb = np.where(sb == su, 0, np.where(sb == sa, ca, ca + 1))
    pattern = ca * 3 + cb  # one of 0, 1, 3, 4, 5
    key = ((ra * 13 + rb) * 13 + ru) * 6 + pattern
    answers = np.full(13 * 13 * 13 * 6, -1, dtype=np.int64)
    for a in range(13):
        for b in range(13):
            for u in range(13):
                up = CARD_KINDS[u * 4]  # canonical suit 0
                for p in (0, 1, 3, 4, 5):
                    event = block_bonus_event(CARD_KINDS[a * 4 + p // 3], CARD_KINDS[b * 4 + p % 3], up)
                    answers[((a * 13 + b) * 13 + u) * 6 + p] = BLOCK_EVENTS.index(event)
    return answers[key]  # type: ignore[no-any-return]


def block_combinations(counts: IntArray) -> dict[str, int]:
    """Ordered (first, second, up) sequences of each Block Bonus event, for cards-per-kind ``counts``."""
    a, b, u = np.ix_(range(52), range(52), range(52))
    weights = counts[a] * np.maximum(counts[b] - (b == a), 0) * np.maximum(counts[u] - (u == a) - (u == b), 0)
    table = event_table()
    return {event: int(weights[table == i].sum()) for i, event in enumerate(BLOCK_EVENTS)}
