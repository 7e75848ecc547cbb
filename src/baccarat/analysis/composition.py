"""Shoe compositions by baccarat point value, and exact ordered-draw weights.

A composition is the count of cards of each point value.  Users write it in
the order of the rule cards, ``A,2,3,4,5,6,7,8,9,T`` (``T`` = tens and
pictures); internally it is indexed by point value, so index 0 holds the
ten-value cards.

>>> Composition.parse("4,4,4,4,4,4,4,4,4,16") == Composition.full(1)
True
>>> Composition.full(8).size
416
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from baccarat.core.errors import ConfigurationError
from baccarat.core.shoe import check_decks

#: Value labels in the order users write them (Ace first, ten-value last).
VALUE_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
#: Point value of each position in :data:`VALUE_LABELS`.
LABEL_VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
#: The most cards a composition may hold: 16 decks.  It keeps every six-card
#: combination count (at most 832 x 831 x ... x 827) inside a 64-bit integer.
MAX_CARDS = 16 * 52
#: A punto banco coup (and a heads-up Lucky Draw round) uses at most six cards.
MIN_CARDS = 6

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Composition:
    """Cards left in the shoe, by point value (``counts[v]`` cards of value ``v``; 0 = ten-value)."""

    counts: tuple[int, ...]
    decks: int | None = None  #: set when this is ``decks`` full decks (ranks and suits known)
    ranks: tuple[int, ...] | None = None  #: counts by rank A,2,...,9,T,J,Q,K, when known

    def __post_init__(self) -> None:
        self._check()
        if self.ranks is not None:
            if len(self.ranks) != 13 or not all(isinstance(n, int) and n >= 0 for n in self.ranks):
                raise ConfigurationError("a shoe by rank is thirteen whole counts, A,2,...,9,T,J,Q,K")
            by_value = [0] * 10
            for rank, n in enumerate(self.ranks):
                by_value[rank + 1 if rank < 9 else 0] += n
            if tuple(by_value) != self.counts:
                raise ConfigurationError("the counts by rank do not add up to the counts by value")

    def _check(self) -> None:
        if len(self.counts) != 10 or not all(isinstance(n, int) and not isinstance(n, bool) for n in self.counts):
            raise ConfigurationError("a shoe composition is ten whole counts, A,2,...,9,T")
        if any(n < 0 for n in self.counts):
            raise ConfigurationError("shoe counts cannot be negative")
        if not MIN_CARDS <= self.size <= MAX_CARDS:
            raise ConfigurationError(
                f"the shoe must hold between {MIN_CARDS} and {MAX_CARDS} cards (16 decks), not {self.size}"
            )

    @classmethod
    def full(cls, decks: int) -> Composition:
        """``decks`` full 52-card decks."""
        check_decks(decks)
        return cls((16 * decks,) + (4 * decks,) * 9, decks=decks, ranks=(4 * decks,) * 13)

    @classmethod
    def by_rank(cls, ranks: tuple[int, ...]) -> Composition:
        """A shoe given by rank (A,2,...,9,T,J,Q,K): pair wagers can be priced, suited ones only for full decks."""
        if len(ranks) != 13:
            raise ConfigurationError("a shoe by rank is thirteen whole counts, A,2,...,9,T,J,Q,K")
        by_value = [0] * 10
        for rank, n in enumerate(ranks):
            by_value[rank + 1 if rank < 9 else 0] += n
        composition = cls(tuple(by_value), ranks=tuple(ranks))
        full = composition.as_full()
        return full if full is not None and full.ranks == composition.ranks else composition

    @classmethod
    def parse(cls, text: str) -> Composition:
        """Parse ``"A,2,...,9,T"`` counts, e.g. ``"32,32,32,32,32,32,32,32,32,128"``."""
        parts = [part.strip() for part in str(text).split(",")]
        if len(parts) not in (10, 13) or not all(part.isascii() and part.isdigit() for part in parts):
            raise ConfigurationError(
                f"--shoe takes ten whole counts in the order {','.join(VALUE_LABELS)}, or thirteen by rank "
                f"A,2,...,9,T,J,Q,K; got {text!r}"
            )
        if len(parts) == 13:
            return cls.by_rank(tuple(int(part) for part in parts))
        by_label = [int(part) for part in parts]
        counts = [0] * 10
        for value, count in zip(LABEL_VALUES, by_label, strict=True):
            counts[value] = count
        composition = cls(tuple(counts))
        return composition.as_full() or composition

    def as_full(self) -> Composition | None:
        """This composition marked as full decks, when it is exactly that."""
        decks, rest = divmod(self.size, 52)
        if rest == 0 and 1 <= decks <= 16 and self.counts == Composition.full(decks).counts:
            return Composition.full(decks)
        return None

    @property
    def card_counts(self) -> tuple[int, ...] | None:
        """Cards of each of the 52 kinds (index ``rank * 4 + suit``), when the shoe is full decks."""
        return (self.decks,) * 52 if self.decks is not None else None

    @property
    def size(self) -> int:
        """Number of cards."""
        return sum(self.counts)

    def without(self, value: int) -> Composition:
        """The composition with one card of ``value`` removed (for effects of removal)."""
        if self.counts[value] == 0:
            raise ConfigurationError(f"no card of value {value} left to remove")
        counts = list(self.counts)
        counts[value] -= 1
        return Composition(tuple(counts))

    def without_rank(self, rank: int) -> Composition:
        """The composition with one card of ``rank`` (0 = Ace ... 12 = King) removed; needs the ranks."""
        if self.ranks is None or self.ranks[rank] == 0:
            raise ConfigurationError("no card of that rank left to remove")
        ranks = list(self.ranks)
        ranks[rank] -= 1
        return Composition.by_rank(tuple(ranks)) if sum(ranks) >= MIN_CARDS else Composition(self.counts)

    def array(self) -> IntArray:
        """Counts as an int64 array indexed by point value."""
        return np.array(self.counts, dtype=np.int64)

    def label(self) -> str:
        """``"8 decks"`` or the counts in user order."""
        if self.decks is not None:
            return f"{self.decks} deck" + ("s" if self.decks > 1 else "")
        if self.ranks is not None:
            return "shoe " + ",".join(str(n) for n in self.ranks) + " (A..9,T,J,Q,K)"
        return "shoe " + ",".join(str(self.counts[v]) for v in LABEL_VALUES) + " (A..9,T)"


def falling(n: int, k: int) -> int:
    """``n (n-1) ... (n-k+1)``: ordered ways to draw ``k`` cards from ``n``.

    >>> falling(416, 6)
    4998398275503360
    """
    result = 1
    for i in range(k):
        result *= n - i
    return result


def sequence_weights(counts: IntArray, length: int) -> IntArray:
    """Exact number of ways to draw each ordered sequence of ``length`` point values.

    The result has shape ``(10,) * length``; entry ``[v1, ..., vk]`` is
    ``prod_i (counts[v_i] - number of earlier v_i)``.  The entries sum to
    ``falling(counts.sum(), length)``.
    """
    axes = [np.arange(10).reshape((1,) * i + (10,) + (1,) * (length - i - 1)) for i in range(length)]
    weights: IntArray = np.ones((1,) * length, dtype=np.int64)
    for i, axis in enumerate(axes):
        earlier = sum((axes[j] == axis).astype(np.int64) for j in range(i))
        weights = weights * np.maximum(counts[axis] - earlier, 0)
    return weights
