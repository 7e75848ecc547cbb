"""What a card lying face down shows as its squeezer lifts it: the geometry of the squeeze.

A card's face is drawn on a unit square (``x`` across the short side from the left, ``y`` along the long side from
the top: the card's proportions are the page's business).  Its pips stand where a casino deck puts them (three
columns, ``x`` 0.3, 0.5 and 0.7, between ``y`` 0.2 and 0.8), a picture card's picture fills the frame
:data:`COURT`, and the index (rank and suit) sits in the top-left and bottom-right corners.

A squeezer lifts the card from one of three places (:data:`EDGES`), as the squeeze is played in Macau:

``corner``
    the bottom-right corner folded up along a diagonal: the index first, then the pips nearest that corner;
``short``
    the bottom short edge bent up with the thumbs on its corners: the pips row by row from the bottom ("the
    heads"), the index kept covered;
``long``
    the right long edge bent up with the thumbs on its corners: the pips column by column from the right ("the
    sides": two pips a side is a 4 or 5, three a 6, 7 or 8, four a 9 or 10), the index kept covered.

:func:`shows` is the part of the face uncovered at a lift (0 flat, 1 turned): the only part of a face the server
sends while the card is squeezed, so no watcher's screen can hold more than the table shows.

>>> shows(Card.parse("7h"), "long", 0.35)["pips"]
[[0.7, 0.2], [0.7, 0.5], [0.7, 0.8]]
>>> shows(Card.parse("7h"), "corner", 0.1)["index"], shows(Card.parse("7h"), "short", 0.9)["index"]
('7', None)
"""

from __future__ import annotations

from typing import TypedDict

from baccarat.core.cards import Card

#: Where a squeezer lifts a card from (see the module's description).
EDGES = ("corner", "short", "long")

_LEFT, _MIDDLE, _RIGHT = 0.3, 0.5, 0.7
_FOUR = ((_LEFT, 0.2), (_RIGHT, 0.2), (_LEFT, 0.8), (_RIGHT, 0.8))
_SIX = (*_FOUR, (_LEFT, 0.5), (_RIGHT, 0.5))
_EIGHT_SIDES = tuple((x, y) for x in (_LEFT, _RIGHT) for y in (0.2, 0.4, 0.6, 0.8))

#: Each pip rank's pips, as a casino deck places them.
PIPS: dict[str, tuple[tuple[float, float], ...]] = {
    "A": ((_MIDDLE, 0.5),),
    "2": ((_MIDDLE, 0.2), (_MIDDLE, 0.8)),
    "3": ((_MIDDLE, 0.2), (_MIDDLE, 0.5), (_MIDDLE, 0.8)),
    "4": _FOUR,
    "5": (*_FOUR, (_MIDDLE, 0.5)),
    "6": _SIX,
    "7": (*_SIX, (_MIDDLE, 0.35)),
    "8": (*_SIX, (_MIDDLE, 0.35), (_MIDDLE, 0.65)),
    "9": (*_EIGHT_SIDES, (_MIDDLE, 0.5)),
    "T": (*_EIGHT_SIDES, (_MIDDLE, 0.3), (_MIDDLE, 0.7)),
}
#: A picture card's frame: left, top, right, bottom.
COURT = (0.25, 0.2, 0.75, 0.8)
#: The two corners' indices.
INDICES = ((0.1, 0.1), (0.9, 0.9))
#: Where the thumbs hold a card bent from an edge: the index strips stay covered.
_HELD = 0.2


class Shows(TypedDict):
    """The part of a face uncovered at a lift."""

    pips: list[list[float]]
    """each pip uncovered, ``[x, y]``"""
    index: str | None
    """the rank in the index (``A``, ``2``... ``T``, ``J``, ``Q``, ``K``) once a corner is uncovered; else None"""
    suit: str | None
    """``c``, ``d``, ``h`` or ``s`` once anything of the face is uncovered; else None"""
    court: bool
    """whether some of a picture card's picture is uncovered"""


def uncovered(edge: str, lift: float, x: float, y: float) -> bool:
    """Whether the point (``x``, ``y``) of the face shows with the card lifted to ``lift`` from ``edge``."""
    if lift <= 0:
        return False
    if edge == "corner":
        return (1 - x) + (1 - y) <= 2 * lift
    if edge == "short":
        return y >= 1 - lift and _HELD <= x <= 1 - _HELD
    if edge == "long":
        return x >= 1 - lift and _HELD <= y <= 1 - _HELD
    raise ValueError(f"unknown edge {edge!r}; edges are {', '.join(EDGES)}")


def _court_point(edge: str) -> tuple[float, float]:
    """The point of the picture's frame the lift uncovers first from ``edge``."""
    left, top, right, bottom = COURT
    return {"corner": (right, bottom), "short": ((left + right) / 2, bottom), "long": (right, (top + bottom) / 2)}[edge]


def shows(card: Card, edge: str, lift: float) -> Shows:
    """The part of ``card``'s face uncovered at ``lift`` (0 to 1) from ``edge`` (one of :data:`EDGES`)."""
    if edge not in EDGES:
        raise ValueError(f"unknown edge {edge!r}; edges are {', '.join(EDGES)}")
    pips = [[x, y] for x, y in PIPS.get(card.rank, ()) if uncovered(edge, lift, x, y)]
    index = card.rank if any(uncovered(edge, lift, x, y) for x, y in INDICES) else None
    court = card.rank not in PIPS and uncovered(edge, lift, *_court_point(edge))
    seen = bool(pips) or index is not None or court
    return {"pips": sorted(pips), "index": index, "suit": card.suit if seen else None, "court": court}


def nothing() -> Shows:
    """What a card flat on the table shows of its face."""
    return {"pips": [], "index": None, "suit": None, "court": False}
