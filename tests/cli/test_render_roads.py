"""The terminal's derived roads: red and blue marks differ in shape, not by colour alone (issue 12)."""

from __future__ import annotations

from rich.console import Console

from baccarat.cli.render import MARK_GLYPHS, mark, roads_panel
from baccarat.core.roads import parse_hands, roads


def test_red_and_blue_marks_differ_in_shape_on_every_derived_road():
    for road, glyphs in MARK_GLYPHS.items():
        assert glyphs["red"] != glyphs["blue"], road
        assert mark(road, "red").plain != mark(road, "blue").plain
    every = [glyph for glyphs in MARK_GLYPHS.values() for glyph in glyphs.values()]
    assert len(set(every)) == len(every)  # and no road's mark is another road's


def test_without_colour_the_roads_still_read():
    board = roads(parse_hands("B B P P P B P B B B P T P B P P B B P B"))
    console = Console(no_color=True, width=120, record=True)
    console.print(roads_panel(board))
    text = console.export_text()
    for name, road in (("big_eye_boy", board.big_eye_boy), ("small_road", board.small_road),
                       ("cockroach_pig", board.cockroach_pig)):
        for colour in ("red", "blue"):
            if any(m.colour == colour for m in road):
                assert MARK_GLYPHS[name][colour] in text, (name, colour)
    assert "red ○ ● /   blue □ ■ \\" in text  # the legend, as the browser's (red round, blue square)
