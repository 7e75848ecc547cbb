"""Every punto banco coup by its key, and the weight of each key in a shoe.

A coup's outcome depends on the two totals and the third cards only, so the analysis walks keys
(player total, banker total, fifth and sixth card values) instead of card sequences: :func:`coup_table`
deals the coup of every key once, :func:`key_weights` counts the card sequences of a shoe that give each.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from baccarat.analysis.composition import Composition, IntArray, sequence_weights
from baccarat.core.cards import Card
from baccarat.core.coup import Coup, deal_coup

#: One card of each point value (index = value; 0 stands for tens and pictures).
VALUE_CARDS = (Card("T", "s"), *(Card(rank, "s") for rank in "A23456789"))


def _deal(player_total: int, banker_total: int, fifth: int, sixth: int) -> Coup:
    # Each hand is dealt as (a card of its total, a ten); the engine takes the
    # fifth and sixth cards only if its tableau says so.
    cards = iter([VALUE_CARDS[player_total], VALUE_CARDS[banker_total], VALUE_CARDS[0], VALUE_CARDS[0],
                  VALUE_CARDS[fifth], VALUE_CARDS[sixth]])
    return deal_coup(cards.__next__)


@dataclass(frozen=True)
class CoupTable:
    """Every distinct coup, and which one each key ``[pt, bt, fifth, sixth]`` deals."""

    coups: tuple[Coup, ...]
    index: IntArray  #: shape (10, 10, 10, 10) -> position in :attr:`coups`


@cache
def coup_table() -> CoupTable:
    """The engine's coup for every key, asking the engine once per distinct coup."""
    coups: list[Coup] = []
    index = np.empty((10, 10, 10, 10), dtype=np.int64)

    def add(coup: Coup) -> int:
        coups.append(coup)
        return len(coups) - 1

    for pt in range(10):
        for bt in range(10):
            four = _deal(pt, bt, 0, 0)
            if len(four.deal_order) == 4:
                index[pt, bt] = add(four)
                continue
            for fifth in range(10):
                five = four if fifth == 0 else _deal(pt, bt, fifth, 0)
                if len(five.deal_order) == 5:
                    index[pt, bt, fifth] = add(five)
                    continue
                for sixth in range(10):
                    index[pt, bt, fifth, sixth] = add(five if sixth == 0 else _deal(pt, bt, fifth, sixth))
    return CoupTable(tuple(coups), index)


def key_weights(composition: Composition) -> IntArray:
    """Six-card-convention combinations behind each key ``[pt, bt, fifth, sixth]``.

    Deal order is Player, Banker, Player, Banker, fifth, sixth.  The sum of
    all entries is ``falling(size, 6)``.

    Why not the 10^6 ordered six-card sequences (10 ms and 8 MB an array, a tenth of a fresh
    ``baccarat analyze``): with ``w`` the ways to deal the first four cards and ``m_v`` how many of
    them have value ``v``, the fifth and sixth multiply ``w`` by ``(c_f - m_f)(c_s - m_s - [f = s])``.
    Expanded, the sum over the first fours of each pair of totals needs only ``sum w``, ``sum w m_v``
    and ``sum w m_v m_u``: exact integers from 10^4 first fours.  (No factor needs clamping at 0: one
    below 0 comes after a factor 0 of the same value.)
    """
    counts = composition.array()
    values = np.arange(10)
    w4 = sequence_weights(counts, 4)  # [p1, b1, p2, b2]
    second = (values[:, None] - values[None, :]) % 10  # [total, first card] -> the second card
    p1, b1 = values[None, None, :, None], values[None, None, None, :]  # indexes of [pt, bt, p1, b1]
    p2, b2 = second[:, None, :, None], second[None, :, None, :]
    first_four = w4[p1, b1, p2, b2]  # [pt, bt, p1, b1]
    one = np.eye(10, dtype=np.int64)
    used = one[p1] + one[b1] + one[p2] + one[b2]  # [pt, bt, p1, b1, value]: the m_v
    weighted = first_four[..., None] * used
    s0 = first_four.sum(axis=(2, 3))  # [pt, bt]
    s1 = weighted.sum(axis=(2, 3))  # [pt, bt, value]
    s2 = np.einsum("abpqx,abpqy->abxy", weighted, used)  # [pt, bt, value, value]
    sixth_left = counts[None, :] - one  # [fifth, sixth]: c_s - [f = s]
    fifth_left = counts[:, None]
    return (fifth_left * sixth_left * s0[:, :, None, None]  # type: ignore[no-any-return]
            - fifth_left * s1[:, :, None, :] - sixth_left * s1[:, :, :, None] + s2)
