"""The rail in real Chromium (issue 31, item 6): a player without a seat at a punto banco table is told
"Bet from the rail", stages chips, places them and sees the round settled; at Lucky Draw, where every hand
is a seat's, a watcher's spots are inert ("take a seat to play": a click stages nothing, there is no
Place button).  Both languages; screenshots ``31-rail-*.png``.  Also: a table watched by a page is dealt
every window though nobody bets (issue 31, item 7), so its roads fill."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from ..browser_kit import (
    Browser,
    Server,
    balance,
    expect,
    in_page,
    need_chromium,
    new_page,
    register,
    running_server,
    shot,
    wait_for_betting,
    wait_for_phase,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
need_chromium()
BETTING_SECONDS = 6
MINI, LUCKY = 1, 3  #: the default tables of a fresh database (mini-1, ez-1, lucky-draw-1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("rail-data"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def test_a_player_without_a_seat_bets_from_the_rail_and_is_settled(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, errors=errors)
    register(page, "rail_ann")
    page.goto(f"{server.url}/#/table/{MINI}")
    expect(page.locator("#rail")).to_be_visible()
    expect(page.locator("#rail")).to_contain_text("Bet from the rail")
    expect(page.locator("#seats .seat.mine")).to_have_count(0)  # no seat taken
    expect(page.locator("#place")).to_be_visible()
    wait_for_betting(page, 4)
    before = balance(page)
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    expect(page.locator("[data-spot=banker] .amount")).to_contain_text("5.00")
    assert page.locator("[data-spot=banker]").get_attribute("aria-disabled") == "false"
    shot(page, "31-rail-punto-banco-staged")
    page.click("#place")
    expect(page.locator("#refusal")).to_have_class(re.compile("info"))
    expect(page.locator("[data-spot=banker] .amount")).to_have_class(re.compile("placed"))
    assert balance(page) == before - 500
    wait_for_phase(page, "result")
    expect(page.locator("#your-result")).not_to_be_empty(timeout=10_000)
    expect(page.locator("[data-spot=banker] .net")).not_to_be_empty()
    shot(page, "31-rail-punto-banco-settled")
    # the history has the round, settled
    expect(page.locator("#history tr.row").first).to_be_visible(timeout=10_000)
    context.close()
    assert errors == []


def test_a_watcher_at_lucky_draw_stages_nothing_and_is_told_to_take_a_seat(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, errors=errors)
    register(page, "rail_ben")
    page.goto(f"{server.url}/#/table/{LUCKY}")
    expect(page.locator("#rail")).to_contain_text("Take a seat to play")
    wait_for_betting(page, 3)
    spot = page.locator("[data-spot=enter]")
    expect(spot).to_have_attribute("aria-disabled", "true")
    expect(spot).to_have_class(re.compile("inert"))
    assert spot.get_attribute("aria-describedby") == "rail"
    page.click("[data-chip='5']")
    spot.click(force=True)  # a user can click it all the same: it says why and stages nothing
    expect(page.locator("#refusal")).to_contain_text("Take a seat")
    expect(page.locator(".spot .amount.staged")).to_have_count(0)  # nothing staged
    expect(page.locator("#totals")).not_to_contain_text("staged")
    expect(page.locator("#place")).to_be_hidden()
    expect(page.locator("#sit")).to_be_visible()
    shot(page, "31-rail-lucky-draw-watcher")
    page.click("#sit")  # sitting down makes the spots live
    expect(page.locator("#rail")).to_be_hidden()
    expect(page.locator("[data-spot=enter]")).not_to_have_class(re.compile("inert"))
    context.close()
    assert errors == []


def test_the_rail_in_chinese(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, locale="zh-CN", errors=errors)
    register(page, "rail_cid")
    page.goto(f"{server.url}/#/table/{MINI}")
    expect(page.locator("#rail")).to_contain_text("站在桌边下注")
    shot(page, "31-rail-punto-banco-zh")
    page.goto(f"{server.url}/#/table/{LUCKY}")
    expect(page.locator("#rail")).to_contain_text("入座即可游戏")
    shot(page, "31-rail-lucky-draw-zh")
    assert in_page(page, "[...missingKeys]") == []
    context.close()
    assert errors == []


def test_a_watched_table_is_dealt_though_nobody_bets(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, errors=errors)
    register(page, "rail_dan")
    page.goto(f"{server.url}/#/table/2")  # the EZ table: nobody bets there in these tests
    wait_for_phase(page, "dealing", timeout=BETTING_SECONDS + 10)
    wait_for_phase(page, "result", timeout=15)
    expect(page.locator("#roads-box .cell.bead").first).to_be_visible(timeout=10_000)
    shot(page, "31-rail-watched-roads")
    context.close()
    assert errors == []
