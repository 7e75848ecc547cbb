"""Scoreboards ("roads"): Bead Plate, Big Road, Big Eye Boy, Small Road, Cockroach Pig, the two
ask cells and the statistics, as pure functions of the list of hands (``specs/roads.md``).

Cells are ``(col, row)``, 0-based, row 0 at the top, :data:`ROWS` rows.  In the derived roads
"red" and "blue" are colours, never Banker and Player.

Two computations are kept on purpose: :func:`roads` works on the whole history at once (logical
columns first, then the marks from the finished column lengths, then the layout), while
:class:`Scoreboard` updates everything hand by hand as a table does; the tests hold them equal.
The derived roads are computed on the Big Road's *logical* columns: a dragon tail is only
drawing, it never changes a mark.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from baccarat.core.coup import Coup
from baccarat.core.errors import ConfigurationError

ROWS = 6
Outcome = Literal["B", "P", "T"]
Colour = Literal["red", "blue"]
#: The derived roads and the k of each: a cell is compared with the column k to the left.
DERIVED = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))


@dataclass(frozen=True, slots=True)
class Hand:
    """One coup as the scoreboards see it.  ``natural``, ``dragon_7`` and ``panda_8`` only feed the
    statistics."""

    outcome: Outcome
    banker_pair: bool = False
    player_pair: bool = False
    natural: bool = False
    dragon_7: bool = False
    panda_8: bool = False

    def __post_init__(self) -> None:
        if self.outcome not in ("B", "P", "T"):
            raise ConfigurationError(f"a hand is B, P or T, got {self.outcome!r}")


def hand_of(coup: Coup) -> Hand:
    """The scoreboard entry of a dealt coup: winner, pairs (the first two cards of a hand share a
    rank), natural, Dragon 7 and Panda 8."""
    from baccarat.core.registry import is_dragon_7, is_panda_8  # presets imports the wagers; only needed here

    outcome: Outcome = {"banker": "B", "player": "P", "tie": "T"}[coup.winner]  # type: ignore[assignment]
    return Hand(outcome, banker_pair=coup.banker_cards[0].rank == coup.banker_cards[1].rank,
                player_pair=coup.player_cards[0].rank == coup.player_cards[1].rank, natural=coup.natural,
                dragon_7=is_dragon_7(coup), panda_8=is_panda_8(coup))


def hand_json(hand: Hand) -> dict[str, Any]:
    return {name: getattr(hand, name) for name in Hand.__slots__}


def hand_from_json(data: dict[str, Any]) -> Hand:
    return Hand(**{name: data[name] for name in Hand.__slots__ if name in data})


#: Flag letters after the outcome: pairs (from the issue) and the statistics' extras.
FLAGS = {"b": "banker_pair", "p": "player_pair", "n": "natural", "7": "dragon_7", "8": "panda_8"}


def parse_hands(text: str | Sequence[str]) -> list[Hand]:
    """Hands from ``"B P Tbp Bb Pp"``: an outcome letter, then optional flags ``b`` (Banker pair),
    ``p`` (Player pair), ``n`` (natural), ``7`` (Dragon 7), ``8`` (Panda 8)."""
    words = text.split() if isinstance(text, str) else list(text)
    hands = []
    for number, word in enumerate(words, 1):
        outcome, flags = word[:1].upper(), word[1:]
        if outcome not in ("B", "P", "T"):
            raise ConfigurationError(f"hand {number} {word!r}: a hand starts with B, P or T")
        unknown = sorted(set(flags) - set(FLAGS))
        if unknown or len(set(flags)) != len(flags):
            raise ConfigurationError(f"hand {number} {word!r}: flags are b (Banker pair), p (Player pair), "
                                     f"n (natural), 7 (Dragon 7), 8 (Panda 8), each at most once")
        hands.append(Hand(outcome, **{FLAGS[flag]: True for flag in flags}))  # type: ignore[arg-type]
    return hands


@dataclass(frozen=True, slots=True)
class BeadCell:
    col: int
    row: int
    outcome: Outcome
    banker_pair: bool
    player_pair: bool


@dataclass(frozen=True, slots=True)
class BigRoadCell:
    """A Big Road cell; ``side`` is None only for the cell of an all-tie history."""

    col: int
    row: int
    side: Literal["B", "P"] | None
    ties: int
    banker_pair: bool
    player_pair: bool


@dataclass(frozen=True, slots=True)
class Mark:
    col: int
    row: int
    colour: Colour


def bead_plate(hands: Sequence[Hand]) -> list[BeadCell]:
    """One cell per hand, ties included, down column 0 first."""
    return [BeadCell(i // ROWS, i % ROWS, h.outcome, h.banker_pair, h.player_pair) for i, h in enumerate(hands)]


@dataclass(slots=True)
class _Logical:
    side: Literal["B", "P"] | None
    ties: int = 0
    banker_pair: bool = False
    player_pair: bool = False


def big_road_columns(hands: Sequence[Hand]) -> list[list[_Logical]]:
    """The Big Road's logical model: one list per streak; ties ride on the cell before them (or,
    before the first Banker or Player hand, on the first one)."""
    columns: list[list[_Logical]] = []
    pending = _Logical(None)
    for hand in hands:
        if hand.outcome == "T":
            target = columns[-1][-1] if columns else pending
            target.ties += 1
        else:
            target = _Logical(hand.outcome) if columns else _Logical(hand.outcome, pending.ties,
                                                                      pending.banker_pair, pending.player_pair)
            if columns and columns[-1][0].side == hand.outcome:
                columns[-1].append(target)
            else:
                columns.append([target])
        target.banker_pair |= hand.banker_pair
        target.player_pair |= hand.player_pair
    if not columns and pending.ties:
        columns.append([pending])
    return columns


def _step(occupied: set[tuple[int, int]], at: tuple[int, int], turned: bool) -> tuple[tuple[int, int], bool]:
    """Where a streak's next cell goes: down while the row below exists and is empty, else (and
    from then on) to the right in the same row: the dragon tail."""
    col, row = at
    if not turned and row + 1 < ROWS and (col, row + 1) not in occupied:
        return (col, row + 1), False
    return (col + 1, row), True


def layout(lengths: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Grid positions of streaks of these lengths: each starts at row 0 one column right of the
    rightmost occupied row-0 cell."""
    occupied: set[tuple[int, int]] = set()
    placed = []
    for length in lengths:
        right = max((c for c, r in occupied if r == 0), default=-1)
        at, turned = (right + 1, 0), False
        cells = [at]
        for _ in range(length - 1):
            at, turned = _step(occupied, at, turned)
            cells.append(at)
        occupied.update(cells)
        placed.append(cells)
    return placed


def mark_colour(lengths: Sequence[int], col: int, row: int, k: int) -> Colour | None:
    """The mark road k makes for the Big Road's logical cell (col, row), from the lengths of the
    columns before it; None before the road's first cell."""
    if not (col > k or (col == k and row >= 1)):
        return None
    if row == 0:
        return "red" if lengths[col - 1] == lengths[col - 1 - k] else "blue"
    reach = lengths[col - k]
    return "blue" if row == reach else "red"


def _streaks(colours: Sequence[Colour]) -> list[int]:
    lengths: list[int] = []
    for i, colour in enumerate(colours):
        if i and colour == colours[i - 1]:
            lengths[-1] += 1
        else:
            lengths.append(1)
    return lengths


def derived_road(columns: Sequence[Sequence[Any]], k: int) -> list[Mark]:
    """Big Eye Boy (k=1), Small Road (k=2) or Cockroach Pig (k=3) from the logical columns."""
    lengths = [len(column) if column[0].side else 0 for column in columns]
    colours = [colour for c, column in enumerate(columns) if column[0].side for r in range(len(column))
               if (colour := mark_colour(lengths, c, r, k)) is not None]
    positions = [cell for streak in layout(_streaks(colours)) for cell in streak]
    return [Mark(col, row, colour) for (col, row), colour in zip(positions, colours, strict=True)]


def big_road(hands: Sequence[Hand]) -> list[BigRoadCell]:
    columns = big_road_columns(hands)
    positions = layout([len(column) for column in columns])
    return [BigRoadCell(col, row, cell.side, cell.ties, cell.banker_pair, cell.player_pair)
            for column, cells in zip(columns, positions, strict=True)
            for cell, (col, row) in zip(column, cells, strict=True)]


def statistics(hands: Sequence[Hand]) -> dict[str, Any]:
    """Hands, B / P / T counts and percentages, pairs, naturals, Dragon 7s and Panda 8s."""
    total = len(hands)
    counts = {side: sum(h.outcome == side for h in hands) for side in "BPT"}
    return {
        "hands": total,
        "banker": counts["B"], "player": counts["P"], "tie": counts["T"],
        "banker_pct": round(100 * counts["B"] / total, 1) if total else 0.0,
        "player_pct": round(100 * counts["P"] / total, 1) if total else 0.0,
        "tie_pct": round(100 * counts["T"] / total, 1) if total else 0.0,
        "banker_pairs": sum(h.banker_pair for h in hands), "player_pairs": sum(h.player_pair for h in hands),
        "naturals": sum(h.natural for h in hands), "dragon_7": sum(h.dragon_7 for h in hands),
        "panda_8": sum(h.panda_8 for h in hands),
    }


def ask(hands: Sequence[Hand]) -> dict[str, dict[str, Colour | None]]:
    """For a Banker and a Player hand appended: the mark each derived road would add (or None)."""
    answers: dict[str, dict[str, Colour | None]] = {}
    for name, side in (("banker", "B"), ("player", "P")):
        columns = big_road_columns([*hands, Hand(side)])  # type: ignore[arg-type]
        lengths = [len(column) for column in columns]
        col, row = len(columns) - 1, lengths[-1] - 1  # the appended hand is the Big Road's newest cell
        answers[name] = {road: mark_colour(lengths, col, row, k) for road, k in DERIVED}
    return answers


@dataclass
class Roads:
    """Every scoreboard of one history."""

    bead_plate: list[BeadCell]
    big_road: list[BigRoadCell]
    big_eye_boy: list[Mark]
    small_road: list[Mark]
    cockroach_pig: list[Mark]
    ask: dict[str, dict[str, Colour | None]]
    stats: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The ``baccarat roads --json`` document."""
        def cells(items: Iterable[Any]) -> list[dict[str, Any]]:
            return [{name: getattr(item, name) for name in item.__slots__} for item in items]
        return {"bead_plate": cells(self.bead_plate), "big_road": cells(self.big_road),
                "big_eye_boy": cells(self.big_eye_boy), "small_road": cells(self.small_road),
                "cockroach_pig": cells(self.cockroach_pig), "ask": self.ask, "stats": self.stats}


def roads(hands: Sequence[Hand]) -> Roads:
    """All the scoreboards, computed from the whole history at once."""
    columns = big_road_columns(hands)
    big_eye_boy, small_road, cockroach_pig = (derived_road(columns, k) for _, k in DERIVED)
    return Roads(bead_plate(hands), big_road(hands), big_eye_boy, small_road, cockroach_pig,
                 ask=ask(hands), stats=statistics(hands))


@dataclass
class _Placer:
    """The dragon-tail layout, one cell at a time."""

    occupied: set[tuple[int, int]] = field(default_factory=set)
    right: int = -1
    at: tuple[int, int] = (0, 0)
    turned: bool = False
    last: str | None = None

    def place(self, streak: str) -> tuple[int, int]:
        if streak != self.last:
            self.at, self.turned, self.last = (self.right + 1, 0), False, streak
        else:
            self.at, self.turned = _step(self.occupied, self.at, self.turned)
        self.occupied.add(self.at)
        if self.at[1] == 0:
            self.right = max(self.right, self.at[0])
        return self.at


class Scoreboard:
    """The roads of a shoe in play, updated hand by hand (equal to :func:`roads` of the hands)."""

    def __init__(self, hands: Iterable[Hand] = ()) -> None:
        self.hands: list[Hand] = []
        self._columns: list[list[_Logical]] = []  # logical Big Road; an all-tie start is a side-None column
        self._cells: list[list[BigRoadCell]] = []
        self._big = _Placer()
        self._marks: dict[str, list[Mark]] = {name: [] for name, _ in DERIVED}
        self._placers = {name: _Placer() for name, _ in DERIVED}
        for hand in hands:
            self.add(hand)

    def add(self, hand: Hand) -> None:
        """One more hand: every road moves on by at most one cell."""
        self.hands.append(hand)
        columns = self._columns
        if hand.outcome == "T":
            if not columns:
                columns.append([_Logical(None)])
                self._cells.append([BigRoadCell(*self._big.place("tie-only"), None, 0, False, False)])
            target = columns[-1][-1]
            target.ties += 1
        elif columns and columns[-1][0].side is None:  # the first B or P takes over the tie-only cell
            target = columns[-1][-1]
            target.side = hand.outcome
            self._big.last = hand.outcome
        else:
            target = _Logical(hand.outcome)
            if columns and columns[-1][0].side == hand.outcome:
                columns[-1].append(target)
                self._cells[-1].append(BigRoadCell(*self._big.place(hand.outcome), hand.outcome, 0, False, False))
            else:
                columns.append([target])
                self._cells.append([BigRoadCell(*self._big.place(hand.outcome), hand.outcome, 0, False, False)])
            self._mark(len(columns) - 1, len(columns[-1]) - 1)
        target.banker_pair |= hand.banker_pair
        target.player_pair |= hand.player_pair
        old = self._cells[-1][-1]
        self._cells[-1][-1] = BigRoadCell(old.col, old.row, target.side, target.ties, target.banker_pair,
                                          target.player_pair)

    def _mark(self, col: int, row: int) -> None:
        lengths = [len(column) for column in self._columns]
        for name, k in DERIVED:
            colour = mark_colour(lengths, col, row, k)
            if colour is not None:
                self._marks[name].append(Mark(*self._placers[name].place(colour), colour))

    def roads(self) -> Roads:
        """The scoreboards now (the ask cells are computed from the history)."""
        marks = self._marks
        return Roads(bead_plate(self.hands), [cell for column in self._cells for cell in column],
                     list(marks["big_eye_boy"]), list(marks["small_road"]), list(marks["cockroach_pig"]),
                     ask=ask(self.hands), stats=statistics(self.hands))


def grid(cells: Iterable[tuple[int, int, str]], *, width: int = 1, columns: int | None = None) -> str:
    """Text grid of ``(col, row, text)`` cells, :data:`ROWS` rows; empty cells are dots."""
    placed = {(col, row): text for col, row, text in cells}
    count = columns if columns is not None else max((col for col, _ in placed), default=-1) + 1
    blank = "." + " " * (width - 1)
    return "\n".join(" ".join(placed.get((col, row), blank).ljust(width) for col in range(count)).rstrip()
                     for row in range(ROWS))


def render(board: Roads) -> str:
    """All the roads as text grids (B/P/T on the Bead Plate; on the Big Road the side and the
    tie count; derived roads ``r`` red and ``b`` blue) with the ask cells and statistics."""
    def pairs(cell: BeadCell | BigRoadCell) -> str:
        return ("*" if cell.banker_pair else "") + ("+" if cell.player_pair else "")

    parts = ["Bead Plate", grid(((c.col, c.row, c.outcome + pairs(c)) for c in board.bead_plate), width=3),
             "Big Road (side, ties; * Banker pair, + Player pair)",
             grid(((c.col, c.row, (c.side or "-") + (str(c.ties) if c.ties else "") + pairs(c))
                   for c in board.big_road), width=4)]
    for name, title in (("big_eye_boy", "Big Eye Boy"), ("small_road", "Small Road"),
                        ("cockroach_pig", "Cockroach Pig")):
        marks: list[Mark] = getattr(board, name)
        parts += [f"{title} (r red, b blue)", grid((m.col, m.row, m.colour[0]) for m in marks)]
    for side in ("banker", "player"):
        answers = ", ".join(f"{road.replace('_', ' ')} {colour or '-'}" for road, colour in board.ask[side].items())
        parts.append(f"{side.title()} ask: {answers}")
    s = board.stats
    parts.append(f"Hands {s['hands']}: Banker {s['banker']} ({s['banker_pct']}%), Player {s['player']} "
                 f"({s['player_pct']}%), Tie {s['tie']} ({s['tie_pct']}%); Banker pairs {s['banker_pairs']}, "
                 f"Player pairs {s['player_pairs']}, naturals {s['naturals']}, Dragon 7 {s['dragon_7']}, "
                 f"Panda 8 {s['panda_8']}")
    return "\n".join(parts)
