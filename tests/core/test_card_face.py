"""The squeeze's geometry (core/card_face.py): what a face-down card shows as it is lifted.

The facts pinned here are the ones a squeezer reads at a Macau table, not restatements of the module's
inequalities: a pip card has as many pips as its rank; lifted from the long edge a 4 or 5 shows two pips a side, a 6,
7 or 8 three, a 9 or 10 four; lifted from the short edge the first row is one pip (2, 3) or two (4 to 10) and an
Ace shows nothing until the middle; the index comes first from the corner and never while the thumbs hold an edge's
corners; a lift never hides what a smaller lift of the same edge showed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.core.card_face import EDGES, PIPS, nothing, shows, uncovered
from baccarat.core.cards import RANKS, SUITS, Card

PIP_RANKS = [rank for rank in RANKS if rank not in ("J", "Q", "K")]
#: the pips on each side column, as a squeezer counts "sides"
SIDES = {"A": 0, "2": 0, "3": 0, "4": 2, "5": 2, "6": 3, "7": 3, "8": 3, "9": 4, "T": 4}
#: the pips in the row nearest the short edge
FIRST_ROW = {"A": 0, "2": 1, "3": 1, "4": 2, "5": 2, "6": 2, "7": 2, "8": 2, "9": 2, "T": 2}


@pytest.mark.parametrize("rank", PIP_RANKS)
def test_a_pip_card_has_as_many_pips_as_its_rank_and_shows_them_all_before_it_is_turned(rank):
    assert len(PIPS[rank]) == (10 if rank == "T" else 1 if rank == "A" else int(rank))
    assert len(set(PIPS[rank])) == len(PIPS[rank])
    for edge in EDGES:
        assert len(shows(Card(rank, "h"), edge, 0.999)["pips"]) == len(PIPS[rank])
    assert shows(Card(rank, "h"), "corner", 0.999)["index"] == rank


@pytest.mark.parametrize("rank", PIP_RANKS)
def test_the_long_edge_shows_the_sides_and_the_short_edge_the_first_row(rank):
    side = shows(Card(rank, "s"), "long", 0.35)
    assert len(side["pips"]) == SIDES[rank]
    assert side["index"] is None
    row = shows(Card(rank, "s"), "short", 0.25)
    assert len(row["pips"]) == FIRST_ROW[rank]
    assert row["index"] is None


def test_the_corner_shows_the_index_first_and_the_edges_keep_it_covered():
    for rank in RANKS:
        first = shows(Card(rank, "d"), "corner", 0.1)
        assert first == {"pips": [], "index": rank, "suit": "d", "court": False}
        for edge in ("short", "long"):
            assert all(shows(Card(rank, "d"), edge, lift / 100)["index"] is None for lift in range(100))


def test_a_picture_card_shows_its_frame_and_no_pip():
    for rank in ("J", "Q", "K"):
        for edge in EDGES:
            assert shows(Card(rank, "c"), edge, 0.1 if edge == "corner" else 0.15)["court"] is False
            late = shows(Card(rank, "c"), edge, 0.5)
            assert late["court"] is True and late["pips"] == [] and late["suit"] == "c"


def test_a_flat_card_shows_nothing_and_an_unknown_edge_is_refused():
    for rank in RANKS:
        for edge in EDGES:
            assert shows(Card(rank, "h"), edge, 0) == nothing()
    with pytest.raises(ValueError, match="unknown edge 'top'"):
        shows(Card("7", "h"), "top", 0.5)
    with pytest.raises(ValueError, match="unknown edge"):
        uncovered("middle", 0.5, 0.5, 0.5)


@given(st.sampled_from(RANKS), st.sampled_from(SUITS), st.sampled_from(EDGES),
       st.floats(0, 1), st.floats(0, 1))
def test_a_higher_lift_hides_nothing_a_lower_one_showed(rank, suit, edge, a, b):
    low, high = sorted((a, b))
    card = Card(rank, suit)
    before, after = shows(card, edge, low), shows(card, edge, high)
    assert {tuple(p) for p in before["pips"]} <= {tuple(p) for p in after["pips"]}
    assert before["index"] is None or after["index"] == rank
    assert not before["court"] or after["court"]
    assert before["suit"] is None or after["suit"] == suit
    # what shows is the card's own: its pips, its rank, its suit
    assert {tuple(p) for p in after["pips"]} <= set(PIPS.get(rank, ()))
