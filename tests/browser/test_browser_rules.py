"""A game from a rules file alone on the page (``serve --rules``): the lobby names its table, the table
lays out its wagers with their pays from GET /api/games, and a bet on a side bet is placed and settled;
Verify reads the game's rules from its stored definition (checked against the digest the shoe's record names)
and verifies the round, and a definition changed on its way is named."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..browser_kit import (
    Page,
    Server,
    expect,
    need_chromium,
    new_page,
    register,
    running_server,
    shot,
    sit,
    wait_for_betting,
)

pytestmark = pytest.mark.browser
need_chromium()
CATALOGUE = Path(__file__).resolve().parents[2] / "catalogue"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    rules = ("--rules", str(CATALOGUE / "super-6.toml"), "--rules", str(CATALOGUE / "pairs.toml"))
    with running_server(tmp_path_factory.mktemp("rules-data"), betting_seconds=8, args=rules) as running:
        yield running


def test_a_game_from_a_file_is_on_the_page(page: Page) -> None:
    register(page, "rosa")
    lobby = page.locator("#lobby")
    expect(lobby).to_contain_text("Super 6")
    expect(lobby).to_contain_text("Baccarat with Pair bets")
    card = page.locator("[data-table]", has_text="Super 6")
    table_id = int(card.get_attribute("data-table") or "0")
    sit(page, table_id)
    spots = page.locator("#layout [data-spot]")
    expect(spots).to_have_count(4)
    expect(page.locator("[data-spot=super_6]")).to_contain_text("12:1")
    expect(page.locator("#paytables")).to_contain_text("Banker wins with 6")
    wait_for_betting(page)
    page.click("[data-chip='1']")
    page.click("[data-spot=banker]")
    page.click("[data-chip='1']")
    page.click("[data-spot=super_6]")
    page.click("#place")
    expect(page.locator("#refusal")).to_have_class(re.compile("info"))
    shot(page, "rules-super-6")

    # the round settles; Verify deals it again and settles the bets by the rules file's own content
    row = page.locator("#history tr.row").first
    expect(row).to_be_visible(timeout=40_000)
    answer = page.locator("#history tr.fair-answer").first
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("verified", timeout=10_000)
    expect(answer).not_to_contain_text("MISMATCH")
    definition = re.compile(r".*/api/games/definition\?digest=[0-9a-f]{64}$")

    def repaid(route):  # type: ignore[no-untyped-def]
        response = route.fetch()
        changed = response.json()
        changed["content"] = changed["content"].replace('"pays":"12"', '"pays":"13"', 1)
        assert changed["content"] != response.json()["content"]
        route.fulfill(response=response, json=changed)

    page.route(definition, repaid)  # Super 6 paid 13 to 1: the content no longer has the shoe's digest
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("MISMATCH", timeout=10_000)
    expect(answer).to_contain_text("the game's rules file is not the one the shoe names")
    shot(page, "rules-super-6-verify-edited-definition")


def test_a_game_from_a_file_is_named_in_chinese_and_its_spots_sit_where_the_file_says(browser, server: Server) -> None:
    """The names and the felt are the file's data: in Chinese the game, the side bet and its events read as the file
    names them, and Super 6 sits on the Banker's side, last."""
    errors: list[str] = []
    context, page = new_page(browser, server.url, locale="zh-CN", errors=errors)
    register(page, "lin")
    card = page.locator("[data-table]", has_text="超级6百家乐")
    expect(card).to_be_visible()
    sit(page, int(card.get_attribute("data-table") or "0"))
    spot = page.locator("[data-spot=super_6]")
    expect(spot).to_contain_text("超级6")
    expect(spot).to_have_class(re.compile("banker-side"))
    expect(page.locator("#layout [data-spot]").last).to_have_attribute("data-spot", "super_6")
    expect(page.locator("[data-spot=player]")).to_contain_text("闲")  # a rules file's Player: the built-in words
    expect(page.locator("#paytables")).to_contain_text("庄家 6 点赢")
    shot(page, "rules-super-6-zh")
    context.close()
    assert errors == []
