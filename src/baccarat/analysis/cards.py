"""Exact pricing of wagers that read the cards themselves (:mod:`baccarat.core.cardfacts`).

The six-card convention counts ordered deals of six cards, Player, Banker, Player, Banker, fifth, sixth.  A wager
that reads, say, the colours of the first four cards does not need each card's identity: only its *class*, here
(point value, colour).  Any partition of the 52 cards into classes counts exactly: the ways to deal a sequence of
classes are ``prod (cards of the class left)``, a falling product over class counts, whatever the cards within a
class.  So this module picks, from the facts a wager reads, the coarsest classes that decide them
(:func:`baccarat.core.cardfacts.needs_of`: a point value or a rank, and nothing, a colour or a suit) and walks the
class sequences:

* the first four cards in their classes (at most 52^4), each with its falling weight;
* when no fact reads the third cards beyond their point values, the fifth and sixth cards by point value only,
  joined to the first four by matrix products per pair of two-card totals (as :mod:`baccarat.analysis.patterns`
  does), so the first four may be known to the card;
* otherwise the fifth and sixth cards in their own classes, coarser than or as fine as the first four's (so the
  cards left of a class can be counted from the first four), walked only where the coup draws them.

Every fact is then computed by the same vectorised code the table settles with, on one representative card of
each class; the point-value facts come from the engine's coup for each key (:mod:`baccarat.analysis.keys`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np
import numpy.typing as npt

from baccarat.analysis import patterns
from baccarat.analysis.keys import coup_table
from baccarat.core import cardfacts
from baccarat.core.cards import POINT_VALUES, RANKS
from baccarat.core.coup import Coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.facts import FACT_VALUES, FACTS, facts_from

IntArray = npt.NDArray[np.int64]
Condition = tuple[tuple[str, tuple[object, ...]], ...]
Declared = tuple[tuple[str, Condition], ...]

#: The most class sequences a wager may take to walk (each costs a few hundred nanoseconds): beyond it the wager
#: is refused, naming the facts that make the classes so fine.
MAX_SEQUENCES = 120_000_000
_RANK_VALUE = np.array([POINT_VALUES[r] for r in RANKS], dtype=np.int64)


_SUIT_COLOUR = np.array(cardfacts.SUIT_COLOUR, dtype=np.int64)


# --- the facts of the cards, for many coups at once -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Cards:
    """Many coups' cards by hand position (:data:`~baccarat.core.cardfacts.POSITIONS`), -1 where not dealt."""

    rank: IntArray  #: [n, 6]
    suit: IntArray  #: [n, 6]


def _attribute(cards: Cards, attribute: cardfacts.Attribute) -> IntArray:
    """Each card's attribute (the arrays' counterpart of :func:`baccarat.core.cardfacts.attribute_of`)."""
    rank, suit = cards.rank, np.maximum(cards.suit, 0)
    found = {"rank": rank, "suit": suit, "colour": _SUIT_COLOUR[suit],
             "face": (rank >= cardfacts.FIRST_FACE).astype(np.int64), "card": rank * 4 + suit}[attribute]
    return np.asarray(found, dtype=np.int64)


def _code(fact: cardfacts.CardFact, cards: Cards) -> IntArray:
    """A fact's code for every coup: the numpy interpreter of :class:`~baccarat.core.cardfacts.CardFact`, as
    :func:`baccarat.core.cardfacts.code_of` is the one-coup interpreter."""
    if fact.measure == "sum":
        return np.asarray(sum(_code(cardfacts.PAIR_FACTS[p], cards) for p in fact.parts), dtype=np.int64)
    columns = list(fact.positions)
    read = _attribute(cards, fact.attribute)[:, columns]
    dealt = cards.rank[:, columns] >= 0
    if fact.measure == "at":
        none = 0 if fact.attribute == "face" else cardfacts.KINDS[fact.attribute]
        return np.where(dealt[:, 0], read[:, 0], none)
    if fact.measure == "count":
        return np.asarray(((read == fact.target) & dealt).sum(axis=1), dtype=np.int64)
    if fact.measure == "same":
        first = read[:, :1]
        return np.asarray(((read == first) | ~dealt).all(axis=1), dtype=np.int64)
    tally = np.zeros((len(read), cardfacts.KINDS[fact.attribute]), dtype=np.int64)
    rows = np.arange(len(read))
    for j in range(read.shape[1]):
        np.add.at(tally, (rows, np.where(dealt[:, j], read[:, j], 0)), dealt[:, j].astype(np.int64))
    if fact.measure == "most":
        return np.asarray(tally.max(axis=1), dtype=np.int64)
    if fact.measure == "kinds":
        return np.asarray(((tally >= fact.least) & (tally <= fact.most)).sum(axis=1), dtype=np.int64)
    ordered = np.sort(tally, axis=1)  # full_house
    return np.asarray((ordered[:, -1] >= 3) & (ordered[:, -2] >= 2), dtype=np.int64)


def compute(cards: Cards, names: Iterable[str]) -> dict[str, IntArray]:
    """Each named fact of the cards (:data:`baccarat.core.cardfacts.DECLARED`) for every coup of ``cards``."""
    return {name: _code(cardfacts.DECLARED[name], cards) for name in names}


def cards_of(coups: Iterable[Coup]) -> Cards:
    """Dealt coups' cards by hand position."""
    held = [cardfacts.cards_of(coup) for coup in coups]
    rank = np.array([[-1 if c is None else c[0] for c in row] for row in held], dtype=np.int64).reshape(-1, 6)
    suit = np.array([[-1 if c is None else c[1] for c in row] for row in held], dtype=np.int64).reshape(-1, 6)
    return Cards(rank, suit)


# --- classes of cards ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Classes:
    """A partition of the 52 cards (index ``rank * 4 + suit``) into classes, each with a representative card."""

    of_card: IntArray  #: [52] -> class
    rank: IntArray  #: [classes] the representative's rank (0..12)
    suit: IntArray  #: [classes] its suit (0..3)

    @property
    def size(self) -> int:
        return len(self.rank)

    @property
    def value(self) -> IntArray:
        return _RANK_VALUE[self.rank]


@cache
def classes(rank_level: int, suit_level: int) -> Classes:
    """The classes of cards at these levels of :data:`~baccarat.core.cardfacts.RANK_LEVELS` and
    :data:`~baccarat.core.cardfacts.SUIT_LEVELS`."""
    ranks = np.repeat(np.arange(13), 4)
    suits = np.tile(np.arange(4), 13)
    by_rank = (_RANK_VALUE[ranks], np.where(ranks >= cardfacts.FIRST_FACE, 10, _RANK_VALUE[ranks]), ranks)[rank_level]
    by_suit = (np.zeros(52, dtype=np.int64), _SUIT_COLOUR[suits], suits)[suit_level]
    key = by_rank * 4 + by_suit
    distinct, of_card = np.unique(key, return_inverse=True)
    first = np.array([int(np.flatnonzero(of_card == k)[0]) for k in range(len(distinct))])
    return Classes(of_card.astype(np.int64), ranks[first], suits[first])


def class_counts(found: Classes, cards: Sequence[int] | None, ranks: Sequence[int]) -> IntArray:
    """Cards of each class in the shoe, from its 52 card counts or, when no class reads suits, its 13 rank
    counts."""
    if cards is not None:
        per_card = np.array(cards, dtype=np.int64)
    else:
        if any(len(set(found.of_card[r * 4:(r + 1) * 4].tolist())) != 1 for r in range(13)):
            raise ConfigurationError("a wager that reads suits or colours needs the shoe by card (full decks)")
        per_card = np.zeros(52, dtype=np.int64)
        per_card[::4] = np.array(ranks, dtype=np.int64)  # a rank's four cards share one class
    out = np.zeros(found.size, dtype=np.int64)
    np.add.at(out, found.of_card, per_card)
    return out


# --- the point-value facts of each coup of the coup table, as codes ------------------------------------------------

def code_of(name: str, value: object) -> int:
    """The code of a fact's value in the arrays of this module."""
    if name in cardfacts.DECLARED:
        return cardfacts.DECLARED[name].code(value)
    if name == "winner":
        return FACT_VALUES["winner"].index(value)
    assert isinstance(value, int), (name, value)  # a count or yes/no (bool is an int)
    return int(value)


@cache
def _coup_codes() -> dict[str, IntArray]:
    """Each point-value fact's code for every coup of the coup table."""
    value_names = [name for name, (level, _) in FACTS.items() if level == "values"]
    none = patterns.PATTERNS[patterns.NO_PATTERN]
    rows = [facts_from(coup, none) for coup in coup_table().coups]
    return {name: np.array([code_of(name, getattr(f, name)) for f in rows], dtype=np.int64) for name in value_names}


def prepare() -> None:
    """Compute what every pricing of a wager on the cards reads first (the coup table, each coup's point-value
    facts, who draws the fifth and sixth cards): a process that will price many does it once, up front."""
    _coup_codes()
    _draws()


def events_of(declared: Declared, found: Mapping[str, IntArray], rows: int) -> IntArray:
    """Each row's event (its position in ``declared``): the first whose condition holds."""
    out = np.full(rows, len(declared) - 1, dtype=np.int64)
    for position in range(len(declared) - 2, -1, -1):  # last to first, so the first that holds is kept
        _, condition = declared[position]
        holds = np.ones(rows, dtype=bool)
        for name, values in condition:
            holds &= np.isin(found[name], [code_of(name, v) for v in values])
        out[holds] = position
    return out


def read_facts(declared: Declared) -> tuple[list[str], list[str]]:
    """The facts ``declared`` reads: (point-value facts, facts of the cards)."""
    names = sorted({name for _, condition in declared for name, _ in condition})
    return [n for n in names if n not in cardfacts.DECLARED], [n for n in names if n in cardfacts.DECLARED]


# --- the walk ---------------------------------------------------------------------------------------------------

@cache
def _draws() -> tuple[IntArray, IntArray, IntArray]:
    """For each (Player total, Banker total): who takes the fifth card (0 nobody, 1 Player, 2 Banker), and for each
    fifth card's value whether a sixth is dealt; and the coup table's index."""
    table = coup_table()
    fifth = np.zeros((10, 10), dtype=np.int64)
    sixth = np.zeros((10, 10, 10), dtype=np.int64)
    for pt, bt in product(range(10), range(10)):
        for v in range(10):
            coup = table.coups[int(table.index[pt, bt, v, 0])]
            if len(coup.deal_order) >= 5:
                fifth[pt, bt] = 1 if len(coup.player_cards) == 3 else 2
            sixth[pt, bt, v] = len(coup.deal_order) == 6
    return fifth, sixth, table.index


@cache
def _last_three(size: int) -> IntArray:
    return np.stack(np.meshgrid(*(np.arange(size),) * 3, indexing="ij"), axis=-1).reshape(-1, 3).astype(np.int64)


def _first_fours(live: IntArray, lead: int) -> IntArray:
    """Every sequence of the first four cards' classes that starts with class ``lead`` and takes the rest from the
    classes the shoe holds (``live``): [len(live)^3, 4]."""
    rest = live[_last_three(len(live))]
    return np.column_stack([np.full(len(rest), lead, dtype=np.int64), rest])


def _falling(counts: IntArray, seq: IntArray) -> IntArray:
    weights = np.ones(len(seq), dtype=np.int64)
    for i in range(seq.shape[1]):
        earlier = sum((seq[:, j] == seq[:, i]).astype(np.int64) for j in range(i))
        weights *= counts[seq[:, i]] - earlier  # a factor below 0 follows a factor 0 of the same class
    return weights


def _cards(first: Classes, seq: IntArray, third: Classes | None = None, p3: IntArray | None = None,
           b3: IntArray | None = None) -> Cards:
    """Representative cards by hand position for class sequences (deal order P, B, P, B) and third cards."""
    n = len(seq)
    rank = np.full((n, 6), -1, dtype=np.int64)
    suit = np.full((n, 6), -1, dtype=np.int64)
    for position, column in ((0, 0), (1, 3), (2, 1), (3, 4)):
        rank[:, column], suit[:, column] = first.rank[seq[:, position]], first.suit[seq[:, position]]
    for column, chosen in ((2, p3), (5, b3)):
        if chosen is not None and third is not None:
            dealt = chosen >= 0
            rank[dealt, column], suit[dealt, column] = third.rank[chosen[dealt]], third.suit[chosen[dealt]]
    return Cards(rank, suit)


def event_counts(declared: Declared, events: list[str], *, cards: Sequence[int] | None,
                 ranks: Sequence[int]) -> dict[str, int]:
    """Exact six-card-convention deals of each event of a wager declared on facts of the cards.

    ``cards`` are the shoe's 52 counts (index ``rank * 4 + suit``), or None when only ``ranks`` (13 counts) are
    known; a wager whose facts read suits or colours then raises :class:`ConfigurationError`.
    """
    value_names, card_names = read_facts(declared)
    # a rank fact whose every condition names ranks A to 9 only is decided by the point values (3 Giving 8's
    # "the Player's third card is an 8"): its cards need not be known by rank
    plain = {name for name in card_names if all(cardfacts.by_value(name, values) for _, condition in declared
                                                for named, values in condition if named == name)}
    first_needs, third_needs = cardfacts.needs_of(card_names, plain)
    first = classes(first_needs.rank, first_needs.suit)
    third = classes(third_needs.rank, third_needs.suit)
    n_first = class_counts(first, cards, ranks)
    n_third = class_counts(third, cards, ranks)
    size = int(n_first.sum())
    # facts of the first four cards only: the third cards are walked by point value, through the coup key
    by_event = all(cardfacts.DECLARED[name].needs.scope == "first_four" for name in card_names)
    walk = first.size ** 4 if by_event else first.size ** 4 * (1 + third.size + third.size ** 2) // 3
    if walk > MAX_SEQUENCES:
        raise ConfigurationError(
            f"the facts {', '.join(card_names)} together need each card known by "
            f"{cardfacts.RANK_LEVELS[first_needs.rank]} and {cardfacts.SUIT_LEVELS[first_needs.suit]}, and the third "
            f"cards by {cardfacts.RANK_LEVELS[third_needs.rank]} and {cardfacts.SUIT_LEVELS[third_needs.suit]}: "
            f"about {walk:,} card sequences, more than the {MAX_SEQUENCES:,} priced exactly here; "
            "read the third cards less finely, or fewer facts at once")
    position = {event: i for i, event in enumerate(events)}
    order = np.array([position[event] for event, _ in declared], dtype=np.int64)
    if by_event:
        totals = _by_first_four(declared, value_names, card_names, first, n_first, size)
    else:
        totals = _walk_all(declared, value_names, card_names, first, third, n_first, n_third, size)
    out = {event: 0 for event in events}
    for i, count in enumerate(totals):
        out[events[int(order[i])]] += int(count)
    return out


def value_facts(value_names: Iterable[str], keys: IntArray) -> dict[str, IntArray]:
    """Each named point-value fact's code for coups given by their keys (``((pt * 10 + bt) * 10 + fifth) * 10
    + sixth``)."""
    codes = _coup_codes()
    coup = coup_table().index.ravel()[keys]
    return {name: codes[name][coup] for name in value_names}


def _by_first_four(declared: Declared, value_names: list[str], card_names: list[str], first: Classes,
                   counts: IntArray, size: int) -> IntArray:
    """Facts of the first four cards only (third cards by point value): the first four's class sequences are
    grouped by their value sequence and their facts, then joined to the fifth and sixth values per pair of totals."""
    radix = [max(cardfacts.DECLARED[n].code(v) for v in cardfacts.DECLARED[n].values) + 1 for n in card_names]
    span = int(np.prod(radix, dtype=np.int64)) if radix else 1
    # The first four's weights sum to at most 832^4 < 2^53, so floating-point sums by bincount are exact here.
    dense = 10_000 * span <= 20_000_000
    summed = np.zeros(10_000 * span if dense else 0)
    parts: list[tuple[IntArray, IntArray]] = []
    value = first.value
    live = np.flatnonzero(counts > 0)
    for lead in live:
        seq = _first_fours(live, int(lead))
        weight = _falling(counts, seq)
        seq, weight = seq[weight > 0], weight[weight > 0]
        found = compute(_cards(first, seq), card_names)
        code = np.zeros(len(seq), dtype=np.int64)
        for name, base in zip(card_names, radix, strict=True):
            code = code * base + found[name]
        vcode = ((value[seq[:, 0]] * 10 + value[seq[:, 1]]) * 10 + value[seq[:, 2]]) * 10 + value[seq[:, 3]]
        if dense:
            summed += np.bincount(vcode * span + code, weights=weight.astype(np.float64), minlength=len(summed))
        else:
            parts.append(_summed(vcode * span + code, weight))
    if dense:
        keys = np.flatnonzero(summed)
        sums = summed[keys].astype(np.int64)
    else:
        keys, sums = _summed(np.concatenate([k for k, _ in parts]), np.concatenate([w for _, w in parts]))
    codes, column = np.unique(keys % span, return_inverse=True)
    tuples = np.zeros((len(codes), len(card_names)), dtype=np.int64)
    rest_code = codes.copy()
    for i in range(len(card_names) - 1, -1, -1):
        tuples[:, i], rest_code = rest_code % radix[i], rest_code // radix[i]
    first_four = np.zeros((10_000, len(codes)), dtype=np.int64)
    first_four[keys // span, column.ravel()] = sums
    value_counts = np.zeros(10, dtype=np.int64)
    np.add.at(value_counts, value, counts)
    rest = patterns._rest_weights(tuple(int(x) for x in value_counts))  # [value sequence, fifth * 10 + sixth]
    seqs = np.arange(10_000)
    group = (seqs // 1000 + seqs // 10 % 10) % 10 * 10 + (seqs // 100 % 10 + seqs % 10) % 10
    by_key = np.zeros((100, 100, len(codes)), dtype=np.int64)  # [pt * 10 + bt, fifth * 10 + sixth, facts]
    for g in range(100):
        rows = group == g
        by_key[g] = rest[rows].T @ first_four[rows]
    keys = np.repeat(np.arange(10_000), len(codes))
    facts = {**value_facts(value_names, keys),
             **{name: np.tile(tuples[:, i], 10_000) for i, name in enumerate(card_names)}}
    event = events_of(declared, facts, len(keys))
    weights = by_key.reshape(-1)
    assert int(weights.sum()) == _falling_total(size)
    return np.array([weights[event == i].sum() for i in range(len(declared))], dtype=np.int64)


def _summed(keys: IntArray, weights: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct keys and the exact sum of the weights of each (bincount would sum in floating point)."""
    distinct, inverse = np.unique(keys, return_inverse=True)
    sums = np.zeros(len(distinct), dtype=np.int64)
    np.add.at(sums, inverse.ravel(), weights)
    return distinct, sums


def _falling_total(size: int) -> int:
    total = 1
    for i in range(6):
        total *= size - i
    return total


def _walk_all(declared: Declared, value_names: list[str], card_names: list[str], first: Classes, third: Classes,
              n_first: IntArray, n_third: IntArray, size: int) -> IntArray:
    """Facts that read the third cards finely: the fifth and sixth cards are walked in their classes where the coup
    draws them."""
    fifth_to, sixth_dealt, _ = _draws()
    coarse = third.of_card[np.array([int(np.flatnonzero(first.of_card == k)[0]) for k in range(first.size)])]
    value, third_value = first.value, third.value
    totals = np.zeros(len(declared), dtype=np.int64)
    grand = 0

    def add(keys: IntArray, cards: Cards, weight: IntArray) -> None:
        nonlocal grand
        keep = weight != 0
        if not keep.any():
            return
        keys, weight = keys[keep], weight[keep]
        cards = Cards(cards.rank[keep], cards.suit[keep])
        facts = {**value_facts(value_names, keys), **compute(cards, card_names)}
        event = events_of(declared, facts, len(keys))
        for i in range(len(declared)):
            totals[i] += weight[event == i].sum()
        grand += int(weight.sum())

    live = np.flatnonzero(n_first > 0)
    for lead in live:
        seq = _first_fours(live, int(lead))
        weight = _falling(n_first, seq)
        seq, weight = seq[weight > 0], weight[weight > 0]
        pt = (value[seq[:, 0]] + value[seq[:, 2]]) % 10
        bt = (value[seq[:, 1]] + value[seq[:, 3]]) % 10
        used = np.zeros((len(seq), third.size), dtype=np.int64)  # first-four cards in each third-card class
        for i in range(4):
            np.add.at(used, (np.arange(len(seq)), coarse[seq[:, i]]), 1)
        who = fifth_to[pt, bt]
        base = (pt * 10 + bt) * 100
        four = who == 0
        add(base[four], _cards(first, seq[four]), weight[four] * (size - 4) * (size - 5))
        for c5 in np.flatnonzero(n_third > 0):
            left5 = n_third[c5] - used[:, c5]
            v5 = third_value[c5]
            banker = who == 2
            c = np.full(int(banker.sum()), c5)
            add(base[banker] + v5 * 10, _cards(first, seq[banker], third, None, c),
                weight[banker] * left5[banker] * (size - 5))
            player = who == 1
            five = player & (sixth_dealt[pt, bt, v5] == 0)
            c = np.full(int(five.sum()), c5)
            add(base[five] + v5 * 10, _cards(first, seq[five], third, c, None), weight[five] * left5[five] * (size - 5))
            six = player & (sixth_dealt[pt, bt, v5] == 1)
            for c6 in np.flatnonzero(n_third > 0):
                left6 = n_third[c6] - used[:, c6] - int(c6 == c5)
                c, d = np.full(int(six.sum()), c5), np.full(int(six.sum()), c6)
                add(base[six] + v5 * 10 + third_value[c6], _cards(first, seq[six], third, c, d),
                    weight[six] * left5[six] * left6[six])
    assert grand == _falling_total(size)
    return totals
