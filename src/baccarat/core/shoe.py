"""The shoe and the casino procedure around it: shuffle, burn, cut card, last coup.

Procedure (``DESIGN.md``): the shuffled shoe's first card is turned face up
and as many more cards are burned as it counts (Ace 1, 2-9 face value, tens
and pictures **ten**); the turned card is burned too.  The cut card lies
``cut_card`` cards from the end.  When it comes out (the first card behind it
is dealt) the coup in progress is completed, **one more coup** is played and
the shoe ends.  A coup is never split across two shoes: when the cards left
cannot cover the coup about to be dealt (a Lucky Draw coup needs up to three
cards per seat plus three), the table ends the shoe and deals that coup from
a new one, with the bets left in place.

Randomness is injected: :func:`live_rng` is the operating system's
cryptographic generator, :func:`seeded_rng` a reproducible one, and a shoe can
be built from an explicit card order for tests and replays.

>>> shoe = Shoe.shuffled(decks=1, rng=seeded_rng(7), cut_card=14)
>>> len(shoe.burned) == 1 + burn_count(shoe.burned[0])
True
>>> shoe.dealt + shoe.remaining == 52
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from baccarat.core.cards import Card, standard_deck
from baccarat.core.errors import ConfigurationError, ShoeError

DEFAULT_DECKS = 8
DEFAULT_CUT_CARD = 14
MAX_DECKS = 16


class RandomSource(Protocol):
    """Anything with ``randrange(stop)``: ``random.SystemRandom``, ``random.Random``..."""

    def randrange(self, stop: int, /) -> int:  # pragma: no cover - protocol
        ...


def live_rng() -> random.SystemRandom:
    """The generator for live play: the operating system's cryptographic source."""
    return random.SystemRandom()


def seeded_rng(seed: int) -> random.Random:
    """A reproducible generator for simulations, tests and scripted play."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ConfigurationError(f"seed must be a non-negative integer, got {seed!r}")
    return random.Random(seed)


def shuffle(cards: Sequence[Card], rng: RandomSource) -> list[Card]:
    """Fisher-Yates shuffle driven only by ``rng.randrange``; returns a new list.

    Written out (instead of ``random.shuffle``) so the algorithm is fixed and
    documented: a verifier with the same generator reproduces the order.
    """
    order = list(cards)
    for i in range(len(order) - 1, 0, -1):
        j = rng.randrange(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def burn_count(turned: Card) -> int:
    """How many cards are burned after the turned card: its value, ten for tens and pictures.

    >>> burn_count(Card.parse("Kd")), burn_count(Card.parse("As")), burn_count(Card.parse("7c"))
    (10, 1, 7)
    """
    return turned.value or 10


def check_decks(decks: object) -> int:
    """Validate a number of decks (1 to :data:`MAX_DECKS`)."""
    if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= MAX_DECKS:
        raise ConfigurationError(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks!r}")
    return decks


def check_cut_card(cut_card: object, shoe_size: int) -> int:
    """Validate a cut-card depth: 0 to half the shoe, counted from its end."""
    if not isinstance(cut_card, int) or isinstance(cut_card, bool) or not 0 <= cut_card <= shoe_size // 2:
        raise ConfigurationError(
            f"cut card must be 0 to {shoe_size // 2} cards from the end of a {shoe_size}-card shoe, got {cut_card!r}"
        )
    return cut_card


class Shoe:
    """Cards in dealing order with a cursor, the burn and the cut card.

    ``Shoe(cards)`` deals ``cards`` in the given order (tests, replays);
    ``burn=True`` applies the burn procedure to the front of that order, as a
    dealer does to a freshly shuffled shoe.
    """

    def __init__(self, cards: Sequence[Card], *, cut_card: int = DEFAULT_CUT_CARD, burn: bool = False):
        if not cards:
            raise ShoeError("a shoe needs at least one card")
        check_cut_card(cut_card, len(cards))
        self.cards: tuple[Card, ...] = tuple(cards)
        self.cut_card = cut_card
        self.position = 0
        self.burned: tuple[Card, ...] = ()
        self._cut_index = len(self.cards) - cut_card
        self._coup_start: int | None = None
        self.last_coup = False  #: the cut card is out: the next coup is the shoe's last
        self.finished = False
        if burn:
            self._burn()

    @classmethod
    def shuffled(cls, *, decks: int = DEFAULT_DECKS, rng: RandomSource, cut_card: int = DEFAULT_CUT_CARD) -> Shoe:
        """A freshly shuffled shoe of ``decks`` decks, burned and ready to deal."""
        cards = standard_deck() * check_decks(decks)
        return cls(shuffle(cards, rng), cut_card=cut_card, burn=True)

    def _burn(self) -> None:
        turned = self.cards[0]
        count = 1 + burn_count(turned)
        if count > len(self.cards) - self.cut_card:
            raise ShoeError("the shoe is too short to burn cards before the cut card")
        self.burned = self.cards[:count]
        self.position = count

    @property
    def remaining(self) -> int:
        """Cards left to deal (behind the cursor)."""
        return len(self.cards) - self.position

    @property
    def dealt(self) -> int:
        """Cards taken from the shoe so far, burned cards included."""
        return self.position

    @property
    def cut_card_out(self) -> bool:
        """Whether the cut card has come out."""
        return self.position > self._cut_index

    @property
    def cut_index(self) -> int:
        """Index of the first card behind the cut card."""
        return self._cut_index

    def can_start_coup(self, max_cards: int) -> bool:
        """Whether a coup that may use up to ``max_cards`` cards can be dealt from this shoe."""
        return not self.finished and self._coup_start is None and self.remaining >= max_cards

    def start_coup(self, max_cards: int) -> None:
        """Begin a coup; refuses one that the remaining cards might not complete."""
        if self._coup_start is not None:
            raise ShoeError("a coup is already being dealt from this shoe")
        if self.finished:
            raise ShoeError("the shoe is finished; a new shoe is needed")
        if self.remaining < max_cards:
            raise ShoeError(
                f"{self.remaining} cards left but a coup may need {max_cards}; a coup is never split"
            )
        self._coup_start = self.position

    def draw(self) -> Card:
        """Deal the next card of the current coup."""
        if self._coup_start is None:
            raise ShoeError("cards are dealt only within a coup (call start_coup first)")
        if self.position >= len(self.cards):
            raise ShoeError("the shoe is empty")
        card = self.cards[self.position]
        self.position += 1
        return card

    def peek(self, offset: int = 0) -> Card:
        """The card ``offset`` places behind the cursor, without dealing it."""
        index = self.position + offset
        if not 0 <= index < len(self.cards):
            raise ShoeError("the shoe is empty")
        return self.cards[index]

    def resume(self, position: int, *, last_coup: bool = False) -> None:
        """Continue a stored shoe: ``position`` cards already taken (burn included).

        For a server that keeps only a shoe's seed and cursor in its database and
        rebuilds the shoe for each round.
        """
        if self._coup_start is not None:
            raise ShoeError("cannot move the cursor during a coup")
        if not isinstance(position, int) or not len(self.burned) <= position <= len(self.cards):
            raise ShoeError(f"a stored position must be from {len(self.burned)} to {len(self.cards)}, got {position!r}")
        self.position, self.last_coup = position, last_coup

    def end_coup(self) -> None:
        """Close the current coup; the shoe ends after the coup that follows the cut card."""
        if self._coup_start is None:
            raise ShoeError("no coup is being dealt")
        self._coup_start = None
        if self.last_coup:
            self.finished = True
        elif self.cut_card_out:
            self.last_coup = True
