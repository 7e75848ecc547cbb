"""Defective shuffles: the negative controls the certification battery must catch (docs/certification.md).

Each is a :class:`baccarat.reports.certify.Shuffler` (picklable, so worker processes can deal it) that
deals shoes with one defect a lab has met or could meet.  Two are classic programming mistakes (the
*naive* swap with any position and a byte taken modulo the bound); the others are the defects a lab's
review of the battery found missed (issue 40): a small seed space, shoes derived from the previous
shoe, a rigged first coup, a 16-bit modulo bias, the last card left in place, a sort by short random
keys, too few riffles, a reversed or replayed shoe.

Every shoe ``k`` of a defect seeded ``s`` depends on ``(s, k)`` only (and on shoe ``k - 1`` where the
defect says so), so a chunk of shoes dealt by a worker is the same whoever deals it.  ``power`` runs
each through the battery at several sizes (:mod:`baccarat.reports.power`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from baccarat.core.cards import standard_deck
from baccarat.core.shoe import burn_count

Order = npt.NDArray[np.int16]


def _fresh(seed: int, shoe: int, size: int) -> Order:
    """A perfect shoe: numpy's permutation of the positions, from a generator of (seed, shoe)."""
    return np.random.default_rng([seed, shoe]).permutation(size).astype(np.int16)


@dataclass(frozen=True)
class PerShoe:
    """A shuffle that makes each shoe by :meth:`one` (subclasses); ``__call__`` is the Shuffler."""

    decks: int = 8
    seed: int = 0

    @property
    def size(self) -> int:
        """Cards in the shoe."""
        return 52 * self.decks

    def one(self, shoe: int, previous: Callable[[], Order]) -> Order:
        """Shoe number ``shoe``; ``previous()`` gives shoe ``shoe - 1`` for the defects that read it."""
        return _fresh(self.seed, shoe, self.size)

    def __call__(self, first: int, count: int) -> Order:
        """The permutations of shoes ``first`` ... ``first + count - 1`` (a Shuffler)."""
        made: dict[int, Order] = {}

        def shoe(k: int) -> Order:
            if k not in made:
                made[k] = self.one(k, lambda: shoe(k - 1))
            return made[k]

        return np.stack([shoe(k) for k in range(first, first + count)])


@dataclass(frozen=True)
class Naive(PerShoe):
    """Swap each position with ANY position (not one at or below it): n^n equally likely paths onto n!
    permutations, so some come more often than others."""

    def __call__(self, first: int, count: int) -> Order:
        """The shoes, dealt many at a time (the swaps are the same operation on every row)."""
        rng = np.random.default_rng([self.seed, first])
        n = self.size
        out = np.tile(np.arange(n, dtype=np.int16), (count, 1))
        rows = np.arange(count)
        for i in range(n):
            j = rng.integers(0, n, count)
            out[rows, i], out[rows, j] = out[rows, j], out[rows, i].copy()
        return out


@dataclass(frozen=True)
class ModuloBiased(PerShoe):
    """Fisher-Yates with a draw of ``bits`` random bits taken modulo ``i + 1``: small indexes favoured
    (8 bits: none above 255 ever drawn; 16 bits: a bias of about 1 in 157 at an 8-deck shoe's top)."""

    bits: int = 8

    def __call__(self, first: int, count: int) -> Order:
        """The shoes, dealt many at a time."""
        rng = np.random.default_rng([self.seed, first])
        n = self.size
        out = np.tile(np.arange(n, dtype=np.int16), (count, 1))
        rows = np.arange(count)
        for i in range(n - 1, 0, -1):
            j = rng.integers(0, 2**self.bits, count) % (i + 1)
            out[rows, i], out[rows, j] = out[rows, j], out[rows, i].copy()
        return out


@dataclass(frozen=True)
class SmallSeedSpace(PerShoe):
    """A perfect shuffle seeded from only ``bits`` bits: 2^bits possible shoes (predictable after a few cards)."""

    bits: int = 24

    def one(self, shoe: int, previous: Callable[[], Order]) -> Order:
        """A shoe of the small seed space."""
        small = int(np.random.default_rng([self.seed, shoe]).integers(0, 2**self.bits))
        return np.random.default_rng(small).permutation(self.size).astype(np.int16)


@dataclass(frozen=True)
class DerivedPairs(PerShoe):
    """Every second shoe is the one before it put through one fixed permutation."""

    def one(self, shoe: int, previous: Callable[[], Order]) -> Order:
        """An odd shoe is fresh; an even one is derived."""
        if shoe % 2:
            return _fresh(self.seed, shoe, self.size)
        fixed = np.random.default_rng([self.seed, 0, 1]).permutation(self.size)
        return previous()[fixed]


@dataclass(frozen=True)
class FromPrevious(PerShoe):
    """In a share ``rate`` of shoes the previous shoe comes again: ``reversed`` (read from the bottom)
    or as it was (a replayed shoe)."""

    rate: float = 0.01
    reversed: bool = True

    def one(self, shoe: int, previous: Callable[[], Order]) -> Order:
        """A fresh shoe, or the previous one again."""
        if shoe > 1 and np.random.default_rng([self.seed, shoe, 2]).random() < self.rate:
            last = previous()
            return last[::-1].copy() if self.reversed else last.copy()
        return _fresh(self.seed, shoe, self.size)


@dataclass(frozen=True)
class LastCardInPlace(PerShoe):
    """In a share ``rate`` of shoes the last card of the unshuffled shoe stays where it was."""

    rate: float = 0.01

    def one(self, shoe: int, previous: Callable[[], Order]) -> Order:
        """A fresh shoe, or one whose last card never moved."""
        rng = np.random.default_rng([self.seed, shoe])
        if rng.random() < self.rate:
            return np.append(rng.permutation(self.size - 1), self.size - 1).astype(np.int16)
        return rng.permutation(self.size).astype(np.int16)


@dataclass(frozen=True)
class KeySort(PerShoe):
    """Each card gets a random key of ``bits`` bits and the shoe is sorted by key (ties keep their order).

    ``riffles`` True: the inverse, which is exactly ``bits`` riffle shuffles of the Gilbert-Shannon-Reeds
    model (an a-shuffle with a = 2^bits is the inverse of a stable sort by uniform digits in [0, a)).
    """

    bits: int = 12
    riffles: bool = False

    def __call__(self, first: int, count: int) -> Order:
        """The shoes, dealt many at a time."""
        rng = np.random.default_rng([self.seed, first])
        keys = rng.integers(0, 2**self.bits, (count, self.size))
        order = np.argsort(keys, axis=1, kind="stable")
        if self.riffles:
            order = np.argsort(order, axis=1)
        return order.astype(np.int16)


_VALUES = np.array([card.value for card in standard_deck()], dtype=np.int64)


@dataclass(frozen=True)
class RiggedFirstCoup(PerShoe):
    """In a share ``rate`` of shoes the first coup is made a Banker natural 9 that beats the Player."""

    rate: float = 0.02

    def one(self, shoe: int, previous: Callable[[], Order]) -> Order:
        """A fresh shoe, or one with cards moved into the first coup."""
        rng = np.random.default_rng([self.seed, shoe])
        order = rng.permutation(self.size).astype(np.int16)
        if rng.random() >= self.rate:
            return order
        values = _VALUES[order % 52]
        start = 1 + burn_count(next(c for c in standard_deck() if c.value == values[0]))
        p1, b1, p2, b2 = start, start + 1, start + 2, start + 3

        def bring(position: int, wanted: Callable[[int], bool]) -> None:
            # Swap in the first card from the back of the shoe that is wanted (the back is never dealt here).
            for source in range(self.size - 1, b2, -1):
                if wanted(int(_VALUES[order[source] % 52])):
                    order[position], order[source] = order[source], order[position]
                    values[position], values[source] = values[source], values[position]
                    return

        bring(b1, lambda v: v == 9)
        bring(b2, lambda v: v == 0)
        if (values[p1] + values[p2]) % 10 == 9:
            bring(p2, lambda v: v != values[p2])  # the Player must not tie the natural
        return order


@dataclass(frozen=True)
class Defect:
    """One defective shuffle with what it is and where it was met."""

    code: str
    name: str
    make: Callable[[int], PerShoe] = field(repr=False)  #: seed -> the shuffler (8 decks)


#: Every defect the power table covers, in the order the report lists them.
DEFECTS: tuple[Defect, ...] = (
    Defect("naive", "Naive swap with any position", lambda s: Naive(seed=s)),
    Defect("modulo-8-bit", "Fisher-Yates with a byte modulo the bound", lambda s: ModuloBiased(seed=s, bits=8)),
    Defect("modulo-16-bit", "Fisher-Yates with 16 bits modulo the bound", lambda s: ModuloBiased(seed=s, bits=16)),
    Defect("seed-24-bit", "Only 2^24 possible shoes (a 24-bit seed)", lambda s: SmallSeedSpace(seed=s, bits=24)),
    Defect("derived-pairs", "Every second shoe the previous one through a fixed permutation",
           lambda s: DerivedPairs(seed=s)),
    Defect("rigged-first-coup", "First coup a Banker natural in 2% of shoes", lambda s: RiggedFirstCoup(seed=s)),
    Defect("last-card-0.2%", "Last card left in place in 0.2% of shoes", lambda s: LastCardInPlace(seed=s, rate=0.002)),
    Defect("last-card-1%", "Last card left in place in 1% of shoes", lambda s: LastCardInPlace(seed=s, rate=0.01)),
    Defect("sort-12-bit", "Sort by 12-bit random keys", lambda s: KeySort(seed=s, bits=12)),
    Defect("riffles-10", "Ten riffle shuffles", lambda s: KeySort(seed=s, bits=10, riffles=True)),
    Defect("reversed-1%", "The previous shoe reversed in 1% of shoes", lambda s: FromPrevious(seed=s, rate=0.01)),
    Defect("replayed-0.1%", "The previous shoe dealt again in 0.1% of shoes",
           lambda s: FromPrevious(seed=s, rate=0.001, reversed=False)),
)


def defect(code: str) -> Defect:
    """The defect of ``code`` (KeyError names the known codes)."""
    for d in DEFECTS:
        if d.code == code:
            return d
    raise KeyError(f"no defect {code!r}; known: {', '.join(d.code for d in DEFECTS)}")
