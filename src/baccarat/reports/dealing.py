"""The shoes the certification battery tests (``baccarat certify``): dealt as the table server deals them.

* the shoe: :func:`baccarat.core.fair.shoe_key` of the algorithm of new shoes (a server seed and the players'
  client seeds) and the HMAC-SHA256 Fisher-Yates of :func:`baccarat.core.fair.fair_cards`;
* the server seed of each shoe: 32 bytes from the operating system's generator
  (:func:`baccarat.core.fair.new_server_seed`), or, for a run that can be repeated, derived from
  ``seed`` and the shoe's number;
* the shoe procedure (burn, cut card, one more coup) and the punto banco tableau of the simulator's
  kernels (:mod:`baccarat.sim.kernels`), which deal shoes to the bit as :class:`baccarat.core.shoe.Shoe`.

Speed: the permutation is computed from the same HMAC stream by a compiled Fisher-Yates
(:func:`_fisher_yates`), and every ``CHECK_EVERY``-th shoe (the first included) is shuffled again by
:func:`baccarat.core.fair.fair_cards` itself; a difference stops the run (:class:`ShuffleMismatch`).
The tests compare the two on 800 seeds and on a stream with rejections put in by hand.

:func:`deal` tallies what the battery (:mod:`baccarat.reports.battery`) reads: tables added over the
shoes (card by position, permutation, shoe-to-shoe moves) and the figures of each shoe in deal order.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import numba
import numpy as np
import numpy.typing as npt

from baccarat.core.cards import standard_deck
from baccarat.core.errors import BaccaratError, ConfigurationError
from baccarat.core.fair import ALGORITHM, fair_cards, new_server_seed, shoe_key
from baccarat.core.registry import get_game
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS, burn_count, check_cut_card, check_decks
from baccarat.reports.exact import RESULT_NAMES
from baccarat.sim.kernels import punto_banco_coup

IntArray = npt.NDArray[np.int64]

#: Every this many shoes (and the first) the shoe is shuffled again by fair.fair_cards and compared.
CHECK_EVERY = 997
#: The client seeds each shoe takes (the server takes those of the players who bet; any will do).
CLIENT_SEEDS = ("certification-lab",)
_BLOCK_WORDS = 8  # 32-bit words in one HMAC-SHA256 block
_CHUNK = 2_000  # shoes a worker deals between two progress reports


class ShuffleMismatch(BaccaratError):
    """The compiled shuffle and :func:`baccarat.core.fair.fair_cards` disagreed on a shoe."""


class Shuffler(Protocol):
    """Deals the permutations of shoes ``first`` to ``first + count - 1``.

    Returns an int16 array ``[count, 52 * decks]``: at each position, the position the card had in
    the unshuffled shoe (``decks`` copies of :func:`baccarat.core.cards.standard_deck`).
    """

    @property
    def decks(self) -> int: ...  # pragma: no cover - protocol

    def __call__(self, first: int, count: int) -> npt.NDArray[np.int16]: ...  # pragma: no cover - protocol


def derived_server_seed(seed: int, shoe: int) -> bytes:
    """The server seed of shoe ``shoe`` in a run seeded ``seed`` (a run that can be repeated)."""
    return hashlib.sha256(f"baccarat certify {seed} shoe {shoe}".encode()).digest()


@numba.njit(cache=True)
def _fisher_yates(words: npt.NDArray[np.uint32], order: npt.NDArray[np.int16]) -> int:  # pragma: no cover
    """fair.py steps 4-5 on the stream ``words``: ``order`` is shuffled in place.

    Returns the number of words used, or -1 when ``words`` ran out (rejections took the spare ones).
    """
    used = 0
    for i in range(order.shape[0] - 1, 0, -1):
        n = np.uint64(i + 1)
        limit = np.uint64(2**32) - np.uint64(2**32) % n
        while True:
            if used == words.shape[0]:
                return -1
            w = np.uint64(words[used])
            used += 1
            if w < limit:
                break
        j = int(w % n)
        order[i], order[j] = order[j], order[i]
    return used


def stream_words(key: bytes, blocks: int) -> npt.NDArray[np.uint32]:
    """fair.py step 3: the first ``blocks`` HMAC-SHA256 blocks of the stream of ``key``, as 32-bit words."""
    data = b"".join([hmac.digest(key, k.to_bytes(8, "big"), "sha256") for k in range(blocks)])
    return np.frombuffer(data, dtype=">u4").astype(np.uint32)


def shuffled(key: bytes, decks: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.uint32], int]:
    """fair.py steps 3-5 for ``key``: the permutation, the stream's words computed for it and how many it read."""
    size = 52 * decks
    blocks = -(-size // _BLOCK_WORDS)  # one word a swap (size - 1) and a spare
    while True:
        order = np.arange(size, dtype=np.int16)
        words = stream_words(key, blocks)
        used = _fisher_yates(words, order)
        if used >= 0:
            return order, words, used
        blocks += 2  # a rejection or two used the spare: a longer stream, the same start


def server_permutation(key: bytes, decks: int) -> npt.NDArray[np.int16]:
    """The permutation :func:`baccarat.core.fair.fair_cards` makes for ``key``, computed fast."""
    return shuffled(key, decks)[0]


@dataclass(frozen=True)
class ServerShuffle:
    """The table server's shoes: :func:`shoe_key` of the algorithm of new shoes, then the HMAC-SHA256 Fisher-Yates.

    ``seed`` None: every server seed from the operating system's generator, as the server makes them.
    """

    decks: int = DEFAULT_DECKS
    seed: int | None = None
    client_seeds: tuple[str, ...] = CLIENT_SEEDS

    def __call__(self, first: int, count: int) -> npt.NDArray[np.int16]:
        """The permutations of shoes ``first`` ... ``first + count - 1`` (see :class:`Shuffler`)."""
        deck = standard_deck()
        index = {card: i for i, card in enumerate(deck)}
        out = np.empty((count, 52 * self.decks), dtype=np.int16)
        for row in range(count):
            number = first + row
            server_seed = new_server_seed() if self.seed is None else derived_server_seed(self.seed, number)
            key = shoe_key(ALGORITHM, server_seed, self.client_seeds)
            out[row] = server_permutation(key, self.decks)
            if number % CHECK_EVERY == 1:  # shoe 1, and every CHECK_EVERY-th after it
                cards = fair_cards(key, self.decks)
                if [index[card] for card in cards] != [int(o) % 52 for o in out[row]]:
                    raise ShuffleMismatch(f"shoe {number}: the compiled shuffle differs from fair.fair_cards")
        return out


#: Gap lengths counted one by one below this; longer gaps share the last bin.
GAP_TOP = 10
#: Cards in one hand of the poker test.
HAND = 5


@numba.njit(cache=True)
def _fnv(kinds: npt.NDArray[np.int64]) -> np.uint64:  # pragma: no cover - compiled
    """A 64-bit FNV-1a hash of a sequence of card kinds (equal shoes, equal hashes)."""
    h = np.uint64(14695981039346656037)
    for k in kinds:
        h = (h ^ np.uint64(k)) * np.uint64(1099511628211)
    return h


@numba.njit(cache=True)
def _coupon(ranks: npt.NDArray[np.int64], start: int, stop: int) -> int:  # pragma: no cover - compiled
    """Cards from ``start`` until every one of the 13 ranks has been seen; ``stop - start + 1`` if not by ``stop``."""
    seen = np.zeros(13, dtype=np.bool_)
    missing = 13
    for p in range(start, stop):
        if not seen[ranks[p]]:
            seen[ranks[p]] = True
            missing -= 1
            if missing == 0:
                return p - start + 1
    return stop - start + 1


@numba.njit(cache=True)
def _tally(orders: npt.NDArray[np.int16], value_of: IntArray, burn: IntArray, cut_card: int,
           player_draws: IntArray, banker_draws: IntArray, natural: IntArray, winner_of_key: IntArray,
           kinds: IntArray, places: IntArray, transitions: IntArray, results: npt.NDArray[np.int8],
           coups: IntArray, first_keys: IntArray, successions: IntArray, gaps: IntArray, poker: IntArray,
           coupons: IntArray, prefixes: IntArray, hashes: npt.NDArray[np.uint64],
           draws: npt.NDArray[np.float64]) -> None:  # pragma: no cover
    """Count each shoe's cards by position, deal it, and take the per-shoe figures the battery reads.

    ``results[s, k]`` is coup ``k``'s result; ``transitions`` counts, for each pair of consecutive shoes
    in ``orders``, each card's position in the first against its position in the second.
    """
    size = orders.shape[1]
    values = np.empty(size, dtype=np.int64)
    ranks = np.empty(size, dtype=np.int64)
    kind = np.empty(size, dtype=np.int64)
    where = np.empty(size, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    current = np.empty(size, dtype=np.int64)
    at = np.empty(size, dtype=np.int64)
    cut_index = size - cut_card
    half = size // 2
    for s in range(orders.shape[0]):
        for p in range(size):
            origin = orders[s, p]
            kind[p] = origin % 52
            kinds[p, kind[p]] += 1
            places[origin, p] += 1
            values[p] = value_of[kind[p]]
            ranks[p] = kind[p] % 13
        # the shoe before this one: where each card went from there to here
        if s > 0:
            for p in range(size):
                where[orders[s, p]] = p
            for p in range(size):
                transitions[p, where[orders[s - 1, p]]] += 1
        hashes[s] = _fnv(kind)
        # The Fisher-Yates draws that make this order (each order has exactly one sequence of draws):
        # position i is settled by the draw of step i, the card then at index j <= i.
        for p in range(size):
            current[p] = p
            at[p] = p
        shift = 0.0
        for i in range(size - 1, 0, -1):
            j = at[orders[s, i]]
            shift += (j + 0.5) / (i + 1) - 0.5
            moved = current[i]
            current[j], current[i] = moved, current[j]
            at[moved], at[current[i]] = j, i
        draws[s] = shift
        prefixes[s] = (np.int64(orders[s, 0]) * size + orders[s, 1]) * size + orders[s, 2]
        run = 0
        for p in range(size - 1):
            if orders[s, p + 1] == orders[s, p] + 1:
                run += 1
        successions[s] = run
        last_mark = -1  # gaps between consecutive tens and pictures
        for p in range(size):
            if values[p] == 0:
                if last_mark >= 0:
                    gaps[s, min(p - last_mark - 1, GAP_TOP)] += 1
                last_mark = p
        for h in range(size // HAND):  # poker hands: how many ranks, how many of the commonest
            counts[:] = 0
            top = 0
            distinct = 0
            for p in range(h * HAND, h * HAND + HAND):
                if counts[ranks[p]] == 0:
                    distinct += 1
                counts[ranks[p]] += 1
                top = max(top, counts[ranks[p]])
            poker[s, _POKER_CLASS[distinct * 6 + top]] += 1
        coupons[s, 0] = _coupon(ranks, 0, half)
        coupons[s, 1] = _coupon(ranks, half, 2 * half)
        pos = 1 + burn[values[0]]
        last = False
        k = 0
        while size - pos >= 6:  # the procedure of sim.kernels.punto_banco_shoe
            key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
            if k == 0:
                first_keys[s] = key
            results[s, k] = winner_of_key[key]
            k += 1
            if last:
                break
            if pos > cut_index:
                last = True
        coups[s] = k


# (distinct ranks * 6 + most of one rank) -> the poker class of POKER_CLASSES
_POKER_CLASS = np.zeros(36, dtype=np.int64)
for _distinct, _top, _class in ((5, 1, 0), (4, 2, 1), (3, 2, 2), (3, 3, 3), (2, 3, 4), (2, 4, 5), (1, 5, 6)):
    _POKER_CLASS[_distinct * 6 + _top] = _class
#: The poker test's classes: the multiplicities of the ranks in five cards.
POKER_CLASSES = ((1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1), (5,))


@cache
def _game_tables(code: str) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The tableau as the kernels read it and the result (Banker, Player, Tie) of every coup key."""
    from baccarat.analysis.keys import coup_table
    from baccarat.sim.outcome_tables import punto_banco_tables

    tables = punto_banco_tables(code)
    table = coup_table()
    winners = np.array([RESULT_NAMES.index(c.winner.capitalize()) for c in table.coups], dtype=np.int64)
    return tables.player_draws, tables.banker_draws, tables.natural, winners[table.index.ravel()]


#: The tables of a :class:`Tally` added over the shoes, and its figures of each shoe, kept in deal order.
TABLES = ("kinds", "places", "transitions")
PER_SHOE = ("results", "coups", "first_keys", "successions", "gaps", "poker", "coupons", "prefixes", "hashes",
            "draws")


@dataclass
class Tally:
    """What the shoes dealt: the tables added over shoes and the figures of each shoe, in deal order."""

    decks: int
    cut_card: int
    kinds: IntArray  #: [position, card kind (standard_deck order)]
    places: IntArray  #: [original position, position]
    transitions: IntArray  #: [position in a shoe, position in the next shoe] of each card
    results: npt.NDArray[np.int8]  #: [shoe, coup]; -1 past the shoe's last coup
    coups: IntArray  #: [shoe] coups dealt
    first_keys: IntArray  #: [shoe] the first coup's key (sim.kernels.punto_banco_coup)
    successions: IntArray  #: [shoe] cards followed by their successor in the unshuffled shoe
    gaps: IntArray  #: [shoe, gap length 0 ... GAP_TOP (and longer)] between consecutive ten-value cards
    poker: IntArray  #: [shoe, POKER_CLASSES] of the shoe's disjoint five-card hands
    coupons: IntArray  #: [shoe, half] cards from the top of each half until all 13 ranks are seen
    prefixes: IntArray  #: [shoe] the original positions of the first three cards, as one number
    hashes: npt.NDArray[np.uint64]  #: [shoe] a 64-bit hash of the shoe's sequence of card kinds
    draws: npt.NDArray[np.float64]  #: [shoe] the sum over steps of the Fisher-Yates draw's place in its range, less 1/2
    first_order: npt.NDArray[np.int16]  #: the first shoe's permutation (to join chunks' transitions)
    last_order: npt.NDArray[np.int16]  #: the last shoe's permutation

    @property
    def shoes(self) -> int:
        """Shoes dealt."""
        return int(self.coups.shape[0])


def _deal_chunk(shuffler: Shuffler, game: str, cut_card: int, first: int, count: int) -> Tally:
    player_draws, banker_draws, natural, winner_of_key = _game_tables(game)
    size = 52 * shuffler.decks
    value_of = np.array([card.value for card in standard_deck()], dtype=np.int64)
    burn = np.array([burn_count(next(c for c in standard_deck() if c.value == v)) for v in range(10)],
                    dtype=np.int64)
    orders = shuffler(first, count)
    tally = Tally(
        shuffler.decks, cut_card, kinds=np.zeros((size, 52), dtype=np.int64),
        places=np.zeros((size, size), dtype=np.int64), transitions=np.zeros((size, size), dtype=np.int64),
        results=np.full((count, size // 4 + 1), -1, dtype=np.int8), coups=np.zeros(count, dtype=np.int64),
        first_keys=np.zeros(count, dtype=np.int64), successions=np.zeros(count, dtype=np.int64),
        gaps=np.zeros((count, GAP_TOP + 1), dtype=np.int64),
        poker=np.zeros((count, len(POKER_CLASSES)), dtype=np.int64), coupons=np.zeros((count, 2), dtype=np.int64),
        prefixes=np.zeros(count, dtype=np.int64), hashes=np.zeros(count, dtype=np.uint64),
        draws=np.zeros(count, dtype=np.float64),
        first_order=orders[0].copy(), last_order=orders[-1].copy())
    _tally(orders, value_of, burn, cut_card, player_draws, banker_draws, natural, winner_of_key, tally.kinds,
           tally.places, tally.transitions, tally.results, tally.coups, tally.first_keys, tally.successions,
           tally.gaps, tally.poker, tally.coupons, tally.prefixes, tally.hashes, tally.draws)
    return tally


def deal(shoes: int, *, shuffler: Shuffler, game: str = "mini", cut_card: int = DEFAULT_CUT_CARD,
         workers: int = 1, progress: Callable[[int], None] | None = None) -> Tally:
    """Deal ``shoes`` shoes of ``shuffler`` at a table of ``game`` and tally them (``workers`` processes).

    ``progress`` is called with the number of shoes dealt so far.
    """
    if not isinstance(shoes, int) or isinstance(shoes, bool) or shoes < 2:
        raise ConfigurationError(f"shoes must be an integer of at least 2, got {shoes!r}")
    decks = check_decks(shuffler.decks)
    check_cut_card(cut_card, 52 * decks)
    if get_game(game).kind != "punto_banco":
        raise ConfigurationError(f"the certification battery deals punto banco games; {game!r} is "
                                 f"{get_game(game).kind.replace('_', ' ')} (its shoes are the same shuffle: "
                                 "certify a punto banco game at the same decks)")
    starts = list(range(1, shoes + 1, _CHUNK))
    parts: list[Tally] = []
    tables: dict[str, IntArray] = {}

    def add(part: Tally) -> None:
        # The tables are added as the chunks come, not kept; the per-shoe figures are kept in order.
        for name in TABLES:
            if name in tables:
                np.add(tables[name], getattr(part, name), out=tables[name])
            else:
                tables[name] = getattr(part, name)
        if parts:  # the pair of shoes across the two chunks
            where = np.argsort(part.first_order)
            np.add.at(tables["transitions"], (np.arange(part.first_order.shape[0]),
                                              where[parts[-1].last_order]), 1)
        for name in TABLES:
            setattr(part, name, np.empty((0, 0), dtype=np.int64))
        parts.append(part)
        if progress is not None:
            progress(sum(p.shoes for p in parts))

    if workers <= 1:
        for start in starts:
            add(_deal_chunk(shuffler, game, cut_card, start, min(_CHUNK, shoes + 1 - start)))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # map keeps the shoes in order: the tests between consecutive shoes read that order.
            for part in pool.map(_deal_chunk, *zip(*[(shuffler, game, cut_card, s, min(_CHUNK, shoes + 1 - s))
                                                     for s in starts], strict=True)):
                add(part)

    def joined(name: str) -> Any:
        return np.concatenate([getattr(p, name) for p in parts])

    figures: dict[str, Any] = {**tables, **{name: joined(name) for name in PER_SHOE}}
    return Tally(decks, cut_card, **figures, first_order=parts[0].first_order, last_order=parts[-1].last_order)
