"""Exact combination counts for every wager of a punto banco game, for any shoe.

The coup is dealt by the engine's own :func:`baccarat.core.coup.deal_coup` and
every wager's event comes from the game's own classifier, so the drawing
rules and the pay tables are read, never restated.  What this module adds is
the counting:

* A coup depends on the cards only through the two-card totals and the two
  possible third cards, so the engine is asked once per distinct key
  ``(player total, banker total, fifth card, sixth card)``.
* The exact number of ordered six-card value sequences (six-card convention)
  behind every key comes from one vectorised product of falling counts.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from baccarat.analysis import cards, patterns
from baccarat.analysis.composition import Composition
from baccarat.analysis.keys import coup_table, key_weights
from baccarat.core import cardfacts
from baccarat.core.cards import Card
from baccarat.core.coup import Coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game, Wager
from baccarat.core.registry import built_in, get_game


def _check_punto_banco(game: Game) -> None:
    if game.kind != "punto_banco":
        raise ConfigurationError(f"{game.name} is not a punto banco game")


# The coup table's deals again with other cards of the same point values, twice: once with no two
# cards alike (no pair, no two of a suit; the table's own deals have pairs of tens), once with each
# hand's first two cards an identical pair wherever its total allows (2 as A-A, 4 as 2-2, ..., 0 as
# 5-5).  A wager said to read point values only must give every coup the same event all three ways.
_OTHER_TENS = ("K", "Q", "J", "K", "Q", "J")
_OTHER_SUITS = ("h", "d", "c", "h", "d", "c")
_PAIR_OF = {0: "5", 2: "A", 4: "2", 6: "3", 8: "4"}  #: two-card total -> the rank of a pair making it


def _dealt(cards: list[Card], like: Coup) -> Coup:
    # The same two-card totals and third cards make the same coup: the record is ``like``'s with
    # these cards (the drawing was decided by the values alone).
    order = tuple((side, card) for (side, _), card in zip(like.deal_order, cards, strict=True))
    return Coup(order, like.player_natural, like.banker_natural, like.player_reason, like.banker_reason)


@cache
def _other_coups() -> tuple[tuple[Coup, ...], tuple[Coup, ...]]:
    card = cache(Card)  # a few dozen distinct cards: made once each, not once per coup

    def unlike(coup: Coup) -> Coup:
        return _dealt([card(_OTHER_TENS[i] if dealt.value == 0 else dealt.rank, _OTHER_SUITS[i])
                       for i, (_, dealt) in enumerate(coup.deal_order)], coup)

    def paired(coup: Coup) -> Coup:
        cards = [card for _, card in coup.deal_order]
        for first, second, total in ((0, 2, coup.player_cards), (1, 3, coup.banker_cards)):
            two = (total[0].value + total[1].value) % 10
            if two in _PAIR_OF:
                cards[first] = cards[second] = card(_PAIR_OF[two], "d")
        return _dealt(cards, coup)

    table = coup_table()
    return tuple(unlike(c) for c in table.coups), tuple(paired(c) for c in table.coups)


def reads_values_only(wager: Wager[Any]) -> bool:
    """Whether ``wager`` gives every coup of the coup table the same event with other cards of the
    same point values (no two alike; identical pairs wherever the totals allow)."""
    table = coup_table()
    unlike, paired = _other_coups()
    return all(wager.event(a) == wager.event(b) == wager.event(c)
               for a, b, c in zip(table.coups, unlike, paired, strict=True))


def _built_in(wager: Wager[Any], game: Game | None) -> bool:
    """Whether ``wager`` is a wager of ``game`` and ``game`` the registry's own built-in game (its
    wagers are in the package's source)."""
    if game is None or not built_in(game.code) or not any(w is wager for w in game.wagers):
        return False
    try:
        return get_game(game.code, paytable=game.paytable) is game
    except ConfigurationError:
        return False


def unpriceable(wager: Wager[Any], composition: Composition | None = None, *, game: Game | None = None) -> str | None:
    """Why ``wager`` cannot be priced exactly (in ``composition``, when given), or None when it can.

    A wager that reads point values only is priced from the coup table; one that reads ranks or
    suits needs its event declared on the coup's facts (``rule``), the ranks of the shoe and, for
    suits, full decks.  A wager said to read values that gives a coup another event when the same
    values come as other ranks and suits is caught here (:func:`reads_values_only`), unless it is a
    wager of a built-in ``game``.
    """
    if wager.depends == "values" and wager.rule is not None:
        return None  # declared on facts of point values only: priced by them, by construction
    if wager.depends == "values":
        # The built-in games' wagers are the package's own code: that they read point values only is
        # checked by a test (tests/analysis/test_wager_guard.py), not again by every run: the check costs more
        # than a punto banco game's first ``baccarat analyze`` itself.
        if not _built_in(wager, game) and not reads_values_only(wager):
            return ("it reads the cards' ranks or suits, not only their point values; declare it on the "
                    "coup's facts (a rules file, or depends and rule) to price it exactly")
        return None
    if wager.depends == "cards":
        return _unpriceable_cards(wager, composition)
    if wager.rule is None:
        return (f"it reads the cards' {wager.depends} through code the analysis cannot follow; declare its events "
                "on the coup's facts (a rules file) to price it exactly")
    if composition is not None and composition.ranks is None:
        return "it depends on the cards' ranks; give full decks (--decks) or a shoe by rank (13 counts, A..K)"
    if composition is not None and wager.depends == "suits" and composition.decks is None:
        return "it depends on the cards' suits, so it needs full decks (--decks), not a partly dealt shoe"
    return None


def _unpriceable_cards(wager: Wager[Any], composition: Composition | None) -> str | None:
    """Why a wager declared on facts of the cards cannot be priced in ``composition``, or None."""
    if wager.declared is None:
        return ("it reads the cards through code the analysis cannot follow; declare its events on the facts of the "
                "cards (a rules file) to price it exactly")
    if composition is None:
        return None
    first, _ = cardfacts.needs_of(cards.read_facts(wager.declared)[1])
    if composition.ranks is None and max(first.rank, first.suit) > 0:
        return "it reads the cards' ranks; give full decks (--decks) or a shoe by rank (13 counts, A..K)"
    if composition.card_counts is None and first.suit > 0:
        return "it reads the cards' suits or colours, so it needs full decks (--decks), not a partly dealt shoe"
    return None


def event_combinations(game: Game, composition: Composition,
                       wagers: tuple[Wager[Any], ...] | None = None) -> dict[str, dict[str, int]]:
    """Exact six-card-convention combinations of every event of every wager.

    Returns ``{wager code: {event: combinations}}`` with the events in pay-table
    order (events that cannot happen are listed with 0).  A wager that cannot be
    priced exactly in this shoe raises :class:`ConfigurationError` saying why.
    ``wagers`` picks some of the game's wagers (default: all).
    """
    _check_punto_banco(game)
    chosen = game.wagers if wagers is None else wagers
    for wager in chosen:
        why = unpriceable(wager, composition, game=game)
        if why is not None:
            raise ConfigurationError(f"{wager.name} cannot be priced exactly: {why}")
    table = coup_table()
    weights = key_weights(composition).ravel()
    flat_index = table.index.ravel()
    by_pattern = None
    result: dict[str, dict[str, int]] = {}
    for wager in chosen:
        events = list(wager.paytable)
        if wager.depends == "cards":
            assert wager.declared is not None and composition.ranks is not None
            result[wager.code] = cards.event_counts(wager.declared, events, cards=composition.card_counts,
                                                    ranks=composition.ranks)
            continue
        if wager.rule is not None and wager.depends != "values":
            if by_pattern is None:
                assert composition.ranks is not None
                by_pattern = patterns.key_pattern_weights(composition.ranks, composition.decks)
            result[wager.code] = patterns.event_counts(wager.rule, events, by_pattern)
            continue
        if wager.rule is not None:  # declared on facts: asked once per distinct set of facts
            coup_event = patterns.coup_events(wager.rule, events)[:, patterns.NO_PATTERN]
        else:
            position = {event: i for i, event in enumerate(events)}
            try:
                coup_event = np.array(list(map(position.__getitem__, map(wager.event, table.coups))), dtype=np.int64)
            except KeyError as unknown:  # an event not in the pay table: the error list.index gives
                raise ValueError(f"{unknown.args[0]!r} is not in list") from None
        key_event = coup_event[flat_index]
        result[wager.code] = {event: int(weights[key_event == i].sum()) for i, event in enumerate(events)}
    return result
