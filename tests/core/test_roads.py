"""Scoreboards: the spec's worked cases, golden grids, and properties over random histories."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.core.errors import ConfigurationError
from baccarat.core.roads import Hand, Scoreboard, parse_hands, render, roads

from ..conftest import examples

GOLDEN = Path(__file__).parents[1] / "golden" / "roads"


def colours(marks) -> str:
    return " ".join("R" if m.colour == "red" else "B" for m in marks)


def cells(board) -> list[tuple[int, int, str | None]]:
    return [(c.col, c.row, c.side) for c in board.big_road]


def test_spec_b_p_p_p_b():
    assert colours(roads(parse_hands("B P P P B")).big_eye_boy) == "B R B"


def test_spec_b_b_p_p_b():
    assert colours(roads(parse_hands("B B P P B")).big_eye_boy) == "R R"


def test_spec_alternating():
    board = roads(parse_hands("P B P B P B P B"))
    assert colours(board.big_eye_boy) == "R " * 5 + "R"
    assert colours(board.small_road) == "R R R R R"
    assert colours(board.cockroach_pig) == "R R R R"


def test_spec_nine_banker_then_ten_player_dragon_tails():
    board = roads(parse_hands("B " * 9 + "P " * 10))
    banker = [(c, r) for c, r, side in cells(board) if side == "B"]
    player = [(c, r) for c, r, side in cells(board) if side == "P"]
    assert banker == [(0, r) for r in range(6)] + [(1, 5), (2, 5), (3, 5)]
    assert player == [(1, r) for r in range(5)] + [(c, 4) for c in range(2, 7)]
    assert colours(board.big_eye_boy) == "R " * 8 + "B"


def test_spec_nested_tails_and_derived_roads_on_logical_columns():
    board = roads(parse_hands("B " * 8 + "P " * 7 + "B " * 6 + "P"))
    third = [(c, r) for c, r, side in cells(board)][15:21]
    assert third == [(2, 0), (2, 1), (2, 2), (2, 3), (3, 3), (4, 3)]
    assert cells(board)[-1] == (3, 0, "P")
    assert colours(board.big_eye_boy) == "R R R R R R B R R R R R B"
    assert colours(board.small_road) == "R R R R R B"


def test_spec_ties():
    only_ties = roads(parse_hands("T T"))
    assert [(c.col, c.row, c.side, c.ties) for c in only_ties.big_road] == [(0, 0, None, 2)]
    carried = roads(parse_hands("T T B"))
    assert [(c.col, c.row, c.side, c.ties) for c in carried.big_road] == [(0, 0, "B", 2)]
    for board in (only_ties, carried):
        assert board.big_eye_boy == board.small_road == board.cockroach_pig == []
        assert all(answer is None for side in board.ask.values() for answer in side.values())


def test_bead_plate_pairs_and_tie_pairs_ride_on_the_big_road_cell():
    board = roads(parse_hands("Bb P Tbp Pp"))
    assert [(c.col, c.row, c.outcome) for c in board.bead_plate] == [(0, 0, "B"), (0, 1, "P"), (0, 2, "T"),
                                                                      (0, 3, "P")]
    b, p1, p2 = board.big_road
    assert (b.banker_pair, b.player_pair) == (True, False)
    assert (p1.ties, p1.banker_pair, p1.player_pair) == (1, True, True)  # the tie's pairs are on its cell
    assert (p2.col, p2.row, p2.player_pair) == (1, 1, True)


def test_statistics():
    stats = roads(parse_hands("Bn B7 P8 Pn T Tbp")).stats
    assert stats["hands"] == 6 and (stats["banker"], stats["player"], stats["tie"]) == (2, 2, 2)
    assert stats["banker_pct"] == 33.3 and stats["tie_pct"] == 33.3
    assert (stats["naturals"], stats["dragon_7"], stats["panda_8"]) == (2, 1, 1)
    assert (stats["banker_pairs"], stats["player_pairs"]) == (1, 1)


@pytest.mark.parametrize("text", ["X", "Bq", "Bbb", "", "B P 7"])
def test_bad_hands_are_refused(text):
    with pytest.raises(ConfigurationError):
        if not text:
            Hand("X")  # type: ignore[arg-type]
        parse_hands(text)


GOLDEN_CASES = {
    "dragon-tails": "B " * 9 + "P " * 10,
    "nested-tails": "B " * 8 + "P " * 7 + "B " * 6 + "P",
    "chop-with-ties-and-pairs": "T Bb P B Tbp P P B B B Pp T B P",
    "long-shoe": ("B P B B P T P P P B Bb B P B T P P B P B B B B B B B P P B P T B P P B B P "
                  "B P B B B P P P P P P B T B Pp P B"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_grids(name):
    text = render(roads(parse_hands(GOLDEN_CASES[name])))
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("BACCARAT_REGENERATE_GOLDEN"):
        path.write_text(text + "\n")
    assert text + "\n" == path.read_text()


hands = st.lists(st.builds(Hand, st.sampled_from(["B", "P", "T"]), st.booleans(), st.booleans()), max_size=80)


@settings(max_examples=examples(300), deadline=None)
@given(hands)
def test_incremental_updates_equal_recomputation(history):
    board = Scoreboard()
    for i, hand in enumerate(history):
        board.add(hand)
        if i % 7 == 0 or i == len(history) - 1:
            assert board.roads() == roads(history[: i + 1])


@settings(max_examples=examples(300), deadline=None)
@given(hands)
def test_asks_are_empty_together_or_opposite_colours(history):
    asked = roads(history).ask
    for road in ("big_eye_boy", "small_road", "cockroach_pig"):
        banker, player = asked["banker"][road], asked["player"][road]
        assert (banker is None and player is None) or {banker, player} == {"red", "blue"}
        if banker is not None:  # the ask is the mark the road really adds
            assert getattr(roads([*history, Hand("B")]), road)[-1].colour == banker


@settings(max_examples=examples(150), deadline=None)  # 300 took 1.09 s of CPU in ci30, over the fast budget
@given(hands, st.data())
def test_ties_change_no_derived_road_and_no_big_road_position(history, data):
    at = data.draw(st.integers(0, len(history)))
    with_tie = [*history[:at], Hand("T"), *history[at:]]
    before, after = roads(history), roads(with_tie)
    for road in ("big_eye_boy", "small_road", "cockroach_pig"):
        assert getattr(before, road) == getattr(after, road)
    if any(h.outcome != "T" for h in history):
        assert [(c.col, c.row, c.side) for c in before.big_road] == [(c.col, c.row, c.side) for c in after.big_road]
        assert sum(c.ties for c in after.big_road) == sum(c.ties for c in before.big_road) + 1


@settings(max_examples=examples(200), deadline=None)
@given(hands)
def test_grid_cells_are_distinct_and_streaks_connected(history):
    board = roads(history)
    for road in (board.big_road, board.big_eye_boy, board.small_road, board.cockroach_pig):
        positions = [(c.col, c.row) for c in road]
        assert len(set(positions)) == len(positions)
        assert all(0 <= row < 6 for _, row in positions)


@pytest.mark.slow
def test_roads_command_json_and_text():
    exe = [shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"]
    done = subprocess.run([*exe, "roads", "B P P P B", "--json"], capture_output=True, text=True, check=True)
    document = json.loads(done.stdout)
    assert set(document) == {"bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig", "ask", "stats"}
    assert document["big_road"][0] == {"col": 0, "row": 0, "side": "B", "ties": 0, "banker_pair": False,
                                       "player_pair": False}
    assert [m["colour"] for m in document["big_eye_boy"]] == ["blue", "red", "blue"]
    assert document["ask"]["banker"] == {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": None}
    text = subprocess.run([*exe, "roads", "B", "P", "P", "P", "B"], capture_output=True, text=True, check=True)
    assert "Big Eye Boy" in text.stdout and "Banker ask" in text.stdout
    bad = subprocess.run([*exe, "roads", "B Q"], capture_output=True, text=True)
    assert bad.returncode == 2 and "hand 2" in bad.stderr
