"""Facts of a coup's cards themselves: each card's rank, suit and colour by position, counts over the cards, and
combinations across both hands.

:mod:`baccarat.core.facts` holds what the coup's point values decide.  A side bet may read more: whether the
Player's third card is an 8, how many of the first four cards are red, whether the six cards hold three of a rank.
Each such fact is *data* here (:class:`CardFact`): which cards it reads, which attribute of each (rank, suit,
colour, face, the card itself), and one measure over them (the attribute at one position, a count, all the same,
the most of a kind, how many kinds, a full house, or a sum of other facts).  Two interpreters read that data: this
module's, one coup at a time, which the table settles with (:func:`facts_of_coup`), and the exact analysis's, over
millions of card sequences at once (:mod:`baccarat.analysis.cards`); a test holds them to the verifier's reading.
The pair and suit facts of each hand's first two cards are declared here too (:data:`PAIR_FACTS`), so that a wager
reading them beside a fact of the cards is priced from the same cards.

Cards are read by hand position (:data:`POSITIONS`): the Player's first, second and third cards, then the Banker's;
a card is ``(rank, suit)`` with rank 0..12 for A, 2, ..., 9, T, J, Q, K and suit 0..3 for clubs, diamonds, hearts,
spades (:data:`baccarat.core.cards.SUITS`), or None for a third card not dealt.

Each fact also says what the analysis must know of the cards to price it (:class:`Needs`): of which cards (the
first four, the third cards, or all), and how finely, by rank (point value, tens apart from faces, or every rank)
and by suit (nothing, colour, or suit).

>>> from baccarat.core.cards import parse_cards
>>> from baccarat.core.coup import deal_coup
>>> coup = deal_coup(iter(parse_cards(["4h", "3c", "Kd", "Kc", "8s", "7d"])).__next__)
>>> found = facts_of_coup(coup, ["player_third_rank", "count_red_first_four", "most_of_a_rank", "one_colour"])
>>> found["player_third_rank"], found["count_red_first_four"], found["most_of_a_rank"], found["one_colour"]
('8', 2, 2, False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from baccarat.core.cards import RANKS, SUIT_NAMES, SUITS
from baccarat.core.coup import Coup

Scope = Literal["first_four", "third_cards", "all"]
Attribute = Literal["rank", "suit", "colour", "face", "card"]
Measure = Literal["at", "count", "same", "most", "kinds", "full_house", "sum"]
#: A card as the interpreters read it: (rank 0..12, suit 0..3), or None when not dealt.
Held = tuple[int, int] | None

#: The six cards of a coup by hand position (a third card may be missing).
POSITIONS = ("player_first", "player_second", "player_third", "banker_first", "banker_second", "banker_third")
#: Positions of the hands' first two cards, of the third cards, of each hand.
FIRST_FOUR = (0, 1, 3, 4)
THIRD_CARDS = (2, 5)
ALL = (0, 1, 2, 3, 4, 5)
#: Suits as a rules file names them, in the order of :data:`baccarat.core.cards.SUITS`.
SUIT_WORDS = tuple(SUIT_NAMES[s] for s in SUITS)
COLOURS = ("black", "red")
#: Colour of each suit (clubs, diamonds, hearts, spades): 0 black, 1 red.
SUIT_COLOUR = (0, 1, 1, 0)
#: The face cards are J, Q, K (rank 10 and over); a ten is not one.
FIRST_FACE = 10
NONE = "none"
#: How many values each attribute has (the code of "not dealt" at one position is this number).
KINDS = {"rank": 13, "suit": 4, "colour": 2, "face": 2, "card": 52}

#: How finely a fact must know each card's rank and suit (an order: each level tells everything the one before
#: does).
RANK_LEVELS = ("value", "face", "rank")  # point value only; faces apart from tens; every rank
SUIT_LEVELS = ("none", "colour", "suit")
#: What each attribute needs: (rank level, suit level).
_ATTRIBUTE_NEEDS = {"rank": (2, 0), "suit": (0, 2), "colour": (0, 1), "face": (1, 0), "card": (2, 2)}


@dataclass(frozen=True, slots=True)
class Needs:
    """What a fact reads: which cards, and how finely their ranks and suits."""

    scope: Scope
    rank: int = 0  #: index in :data:`RANK_LEVELS`
    suit: int = 0  #: index in :data:`SUIT_LEVELS`


@dataclass(frozen=True, slots=True)
class CardFact:
    """A fact of the cards, as data: the values a rules file may name, the cards and attribute it reads, its
    measure over them.

    Its *code* for a coup (what the interpreters compute) is an index into :attr:`values` for a fact of words, 0/1
    for yes or no, and the number itself for a count.
    """

    name: str
    values: tuple[object, ...]
    positions: tuple[int, ...]  #: indexes into :data:`POSITIONS`
    attribute: Attribute
    measure: Measure
    doc: str
    target: int = 0  #: ``count``: the attribute's value counted (a rank, a suit, 1 for red or a face, a card)
    least: int = 0  #: ``kinds``: how many kinds have from ``least`` to ``most`` cards
    most: int = 0
    parts: tuple[str, ...] = ()  #: ``sum``: the facts added

    @property
    def kind(self) -> type:
        return type(self.values[0])

    @property
    def needs(self) -> Needs:
        if self.parts:
            return _join(PAIR_FACTS[p].needs for p in self.parts)
        scope: Scope = ("first_four" if set(self.positions) <= set(FIRST_FOUR)
                        else "third_cards" if set(self.positions) <= set(THIRD_CARDS) else "all")
        rank, suit = _ATTRIBUTE_NEEDS[self.attribute]
        return Needs(scope, rank, suit)

    def code(self, value: object) -> int:
        """The code of one of :attr:`values`."""
        if isinstance(value, (bool, int)):
            return int(value)
        return self.values.index(value)

    def value(self, code: int) -> object:
        """The value a code stands for."""
        if self.kind is bool:
            return bool(code)
        if self.kind is int:
            return int(code)
        return self.values[code]


def _join(many: Iterable[Needs]) -> Needs:
    found = list(many)
    scopes = {n.scope for n in found}
    scope: Scope = scopes.pop() if len(scopes) == 1 else "all"
    return Needs(scope, max(n.rank for n in found), max(n.suit for n in found))


def attribute_of(card: tuple[int, int], attribute: Attribute) -> int:
    """One card's attribute: its rank, suit, colour (1 red), face (1 for J, Q, K) or the card (rank * 4 + suit)."""
    rank, suit = card
    if attribute == "rank":
        return rank
    if attribute == "suit":
        return suit
    if attribute == "colour":
        return SUIT_COLOUR[suit]
    if attribute == "face":
        return int(rank >= FIRST_FACE)
    return rank * 4 + suit


def code_of(fact: CardFact, cards: Sequence[Held]) -> int:
    """A fact's code for one coup's six cards by hand position: this module's interpreter."""
    if fact.measure == "sum":
        return sum(code_of(PAIR_FACTS[part], cards) for part in fact.parts)
    read = [attribute_of(card, fact.attribute) for card in (cards[i] for i in fact.positions) if card is not None]
    if fact.measure == "at":
        return read[0] if read else (0 if fact.attribute == "face" else KINDS[fact.attribute])
    if fact.measure == "count":
        return sum(a == fact.target for a in read)
    if fact.measure == "same":
        return int(len(set(read)) == 1)
    tally = [*sorted(Counter(read).values(), reverse=True), 0, 0]
    if fact.measure == "most":
        return tally[0]
    if fact.measure == "kinds":
        return sum(fact.least <= n <= fact.most for n in tally)
    return int(tally[0] >= 3 and tally[1] >= 2)  # full_house


def _position_facts() -> list[CardFact]:
    facts = []
    for i, position in enumerate(POSITIONS):
        words = position.replace("_", " ", 1).replace("player", "the Player's").replace("banker", "the Banker's")
        facts += [
            CardFact(f"{position}_rank", (*RANKS, NONE), (i,), "rank", "at",
                     f"the rank of {words} card (A, 2, ..., 9, T, J, Q, K; none when not dealt)"),
            CardFact(f"{position}_suit", (*SUIT_WORDS, NONE), (i,), "suit", "at",
                     f"the suit of {words} card (clubs, diamonds, hearts, spades; none when not dealt)"),
            CardFact(f"{position}_colour", (*COLOURS, NONE), (i,), "colour", "at",
                     f"the colour of {words} card (black, red; none when not dealt)"),
            CardFact(f"{position}_face", (False, True), (i,), "face", "at",
                     f"whether {words} card is a J, Q or K (a ten is not a face; no when not dealt)"),
        ]
    return facts


def _scope_facts(positions: tuple[int, ...], suffix: str, among: str) -> list[CardFact]:
    n = len(positions)
    counts = tuple(range(n + 1))
    kinds = tuple(range(1, n + 1))
    facts = [
        CardFact(f"count_red{suffix}", counts, positions, "colour", "count", f"how many red cards among {among}",
                 target=1),
        CardFact(f"count_black{suffix}", counts, positions, "colour", "count",
                 f"how many black cards among {among}", target=0),
        CardFact(f"count_face{suffix}", counts, positions, "face", "count", f"how many J, Q and K among {among}",
                 target=1),
        CardFact(f"one_colour{suffix}", (False, True), positions, "colour", "same",
                 f"whether {among} are all red or all black"),
    ]
    facts += [CardFact(f"count_rank_{rank.lower()}{suffix}", counts, positions, "rank", "count",
                       f"how many {rank}s among {among}", target=r) for r, rank in enumerate(RANKS)]
    facts += [CardFact(f"count_suit_{word}{suffix}", counts, positions, "suit", "count",
                       f"how many {word} among {among}", target=s) for s, word in enumerate(SUIT_WORDS)]
    facts += [CardFact(f"count_card_{rank.lower()}{suit}{suffix}", counts, positions, "card", "count",
                       f"how many {rank}{suit} among {among}", target=r * 4 + s)
              for r, rank in enumerate(RANKS) for s, suit in enumerate(SUITS)]
    facts += [
        CardFact(f"most_of_a_rank{suffix}", kinds, positions, "rank", "most",
                 f"the most cards of one rank among {among}"),
        CardFact(f"rank_pairs{suffix}", tuple(range(n // 2 + 1)), positions, "rank", "kinds",
                 f"how many ranks appear exactly twice among {among}", least=2, most=2),
        CardFact(f"rank_trips{suffix}", tuple(range(n // 3 + 1)), positions, "rank", "kinds",
                 f"how many ranks appear exactly three times among {among}", least=3, most=3),
        CardFact(f"rank_quads{suffix}", (0, 1), positions, "rank", "kinds",
                 f"how many ranks appear four times or more among {among}", least=4, most=6),
        CardFact(f"full_house{suffix}", (False, True), positions, "rank", "full_house",
                 f"whether {among} hold three of one rank and two or more of another"),
        CardFact(f"most_of_a_suit{suffix}", kinds, positions, "suit", "most",
                 f"the most cards of one suit among {among}"),
        CardFact(f"most_of_a_card{suffix}", kinds, positions, "card", "most",
                 f"the most identical cards (one rank and suit) among {among}"),
    ]
    return facts


#: The pair and suit facts of :mod:`baccarat.core.facts` (each hand's first two cards), as facts of the cards.
PAIR_FACTS: dict[str, CardFact] = {fact.name: fact for fact in (
    CardFact("player_pair", (False, True), (0, 1), "rank", "same", "the Player's first two cards are one rank"),
    CardFact("banker_pair", (False, True), (3, 4), "rank", "same", "the Banker's first two cards are one rank"),
    CardFact("twin_pairs", (False, True), FIRST_FOUR, "rank", "same", "both hands have a pair, of one rank"),
    CardFact("player_suited", (False, True), (0, 1), "suit", "same", "the Player's first two cards are one suit"),
    CardFact("banker_suited", (False, True), (3, 4), "suit", "same", "the Banker's first two cards are one suit"),
    CardFact("player_perfect_pair", (False, True), (0, 1), "card", "same",
             "the Player's first two cards are one rank and suit"),
    CardFact("banker_perfect_pair", (False, True), (3, 4), "card", "same",
             "the Banker's first two cards are one rank and suit"),
)}
PAIR_FACTS.update({fact.name: fact for fact in (
    CardFact("pairs", (0, 1, 2), FIRST_FOUR, "rank", "sum", "how many hands have a pair",
             parts=("player_pair", "banker_pair")),
    CardFact("perfect_pairs", (0, 1, 2), FIRST_FOUR, "card", "sum", "how many hands have a perfect pair",
             parts=("player_perfect_pair", "banker_perfect_pair")),
)})

#: Every fact of the cards a rules file may name beyond :mod:`baccarat.core.facts`, by name.
CARD_FACTS: dict[str, CardFact] = {fact.name: fact for fact in (
    *_position_facts(),
    *_scope_facts(ALL, "", "all the cards dealt"),
    *_scope_facts(FIRST_FOUR, "_first_four", "the first four cards (each hand's first two)"),
    CardFact("player_one_colour", (False, True), (0, 1, 2), "colour", "same",
             "whether all the Player's cards are one colour"),
    CardFact("banker_one_colour", (False, True), (3, 4, 5), "colour", "same",
             "whether all the Banker's cards are one colour"),
)}
#: The facts the analysis computes from card sequences: those above and the pair and suit facts.
DECLARED: dict[str, CardFact] = {**CARD_FACTS, **PAIR_FACTS}


def by_value(name: str, values: Iterable[object]) -> bool:
    """Whether a condition on a rank fact is decided by the cards' point values: it names ranks A to 9 only (each
    its own value) or a missing card, and none of T, J, Q, K (which share the value 0)."""
    fact = DECLARED[name]
    if fact.attribute != "rank":
        return False
    if fact.measure == "at":
        return all(v in RANKS[:9] or v == NONE for v in values)
    return fact.measure == "count" and fact.target < 9


def needs_of(names: Iterable[str], decided_by_value: Iterable[str] = ()) -> tuple[Needs, Needs]:
    """How finely the analysis must know (the first four cards, the third cards) to compute these facts
    (``decided_by_value``: those of them whose conditions the point values decide, :func:`by_value`).

    The first four are known at least as finely as the third cards, so that the cards left for a third card can be
    counted from the first four.
    """
    first = [0, 0]
    third = [0, 0]
    plain = set(decided_by_value)
    for name in names:
        needs = DECLARED[name].needs
        if name in plain:
            needs = Needs(needs.scope, 0, needs.suit)
        for target in ((first,) if needs.scope == "first_four" else (third,) if needs.scope == "third_cards"
                       else (first, third)):
            target[0], target[1] = max(target[0], needs.rank), max(target[1], needs.suit)
    return (Needs("first_four", max(first[0], third[0]), max(first[1], third[1])),
            Needs("third_cards", third[0], third[1]))


def cards_of(coup: Coup) -> list[Held]:
    """One dealt coup's six cards by hand position."""
    held: list[Held] = [None] * 6
    for offset, hand in ((0, coup.player_cards), (3, coup.banker_cards)):
        for j, card in enumerate(hand):
            held[offset + j] = (RANKS.index(card.rank), SUITS.index(card.suit))
    return held


def facts_of_coup(coup: Coup, names: Iterable[str]) -> dict[str, object]:
    """The named facts of one dealt coup, as a rules file writes their values."""
    held = cards_of(coup)
    return {name: DECLARED[name].value(code_of(DECLARED[name], held)) for name in names}
