"""Struck cards: a game's random multipliers, drawn from the round's provable stream, and how they multiply a pay.

A game may declare a multiplier feature (a rules file's ``[multipliers]``, :class:`Multipliers`): each coup, before
the first card is dealt, a number of cards (rank and suit, say "7 of hearts") is *struck*, each with a multiplier.
A winning bet on a multiplied wager is paid its odds times the product of the multipliers of the winning hand's
cards that are struck (both hands' on a tie; a card struck once and held twice counts twice), at most ``cap``.
A push or a loss is not multiplied.  How many cards are struck and each multiplier come from declared weight tables:
commercial games (Lightning, Golden Wealth, Prosperity Tree) do not publish theirs, so a file's weights are the
designer's (or an assumption, said so in the docs).

The draw (step 9 of ``docs/fairness.md``): the strike of the coup whose first card (after the burn) is at shoe
position ``p`` is read from the stream (steps 3-4) of the key ``HMAC-SHA256(key=the shoe's stream key,
message=b"strike" || p as 2 bytes big-endian)``:

1. how many cards: an index below the sum of the count weights, located in the table from the smallest count up
   (index 0 to ``w1 - 1`` is the first row, and so on);
2. for each struck card in turn: an index below the number of cards not yet struck (52, 51, ...), into the
   deck of step 5 (clubs, diamonds, hearts, spades, each Ace to King) with the struck cards taken out; then its
   multiplier, an index below the sum of the multiplier weights, located from the smallest multiplier up.

The stream key is secret until the shoe's seed is revealed, like the cards, and depends on the players' client
seeds; so the strikes are checked with the shoe, by both verifiers.

>>> feature = Multipliers(wagers=("player",), counts=((1, 1), (2, 1)), values=((2, 3), (8, 1)), cap=64)
>>> strike = draw(bytes(32), 7, feature)
>>> [(str(card), m) for card, m in strike]
[('5d', 2), ('8d', 2)]
>>> factor(strike, [Card("5", "d"), Card("5", "d"), Card("8", "d")], cap=64)
8
>>> factor(strike, [Card("5", "h")], cap=64)
1
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from baccarat.core.cards import Card, standard_deck
from baccarat.core.coup import Coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.fair import HmacStream

#: A coup's struck cards, in the order drawn, each with its multiplier.
Strike = tuple[tuple[Card, int], ...]
#: The most cards a game may strike in one coup, and the largest multiplier and cap it may declare.
MAX_STRUCK = 52
MAX_MULTIPLIER = 1000
MAX_CAP = 10**6


def _table(rows: Sequence[tuple[int, int]], what: str, low: int, high: int) -> tuple[tuple[int, int], ...]:
    """A weight table: (value, weight) rows with distinct values in ``[low, high]`` and positive whole weights,
    sorted by value (the order the draw locates an index in)."""
    if not rows:
        raise ConfigurationError(f"the {what} table is empty: give at least one row")
    for value, weight in rows:
        for number in (value, weight):
            if isinstance(number, bool) or not isinstance(number, int):
                raise ConfigurationError(f"the {what} table holds whole numbers, not {number!r}")
        if not low <= value <= high:
            raise ConfigurationError(f"the {what} table's values are {low} to {high}, not {value}")
        if not 0 < weight <= 10**9:
            raise ConfigurationError(f"the {what} table's weights are whole numbers from 1 to 10^9, not {weight}")
    if len({value for value, _ in rows}) != len(rows):
        raise ConfigurationError(f"the {what} table lists a value twice")
    return tuple(sorted(rows))


@dataclass(frozen=True)
class Multipliers:
    """A game's multiplier feature: which wagers' wins are multiplied, how many cards are struck (a weight table
    of counts), each struck card's multiplier (a weight table), and the most a pay may be multiplied by."""

    wagers: tuple[str, ...]
    counts: tuple[tuple[int, int], ...]  #: (cards struck, weight)
    values: tuple[tuple[int, int], ...]  #: (multiplier, weight)
    cap: int | None = None

    def __post_init__(self) -> None:
        if not self.wagers:
            raise ConfigurationError("a multiplier feature names the wagers whose wins it multiplies")
        object.__setattr__(self, "counts", _table(self.counts, "struck cards", 1, MAX_STRUCK))
        object.__setattr__(self, "values", _table(self.values, "multipliers", 2, MAX_MULTIPLIER))
        if self.cap is not None and (isinstance(self.cap, bool) or not isinstance(self.cap, int)
                                     or not 2 <= self.cap <= MAX_CAP):
            raise ConfigurationError(f"a multiplier cap is a whole number from 2 to {MAX_CAP:,}, not {self.cap!r}")

    def probabilities(self, table: Sequence[tuple[int, int]]) -> tuple[tuple[int, Fraction], ...]:
        """A weight table as exact probabilities."""
        total = sum(weight for _, weight in table)
        return tuple((value, Fraction(weight, total)) for value, weight in table)


def _pick(stream: HmacStream, table: Sequence[tuple[int, int]]) -> int:
    index = stream.randrange(sum(weight for _, weight in table))
    for value, weight in table:
        if index < weight:
            return value
        index -= weight
    raise AssertionError("an index below the total weight falls in a row")  # pragma: no cover


def strike_key(stream_key: bytes, position: int) -> bytes:
    """The key of the strike stream of the coup whose first card is at shoe ``position``."""
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < 2**16:
        raise ConfigurationError(f"a shoe position is 0 to 65535, not {position!r}")
    return hmac.new(stream_key, b"strike" + position.to_bytes(2, "big"), hashlib.sha256).digest()


def draw(stream_key: bytes, position: int, feature: Multipliers) -> Strike:
    """The struck cards and their multipliers of the coup whose first card is at ``position`` in the shoe of
    ``stream_key`` (:func:`baccarat.core.fair.shoe_key`)."""
    stream = HmacStream(strike_key(stream_key, position))
    how_many = _pick(stream, feature.counts)
    left = list(standard_deck())
    struck: list[tuple[Card, int]] = []
    for _ in range(how_many):
        card = left.pop(stream.randrange(len(left)))
        struck.append((card, _pick(stream, feature.values)))
    return tuple(struck)


def factor(strike: Strike, cards: Iterable[Card], *, cap: int | None) -> int:
    """The product of the multipliers of ``cards`` that are struck (each card counted as often as it is held),
    at most ``cap``."""
    of: Mapping[Card, int] = dict(strike)
    product = 1
    for card in cards:
        product *= of.get(card, 1)
    return product if cap is None else min(product, cap)


def winning_cards(coup: Coup) -> tuple[Card, ...]:
    """The cards a multiplier reads: the winning hand's, or both hands' on a tie."""
    winner = coup.winner
    if winner == "tie":
        return (*coup.player_cards, *coup.banker_cards)
    return coup.cards_of(winner)


def coup_factor(strike: Strike, coup: Coup, feature: Multipliers) -> int:
    """What the strike multiplies a winning pay by on this coup."""
    return factor(strike, winning_cards(coup), cap=feature.cap)


def strike_json(strike: Strike) -> list[dict[str, object]]:
    """A strike as stored and sent: ``[{"card": "7h", "multiplier": 3}, ...]``."""
    return [{"card": str(card), "multiplier": multiplier} for card, multiplier in strike]


def strike_from_json(rows: object) -> Strike:
    """The strike of :func:`strike_json`'s form; :class:`ConfigurationError` for anything else."""
    if not isinstance(rows, list):
        raise ConfigurationError("a strike is a list of {card, multiplier}")
    out = []
    for row in rows:
        if not isinstance(row, dict) or set(row) != {"card", "multiplier"} or not isinstance(row["multiplier"], int):
            raise ConfigurationError("a struck card is {card, multiplier}")
        try:
            out.append((Card.parse(row["card"]), row["multiplier"]))
        except ValueError as error:
            raise ConfigurationError(f"a struck card is a card such as \"7h\": {error}") from error
    return tuple(out)
