"""Events are frozen records; a replay checks every card against the stored shoe."""

from __future__ import annotations

import dataclasses

import pytest

from baccarat.core.cards import Card
from baccarat.core.errors import ReplayError
from baccarat.core.events import CardDealt, CoupResolved
from baccarat.core.registry import MINI
from baccarat.core.shoe import seeded_rng
from baccarat.core.table import Table


def played_table() -> Table:
    table = Table(MINI, rng=seeded_rng(11))
    table.sit(2, "ann", 5_000)
    for _ in range(3):
        table.open_betting()
        table.place_bets(2, {"banker": 500, "dragon_bonus_banker": 100})
        table.close_betting()
        table.deal()
    return table


def test_events_are_frozen() -> None:
    event = next(e for e in played_table().events if isinstance(e, CardDealt))
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.card = Card("9", "h")  # type: ignore[misc]


def test_a_tampered_card_is_named_by_the_replay() -> None:
    events = played_table().events
    index = next(i for i, e in enumerate(events) if isinstance(e, CardDealt))
    original = events[index]
    assert isinstance(original, CardDealt)
    forged = dataclasses.replace(original, card=Card("9", "h" if original.card.suit != "h" else "s"))
    with pytest.raises(ReplayError, match="where the event says 9"):
        Table.replay(MINI, [*events[:index], forged, *events[index + 1:]])


def test_a_replayed_table_cannot_shuffle_a_new_shoe() -> None:
    table = Table.replay(MINI, played_table().events)
    table.shoe = None
    with pytest.raises(ReplayError, match="cannot shuffle"):
        table.open_betting()


def test_coup_record_holds_cards_in_deal_order_totals_naturals_and_reasons() -> None:
    table = played_table()
    coups = [e.coup for e in table.events if isinstance(e, CoupResolved)]
    assert len(coups) == 3
    for coup in coups:
        assert [side for side, _ in coup.deal_order][:4] == ["player", "banker", "player", "banker"]
        assert coup.player_reason and coup.banker_reason
        assert coup.natural == (coup.player_natural or coup.banker_natural)
