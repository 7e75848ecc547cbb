"""The PAR sheet (``baccarat analyze GAME --report FILE.html``): what it holds, and that it renders in
Chromium with no error and no request to the network."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from baccarat.analysis.analyze import analyze
from baccarat.analysis.composition import Composition
from baccarat.cli.app import main
from baccarat.core.registry import get_game, unregister
from baccarat.core.rulesfile import read_rules
from baccarat.reports.par_sheet import build, count_tags, edge_without_pushes, element_of_risk, render

CATALOGUE = Path(__file__).resolve().parents[2] / "catalogue"


@pytest.fixture(scope="module")
def pairs_page() -> Iterator[str]:
    yield render(build(read_rules(CATALOGUE / "pairs.toml"), shoes=2_000, count_shoes=300))
    unregister("pairs")


@pytest.mark.slow
def test_the_sheet_holds_every_wager_s_table_edge_chart_count_and_confirmation(pairs_page: str) -> None:
    sections = re.findall(r'<section class="wager" id="wager-([a-z_]+)">(.*?)</section>', pairs_page, re.S)
    assert [code for code, _ in sections] == ["player", "banker", "tie", "player_pair", "banker_pair",
                                              "either_pair", "perfect_pair"]
    for code, body in sections:
        assert "<table>" in body and "House edge <b>" in body and "element of risk" in body, code
        assert "standard errors" in body, code  # the simulation's confirmation
    bodies = dict(sections)
    assert "exactly 43/415" in bodies["player_pair"] and "<svg" in bodies["player_pair"]  # effects of removal by rank
    assert "not computed for a wager on suits" in bodies["perfect_pair"]
    assert "a count by point value cannot follow it" in bodies["player_pair"]
    assert re.search(r"(Best simple count|No gain from a simple count)", bodies["banker"])
    assert "Perfect Pairs (Version 2)" in pairs_page  # the published analyses


@pytest.mark.slow
def test_no_resource_is_fetched_from_anywhere(pairs_page: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']""", pairs_page)
    assert "<script" not in pairs_page and "@import" not in pairs_page and "url(" not in pairs_page


def test_element_of_risk_and_the_edge_without_pushes() -> None:
    player = next(w for w in analyze(get_game("mini"), Composition.full(8)).wagers if w.code == "player")
    tie = sum((player.probability(line) for line in player.lines if line.pays == 0), Fraction(0))
    assert element_of_risk(player) == player.house_edge  # one bet: all of it is wagered
    assert edge_without_pushes(player) == player.house_edge / (1 - tie) == player.house_edge_excluding_ties
    enter = analyze(get_game("lucky-draw"), Composition.full(8)).wagers[0]
    assert enter.draw_probability is not None
    assert element_of_risk(enter) == enter.house_edge / (1 + enter.draw_probability)  # the Draw adds to the bet


def test_count_tags_follow_the_effects_of_removal() -> None:
    dragon = next(w for w in analyze(get_game("ez"), Composition.full(8), eor=True).wagers if w.code == "dragon_7")
    assert dragon.eor is not None
    tags = count_tags(dragon.eor)
    assert tags is not None and max(abs(t) for t in tags) == 3
    # same signs as Jacobson's published Dragon 7 count where both are non-zero (A,2,...,9,T)
    published = (0, 0, 0, -1, -1, -1, -1, 2, 2, 0)
    assert all(a * b >= 0 for a, b in zip(tags, published, strict=True))


@pytest.mark.slow
def test_rank_effects_of_removal_add_up_to_zero() -> None:
    pairs = read_rules(CATALOGUE / "pairs.toml")
    full = next(w for w in analyze(pairs, Composition.full(2), eor=True).wagers if w.code == "player_pair")
    assert full.eor == (0,) * 10  # in full decks every rank is alike: removing any card changes a pair's odds alike
    shoe = Composition.by_rank((8,) * 12 + (14,))  # two decks and six more Kings
    pair = next(w for w in analyze(pairs, shoe, eor=True).wagers if w.code == "player_pair")
    assert pair.eor is not None and pair.eor_check(shoe) == 0
    assert pair.eor[0] < 0 < pair.eor[5]  # a ten-value card out is most often a King: fewer King pairs left


def test_the_command_writes_the_sheet_and_refuses_a_partial_shoe(tmp_path: Path, capsys) -> None:
    page = tmp_path / "super-6.html"
    try:
        assert main(["analyze", "super-6", "--rules", str(CATALOGUE / "super-6.toml"), "--report", str(page),
                     "--report-shoes", "500", "--report-count-shoes", "0"]) == 0
    finally:
        unregister("super-6")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "PAR sheet: Super 6" in text and "29.9772%" in text
    assert main(["analyze", "mini", "--report", str(page), "--shoe", "4,4,4,4,4,4,4,4,4,16"]) == 2
    assert "--report is for full decks" in capsys.readouterr().err


@pytest.mark.browser
def test_the_sheet_renders_in_chromium_without_errors(tmp_path: Path, pairs_page: str) -> None:
    from ..browser_kit import need_chromium

    need_chromium()
    lucky = render(build(get_game("lucky-draw"), shoes=500, count_shoes=0))
    for name, page_text in (("pairs", pairs_page), ("lucky-draw", lucky)):
        path = tmp_path / f"{name}.html"
        path.write_text(page_text, encoding="utf-8")
        errors, requests = _render(path)
        assert errors == [], (name, errors)
        assert requests == [path.as_uri()], requests  # the page itself, nothing else


def _render(path: Path) -> tuple[list[str], list[str]]:
    """Open the page in Chromium: its console errors and page errors, and every URL it requested."""
    from ..browser_kit import chromium

    errors: list[str] = []
    requests: list[str] = []
    with chromium() as browser:
        context = browser.new_context()
        page = context.new_page()
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri())
        assert page.title().startswith("PAR sheet")
        assert page.locator("svg[role=img]").count() >= 1
        assert page.locator("section.wager").count() >= 2
        box = page.locator("svg[role=img]").first.bounding_box()
        assert box is not None and box["width"] > 100
        context.close()
    return errors, requests
