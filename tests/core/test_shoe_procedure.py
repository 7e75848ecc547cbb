"""The casino procedure of DESIGN.md: decks, shuffle, burn, cut card, last coup, no split coup."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from baccarat.core.cards import RANKS, Card, parse_cards
from baccarat.core.errors import ConfigurationError, ShoeError
from baccarat.core.events import CardDealt, ShoeEnded, ShoeStarted
from baccarat.core.registry import EZ
from baccarat.core.shoe import Shoe, burn_count, live_rng, seeded_rng
from baccarat.core.table import Table


def test_eight_decks_by_default_each_rank_and_suit_32_times() -> None:
    shoe = Shoe.shuffled(rng=seeded_rng(1))
    assert len(shoe.cards) == 416
    assert set(Counter(shoe.cards).values()) == {8}
    assert Counter(card.rank for card in shoe.cards) == {rank: 32 for rank in RANKS}


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_number_of_decks_is_configurable(decks: int) -> None:
    assert len(Shoe.shuffled(decks=decks, rng=seeded_rng(0)).cards) == 52 * decks


@pytest.mark.parametrize("decks", [0, -1, 17, "8", 2.0, True])
def test_bad_number_of_decks_is_refused(decks: object) -> None:
    with pytest.raises(ConfigurationError, match="decks"):
        Shoe.shuffled(decks=decks, rng=seeded_rng(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("cut", [-1, 209, "14", None])
def test_bad_cut_card_is_refused(cut: object) -> None:
    with pytest.raises(ConfigurationError, match="cut card"):
        Shoe.shuffled(rng=seeded_rng(0), cut_card=cut)  # type: ignore[arg-type]


def test_same_seed_same_shoe_different_seed_different_shoe() -> None:
    assert Shoe.shuffled(rng=seeded_rng(42)).cards == Shoe.shuffled(rng=seeded_rng(42)).cards
    assert Shoe.shuffled(rng=seeded_rng(42)).cards != Shoe.shuffled(rng=seeded_rng(43)).cards


def test_live_play_uses_the_operating_systems_cryptographic_generator() -> None:
    assert isinstance(live_rng(), random.SystemRandom)


@pytest.mark.parametrize("rank", RANKS)
def test_first_card_turned_and_that_many_burned_tens_and_faces_burn_ten(rank: str) -> None:
    cards = [Card(rank, "s"), *list(parse_cards(["2h"] * 60))]
    shoe = Shoe(cards, burn=True)
    expected = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}.get(rank, int(rank) if rank.isdigit() else 0)
    assert burn_count(Card(rank, "s")) == expected
    assert len(shoe.burned) == 1 + expected
    assert shoe.position == 1 + expected


def _all_kings_table(count: int, cut: int) -> Table:
    # Every coup of all-zero cards takes six cards (both hands draw).
    return Table(EZ, shoe_factory=lambda: Shoe(parse_cards(["Kc"] * count), cut_card=cut))


def _round(table: Table) -> list[object]:
    events: list[object] = []
    events += table.open_betting()
    events += table.close_betting()
    events += table.deal()
    return events


def test_when_the_cut_card_comes_out_one_more_coup_is_played_and_the_shoe_ends() -> None:
    table = _all_kings_table(60, 14)  # the cut card lies before card index 46, dealt in coup 8
    for coup in range(1, 9):
        events = _round(table)
        assert not any(isinstance(e, ShoeEnded) for e in events), coup
    assert table.shoe is not None and table.shoe.last_coup
    events = _round(table)  # the one more coup
    assert isinstance(events[-1], ShoeEnded)
    assert events[-1].cards_dealt == 54 and events[-1].cards_left == 6
    next_round = table.open_betting()
    assert isinstance(next_round[0], ShoeStarted) and next_round[0].shoe_no == 2


def test_cut_card_coming_out_on_the_first_card_of_a_coup() -> None:
    table = _all_kings_table(60, 18)  # cut before index 42: the first card of coup 8
    for _ in range(7):
        _round(table)
    assert table.shoe is not None and not table.shoe.last_coup
    _round(table)
    assert table.shoe.last_coup
    assert isinstance(_round(table)[-1], ShoeEnded)


def test_a_coup_is_never_split_across_two_shoes() -> None:
    table = _all_kings_table(10, 0)  # 10 cards: one coup, then 4 cards left
    _round(table)
    table.open_betting()
    table.close_betting()
    events = table.deal()
    assert isinstance(events[0], ShoeEnded) and events[0].cards_left == 4
    assert isinstance(events[1], ShoeStarted)
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert len(dealt) == 6 and table.shoe_no == 2


def test_cards_dealt_plus_cards_left_equal_the_shoe() -> None:
    table = Table(EZ, rng=seeded_rng(9))
    dealt = 0
    for _ in range(30):
        dealt += sum(isinstance(e, CardDealt) for e in _round(table))
        if table.shoe is None:
            break
        assert table.shoe.dealt == dealt + len(table.shoe.burned)
        assert table.shoe.dealt + table.shoe.remaining == 416


def test_shoe_refuses_to_deal_outside_a_coup_and_past_its_end() -> None:
    shoe = Shoe(parse_cards(["Kc"] * 6), cut_card=0)
    with pytest.raises(ShoeError, match="within a coup"):
        shoe.draw()
    shoe.start_coup(6)
    for _ in range(6):
        shoe.draw()
    with pytest.raises(ShoeError, match="empty"):
        shoe.draw()
    with pytest.raises(ShoeError):
        Shoe([])


def test_a_stored_shoe_resumes_at_its_cursor() -> None:
    from baccarat.core.errors import ShoeError
    from baccarat.core.shoe import Shoe, seeded_rng

    original = Shoe.shuffled(decks=1, rng=seeded_rng(3), cut_card=14)
    copy = Shoe(original.cards, cut_card=14, burn=True)
    original.start_coup(6)
    dealt = [original.draw() for _ in range(5)]
    original.end_coup()
    copy.resume(original.position, last_coup=original.last_coup)
    assert copy.position == original.position and copy.peek() == original.peek()
    assert dealt[0] == copy.cards[len(copy.burned)]
    for bad in (0, len(copy.cards) + 1, "7"):
        try:
            copy.resume(bad)  # type: ignore[arg-type]
        except ShoeError:
            continue
        raise AssertionError(f"resume({bad!r}) was accepted")
