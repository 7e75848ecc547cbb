"""Dealing one punto banco coup and the immutable record every wager is settled from.

>>> from baccarat.core.cards import parse_cards
>>> coup = deal_coup(iter(parse_cards(["2h", "3c", "2d", "Kc", "5s", "7h"])).__next__)
>>> [str(c) for c in coup.player_cards], [str(c) for c in coup.banker_cards]
(['2h', '2d', '5s'], ['3c', 'Kc', '7h'])
>>> coup.player_total, coup.banker_total, coup.winner
(9, 0, 'player')
>>> coup.banker_reason
"Banker draws on 3 with the Player's third card 5 (draws when it is 0, 1, 2, 3, 4, 5, 6, 7, 9)."
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from baccarat.core.cards import POINT_VALUES, Card
from baccarat.core.messages import render
from baccarat.core.tableau import (
    NATURAL,
    Why,
    banker_draws,
    banker_reason,
    banker_why,
    is_natural,
    player_draws,
    player_reason,
    player_why,
)

Side = Literal["player", "banker"]
Winner = Literal["player", "banker", "tie"]

#: A punto banco coup never uses more than six cards.
MAX_COUP_CARDS = 6


@dataclass(frozen=True, slots=True)
class Coup:
    """A dealt coup: cards in deal order, totals, naturals, who drew and why."""

    deal_order: tuple[tuple[Side, Card], ...]
    player_natural: bool
    banker_natural: bool
    player_reason: str  #: why the Player drew or stood ("Natural" when a hand had one)
    banker_reason: str
    # Derived once here: the analyzer and the simulator classify coups millions of times.
    player_cards: tuple[Card, ...] = field(init=False, compare=False)  #: the Player hand in deal order
    banker_cards: tuple[Card, ...] = field(init=False, compare=False)  #: the Banker hand in deal order
    player_total: int = field(init=False, compare=False)
    banker_total: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # One pass, lists and the values table: a fresh ``baccarat analyze`` makes thousands of coups,
        # and generator expressions and ``Card.value`` here were a large share of its time.
        player: list[Card] = []
        banker: list[Card] = []
        for side, card in self.deal_order:
            (player if side == "player" else banker).append(card)
        setter = object.__setattr__
        setter(self, "player_cards", tuple(player))
        setter(self, "banker_cards", tuple(banker))
        setter(self, "player_total", sum([POINT_VALUES[card.rank] for card in player]) % 10)
        setter(self, "banker_total", sum([POINT_VALUES[card.rank] for card in banker]) % 10)

    @property
    def natural(self) -> bool:
        """Either hand has a natural (no card was drawn)."""
        return self.player_natural or self.banker_natural

    @property
    def winner(self) -> Winner:
        """``"player"``, ``"banker"`` or ``"tie"``: the hand closest to 9."""
        if self.player_total > self.banker_total:
            return "player"
        if self.banker_total > self.player_total:
            return "banker"
        return "tie"

    @property
    def margin(self) -> int:
        """Points by which the winning hand won (0 on a tie)."""
        return abs(self.player_total - self.banker_total)

    def cards_of(self, side: Side) -> tuple[Card, ...]:
        """The cards of one hand."""
        return self.player_cards if side == "player" else self.banker_cards

    def is_natural(self, side: Side) -> bool:
        """Whether that hand is a natural (8 or 9 with two cards)."""
        return self.player_natural if side == "player" else self.banker_natural


def deal_coup(draw: Callable[[], Card]) -> Coup:
    """Deal a coup by the tableau, taking each card from ``draw()``.

    Order: Player, Banker, Player, Banker, then the Player's third card and the
    Banker's third card as the charts in :mod:`baccarat.core.tableau` decide.
    """
    p1, b1, p2, b2 = draw(), draw(), draw(), draw()
    order: list[tuple[Side, Card]] = [("player", p1), ("banker", b1), ("player", p2), ("banker", b2)]
    player_two = (POINT_VALUES[p1.rank] + POINT_VALUES[p2.rank]) % 10
    banker_two = (POINT_VALUES[b1.rank] + POINT_VALUES[b2.rank]) % 10
    player_natural, banker_natural = is_natural(player_two), is_natural(banker_two)
    if player_natural or banker_natural:
        reason = render(*NATURAL)
        return Coup(tuple(order), player_natural, banker_natural, reason, reason)
    player_third: int | None = None
    if player_draws(player_two):
        card = draw()
        order.append(("player", card))
        player_third = POINT_VALUES[card.rank]
    p_reason = player_reason(player_two)
    b_reason = banker_reason(banker_two, player_third)
    if banker_draws(banker_two, player_third):
        order.append(("banker", draw()))
    return Coup(tuple(order), False, False, p_reason, b_reason)


def reasons(coup: Coup) -> dict[Side, Why]:
    """Why each hand drew or stood, as codes and params (the words are ``player_reason`` and
    ``banker_reason``): read again from the cards, so a stored coup gets them too.

    >>> from baccarat.core.cards import parse_cards
    >>> reasons(deal_coup(iter(parse_cards(["2h", "3c", "2d", "Kc", "5s", "7h"])).__next__))["banker"]
    ('reason.banker_draws_third', {'total': 3, 'third': 5, 'draws_on': [0, 1, 2, 3, 4, 5, 6, 7, 9]})
    """
    if coup.natural:
        return {"player": NATURAL, "banker": NATURAL}
    player, banker = coup.player_cards, coup.banker_cards
    player_two = (POINT_VALUES[player[0].rank] + POINT_VALUES[player[1].rank]) % 10
    banker_two = (POINT_VALUES[banker[0].rank] + POINT_VALUES[banker[1].rank]) % 10
    third = POINT_VALUES[player[2].rank] if len(player) > 2 else None
    return {"player": player_why(player_two), "banker": banker_why(banker_two, third)}
