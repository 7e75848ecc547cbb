"""Exact returns of wagers multiplied by struck cards (:mod:`baccarat.core.strikes`), and of their fees.

A multiplied win pays its odds times ``F``, the capped product of the multipliers of the winning hand's struck cards.
The strike is drawn apart from the cards, so the return is an expectation of ``F`` given the coup, summed over coups:

* **the coups by point value**: every sequence of point values a full shoe can deal (at most ``10^6``), each with
  its number of ways, its coup (so every wager's event, :mod:`baccarat.analysis.keys`) and how many cards of each
  value the winning hand holds (both hands on a tie);
* **which cards those are**: given the values, the cards of one value are drawn from that value's cards without
  replacement, each card (rank and suit) as likely as another (``decks`` copies each: 4 cards of each value 1 to 9,
  16 of value 0 in a deck).  So the hand's cards fall into groups of equal cards (the same rank and suit) with
  a probability counted exactly (falling products over set partitions), and only the group sizes matter to ``F``;
* **the strike**: ``k`` of the 52 cards are struck (``k`` from the count table), each set of ``k`` as likely as
  another, so ``j`` given groups of the hand are exactly the struck ones with probability
  ``C(52 - h, k - j) / C(52, k)`` (``h`` groups in all); their multipliers are independent draws from the value
  table, and ``E[min(cap, prod m_i^{a_i})]`` is summed over those draws.

All of it in fractions.  This prices a full shoe (the cards of a depleted shoe by suit are not known to the
analysis); a wager whose events read more than point values is not multiplied here (refused at analysis).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, product
from math import comb, prod

import numpy as np
import numpy.typing as npt

from baccarat.analysis.keys import coup_table
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game, Wager
from baccarat.core.strikes import Multipliers

IntArray = npt.NDArray[np.int64]
CARDS = 52
#: Distinct cards (rank and suit) of each point value in one deck: 16 of value 0 (ten to king), 4 of the others.
KINDS = (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)
_BASE = 7  #: a hand's count of one value is 0 to 6: counts are coded in base 7


@dataclass(frozen=True)
class MultipliedReturn:
    """A multiplied wager's exact return in a full shoe."""

    code: str
    expected_value: Fraction  #: net per unit staked, the fee left out
    fee: Fraction  #: per unit staked
    #: each event -> (probability, its average net pay with the multipliers)
    events: tuple[tuple[str, Fraction, Fraction], ...]

    @property
    def return_to_player(self) -> Fraction:
        """What comes back per unit the player pays (stake and fee): ``(1 + EV) / (1 + fee)``."""
        return (1 + self.expected_value) / (1 + self.fee)

    @property
    def house_edge(self) -> Fraction:
        """Of everything the player pays (stake and fee)."""
        return 1 - self.return_to_player


def _set_partitions(n: int) -> Iterator[tuple[int, ...]]:
    """The block sizes of every set partition of ``n`` labelled cards (as many times as each occurs)."""
    def walk(items: int, blocks: list[int]) -> Iterator[tuple[int, ...]]:
        if items == n:
            yield tuple(blocks)
            return
        for i in range(len(blocks)):
            blocks[i] += 1
            yield from walk(items + 1, blocks)
            blocks[i] -= 1
        blocks.append(1)
        yield from walk(items + 1, blocks)
        blocks.pop()
    yield from walk(0, [])


def _falling(n: int, k: int) -> int:
    return prod(range(n - k + 1, n + 1)) if k <= n else 0


@cache
def groups_of_value(held: int, kinds: int, decks: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """How ``held`` cards of one value, dealt from a full shoe, fall into groups of equal cards: each sorted tuple
    of group sizes with its probability.  ``kinds`` distinct cards of the value, ``decks`` of each."""
    found: dict[tuple[int, ...], Fraction] = {}
    whole = _falling(kinds * decks, held)
    for blocks in _set_partitions(held):
        ways = _falling(kinds, len(blocks)) * prod(_falling(decks, b) for b in blocks)
        if ways:
            key = tuple(sorted(blocks))
            found[key] = found.get(key, Fraction(0)) + Fraction(ways, whole)
    return tuple(sorted(found.items()))


def groups_of_hand(held: tuple[int, ...], decks: int) -> dict[tuple[int, ...], Fraction]:
    """The group sizes of a hand holding ``held[v]`` cards of each value ``v`` (values are independent: cards of
    different values are never equal)."""
    found: dict[tuple[int, ...], Fraction] = {(): Fraction(1)}
    for value, count in enumerate(held):
        if not count:
            continue
        joined: dict[tuple[int, ...], Fraction] = {}
        for sizes, p in found.items():
            for more, q in groups_of_value(count, KINDS[value], decks):
                key = tuple(sorted(sizes + more))
                joined[key] = joined.get(key, Fraction(0)) + p * q
        found = joined
    return found


@cache
def _struck_product(sizes: tuple[int, ...], feature: Multipliers) -> Fraction:
    """``E[min(cap, prod m_i^{sizes_i})]`` for independent multipliers ``m_i`` of the value table (summed in whole
    weights, divided once)."""
    whole = 0
    for draws in product(feature.values, repeat=len(sizes)):
        f = prod(m**a for (m, _), a in zip(draws, sizes, strict=True))
        whole += prod(w for _, w in draws) * (f if feature.cap is None else min(f, feature.cap))
    return Fraction(whole, sum(w for _, w in feature.values) ** len(sizes))


@cache
def expected_factor(sizes: tuple[int, ...], feature: Multipliers) -> Fraction:
    """``E[F]`` for a hand whose equal cards form groups of ``sizes``: over how many cards are struck, which of the
    hand's groups are among them, and their multipliers."""
    groups = len(sizes)
    total = Fraction(0)
    for k, pk in feature.probabilities(feature.counts):
        for j in range(min(k, groups) + 1):
            p = Fraction(comb(CARDS - groups, k - j), comb(CARDS, k))
            if not p:
                continue
            for chosen in combinations(range(groups), j):
                total += pk * p * _struck_product(tuple(sorted(sizes[i] for i in chosen)), feature)
    return total


@cache
def _hand_factor(code: int, feature: Multipliers, decks: int) -> Fraction:
    held = tuple((code // _BASE**v) % _BASE for v in range(10))
    return sum((p * expected_factor(sizes, feature) for sizes, p in groups_of_hand(held, decks).items()),
               Fraction(0))


@cache
def value_coups(decks: int) -> tuple[IntArray, IntArray, IntArray]:
    """Every sequence of point values a full shoe of ``decks`` decks deals as a coup: its number of ways (the
    six-card convention's falling products over the cards actually dealt), its coup (an index of
    :func:`~baccarat.analysis.keys.coup_table`) and the coded counts of each value in the winning hand (both hands
    on a tie), in base 7."""
    table = coup_table()
    dealt = np.array([len(c.deal_order) for c in table.coups])
    player_drew = np.array([len(c.player_cards) == 3 for c in table.coups])
    winner = np.array([{"player": 0, "banker": 1, "tie": 2}[c.winner] for c in table.coups])
    seq = np.indices((10,) * 6).reshape(6, -1).T.astype(np.int64)  # p1, b1, p2, b2, fifth, sixth
    p1, b1, p2, b2, fifth, sixth = seq.T
    cid = table.index[(p1 + p2) % 10, (b1 + b2) % 10, fifth, sixth]
    n = dealt[cid]
    keep = ((n >= 5) | (fifth == 0)) & ((n == 6) | (sixth == 0))
    seq, cid, n = seq[keep], cid[keep], n[keep]
    counts = np.array([4 * decks * kinds // 4 for kinds in KINDS], dtype=np.int64)
    size = int(counts.sum())
    ways = np.ones(len(seq), dtype=np.int64)
    for i in range(6):  # a card not dealt stands for any card left (the six-card convention: one total for all)
        prior = (seq[:, :i] == seq[:, i:i + 1]).sum(axis=1)
        ways *= np.where(i < n, counts[seq[:, i]] - prior, size - i)
    keep = ways > 0
    seq, cid, n, ways = seq[keep], cid[keep], n[keep], ways[keep]
    # which hand each card is in: 0 Player, 1 Banker, -1 not dealt
    third_player = player_drew[cid]
    hand = np.stack([np.zeros_like(n), np.ones_like(n), np.zeros_like(n), np.ones_like(n),
                     np.where(n >= 5, np.where(third_player, 0, 1), -1), np.where(n == 6, 1, -1)], axis=1)
    won = winner[cid]
    counted = (hand >= 0) & ((won[:, None] == 2) | (hand == won[:, None]))
    code = (counted * _BASE ** seq).sum(axis=1)
    for array in (ways, cid, code):
        array.flags.writeable = False  # cached: shared by every caller
    return ways, cid, code


def _check(game: Game, wager: Wager[object]) -> None:
    if wager.depends != "values":
        raise ConfigurationError(f"{game.code}: {wager.code} is multiplied and reads more than point values; a "
                                 "multiplied wager is priced on the coup's totals, naturals and third cards only")


_KEPT: dict[tuple[object, ...], dict[str, MultipliedReturn]] = {}


def multiplied_returns(game: Game, decks: int) -> dict[str, MultipliedReturn]:
    """The exact return of each wager struck cards multiply in ``game`` (and of every wager with a fee), in a full
    shoe of ``decks`` decks (kept per game: its rules file's digest, its feature and its fees)."""
    key = (game.code, game.source, game.multipliers, tuple(w.fee for w in game.wagers), decks)
    if key not in _KEPT:
        _KEPT[key] = _returns(game, decks)
    return dict(_KEPT[key])


def _returns(game: Game, decks: int) -> dict[str, MultipliedReturn]:
    feature = game.multipliers
    wagers = [w for w in game.wagers if game.multiplies(w.code) or w.fee]
    for wager in wagers:
        _check(game, wager)
    ways, cid, code = value_coups(decks)
    coups = coup_table().coups
    total = int(ways.sum())
    out = {}
    for wager in wagers:
        events = [wager.event(c) for c in coups]
        names = sorted(set(events))
        event_index = np.array([names.index(e) for e in events])[cid]
        key = event_index * _BASE**10 + code
        keys, inverse = np.unique(key, return_inverse=True)
        summed = np.zeros(len(keys), dtype=np.int64)
        np.add.at(summed, inverse, ways)
        lines = []
        ev = Fraction(0)
        for e, name in enumerate(names):
            odds = wager.paytable[name]
            mine = keys // _BASE**10 == e
            rows = zip((keys[mine] % _BASE**10).tolist(), summed[mine].tolist(), strict=True)
            p = Fraction(int(summed[mine].sum()), total)
            if odds > 0 and feature is not None and game.multiplies(wager.code):
                paid = odds * sum((w * _hand_factor(c, feature, decks) for c, w in rows), Fraction(0)) / total
            else:
                paid = odds * p
            ev += paid
            lines.append((name, p, paid / p if p else odds))
        out[wager.code] = MultipliedReturn(wager.code, ev, wager.fee, tuple(lines))
    return out
