"""The table on a laptop and on a phone (issue 31, items 1-3), in real Chromium, for each game.

Six players sit at one table, one for each screen (1366 x 768, 1280 x 720, 390 x 844) and language
(English, Simplified Chinese), and each bets on the same round:

* **Laptop screens**: while seated, the countdown, both hands, every spot, the chips and Place bets are
  wholly inside the window without scrolling (``scrollY`` stays 0), while betting and again at the result
  (the phone keeps its one screen, as before).
* **Notices in their own place**: when a seventh player sits down, each page's news line says so, and its
  box overlaps none of those boxes; no toast is shown over the felt.
* **Your result, said plainly**: after the round, one line in large type says "You win 47.50", "You lose
  30.00" or "Your bets push" (and the Chinese words) with the round's net as the server settled it
  (``GET /api/history``), checked against the bets placed and the round's winner; the same words go to
  the live region.  axe-core finds no critical or serious violation with the line and the news shown.

Screenshots: ``artifacts/screenshots/31-layout-<width>-<lang>-<game>.png`` (betting, with the news) and
``31-result-<width>-<lang>-<game>.png`` (the result line).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..browser_kit import (
    Browser,
    Page,
    Server,
    expect,
    in_page,
    need_chromium,
    new_page,
    register,
    running_server,
    shot,
    sit,
    wait_for_betting,
    wait_for_phase,
)
from .test_browser_i18n_a11y import serious

pytestmark = [pytest.mark.browser, pytest.mark.slow]
need_chromium()
LONG = True  #: started first (tests/conftest.py): three journeys of seven players, one after another
BETTING_SECONDS = 30  # six players bet by hand, and every page is measured with the news, before the close
ROUND = 60_000  # ms: more than a whole round
SIZES = ((1366, 768), (1280, 720), (390, 844))
#: two languages at each size, each of the three at two sizes (seven seats: six players and a newcomer)
LOCALES = {1366: ("en-US", "zh-HK"), 1280: ("zh-CN", "zh-HK"), 390: ("en-US", "zh-CN")}
#: table id (a fresh database's tables), the game's short name, the spot bet on
GAMES = {"mini": (1, "player"), "ez": (2, "player"), "lucky-draw": (3, "enter")}
WORDS = {"en-US": ("You win {}", "You lose {}", "Your bets push"), "zh-CN": ("您赢 {}", "您输 {}", "您本局不输不赢"),
         "zh-HK": ("您贏 {}", "您輸 {}", "您本局不輸不贏")}

# What the player must see without scrolling: the countdown, both hands, every spot, the chips, Place bets.
BOXES = """() => {
  const out = {};
  const add = (name, el) => { const r = el.getBoundingClientRect(); out[name] = [r.left, r.top, r.right, r.bottom]; };
  add('countdown', document.querySelector('#countdown'));
  for (const hand of document.querySelectorAll('#hands > .hand')) if (!hand.hidden) add('hand ' + hand.id, hand);
  for (const spot of document.querySelectorAll('[data-spot]')) add('spot ' + spot.dataset.spot, spot);
  add('chips', document.querySelector('#chips'));
  add('place', document.querySelector('#place'));
  for (const button of document.querySelectorAll('#tray .controls button:not([hidden])')) {
    add('button ' + button.id, button);
  }
  const tray = document.querySelector('#tray').getBoundingClientRect();
  return { boxes: out, scrollY: window.scrollY, width: window.innerWidth, height: window.innerHeight, tray: tray.top };
}"""

# Everything the page says in its live region and shows as the result line, as it happens.
RECORD = """() => {
  window.said = []; window.lines = [];
  const announcer = document.getElementById('announcer');
  new MutationObserver(() => { if (announcer.textContent) window.said.push(announcer.textContent); })
    .observe(announcer, { childList: true, characterData: true, subtree: true });
  new MutationObserver(() => {
    const line = document.getElementById('your-result');
    if (line && line.textContent) window.lines.push([line.textContent, parseFloat(getComputedStyle(line).fontSize)]);
  }).observe(document.getElementById('view'), { childList: true, characterData: true, subtree: true });
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("layout-data"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def on_screen(page: Page, where: str) -> dict[str, list[float]]:
    """Every box the player needs is inside the window, and the page was not scrolled to show it."""
    found: dict[str, Any] = page.evaluate(BOXES)
    assert found["scrollY"] == 0, (where, found["scrollY"])
    assert len([name for name in found["boxes"] if name.startswith("hand")]) == 2, (where, found["boxes"])
    for name, (left, top, right, bottom) in found["boxes"].items():
        assert right > left and bottom > top, (where, name, "not shown")
        assert left >= 0 and top >= 0 and right <= found["width"] and bottom <= found["height"], (
            where, name, (left, top, right, bottom), (found["width"], found["height"]))
        if name.startswith(("hand", "spot", "countdown")):  # not under the chips (on a phone they stay at the bottom)
            assert bottom <= found["tray"] + 0.5, (where, name, "under the chips", bottom, found["tray"])
    boxes: dict[str, list[float]] = found["boxes"]
    return boxes


# The history, the roads and the player's chips as a player at this size sees them at the result.
BESIDE = """() => {
  const panel = document.querySelector('#history').getBoundingClientRect();
  const row = document.querySelector('#history tr.row');
  const cells = row ? [...row.querySelectorAll('td, button')].map((c) => c.getBoundingClientRect())
    .map((r) => [r.left, r.right]) : [];
  const side = document.querySelector('.side');
  const before = window.scrollY;
  side.scrollTop = side.scrollHeight;
  const after = { page: window.scrollY, side: side.scrollTop };
  side.scrollTop = 0;
  const strip = document.querySelector('#road-strip');
  const stripBox = strip.getBoundingClientRect();
  return { panel: [panel.left, panel.right], cells, rowHeight: row ? row.getBoundingClientRect().height : 0,
           before, after, sticky: getComputedStyle(side).position, overflow: getComputedStyle(side).overflowY,
           strip: { shown: getComputedStyle(strip).display !== 'none',
                    marks: strip.querySelectorAll('.cell.big').length,
                    top: stripBox.top, bottom: stripBox.bottom, height: window.innerHeight } };
}"""


def beside(page: Page, where: str, game: str) -> None:
    """At the result: the history row fits its panel (nothing clipped, the result within three lines); on a desk
    the side column scrolls on its own (the felt stays), on a phone the Big Road strip is on the main screen."""
    expect(page.locator("#history tr.row").first).to_be_visible(timeout=10_000)
    found = page.evaluate(BESIDE)
    left, right = found["panel"]
    assert found["cells"] and all(left - 0.5 <= a and b <= right + 0.5 for a, b in found["cells"]), (where, found)
    size = float(page.evaluate("parseFloat(getComputedStyle(document.querySelector('#history tr.row td')).fontSize)"))
    assert found["rowHeight"] <= 4.5 * size * 1.3, (where, "the history row wraps", found["rowHeight"], size)
    if page.viewport_size and page.viewport_size["width"] > 900:
        assert found["sticky"] == "sticky" and found["overflow"] == "auto", (where, found)
        assert found["after"]["page"] == found["before"] == 0, (where, "the felt scrolled away", found)
        assert not found["strip"]["shown"], (where, found["strip"])
    elif game != "lucky-draw":  # Lucky Draw has no roads
        strip = found["strip"]
        assert strip["shown"] and strip["marks"] >= 1, (where, strip)
        assert strip["bottom"] <= strip["height"], (where, "the Big Road strip is below the fold", strip)


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def money(minor: int) -> str:
    return f"{abs(minor) / 100:,.2f}"


@pytest.mark.parametrize("game", list(GAMES))
def test_laptop_and_phone_show_the_table_the_news_and_your_result(server: Server, browser: Browser, game: str) -> None:
    table_id, spot = GAMES[game]
    errors: list[str] = []
    players: list[tuple[str, int, int, Any, Page]] = []
    for width, height in SIZES:
        for locale in LOCALES[width]:
            context, page = new_page(browser, server.url, locale=locale, width=width, height=height, errors=errors)
            register(page, f"{game[:4]}{width}{locale}")
            page.evaluate(RECORD)
            sit(page, table_id)
            players.append((locale, width, height, context, page))
    newcomer_context, newcomer = new_page(browser, server.url, errors=errors)
    register(newcomer, f"{game[:4]}_newcomer")

    # one round for all six: each bets its own amount (5.00 to 25.00, within every table's maximum)
    first = players[0][4]
    wait_for_betting(first, BETTING_SECONDS - 4, timeout=ROUND / 1000)
    placed: dict[str, int] = {}
    for n, (*_, page) in enumerate(players):
        chips = [5] * (n % 5 + 1)
        page.click("[data-chip='5']")  # once: the chip stays picked (every action counts in a 30 s window)
        for _ in chips:
            page.click(f"[data-spot={spot}]")
        page.click("#place")
        expect(page.locator(f"[data-spot={spot}] .amount")).not_to_contain_text("+")
        placed[in_page(page, "session.me.username")] = sum(chips) * 100
    for locale, width, height, _, page in players:
        on_screen(page, f"{game} {width}x{height} {locale} betting")
        # the player's chips on the spot: chips with their values, adding up to the stake
        values = [int(v) for v in page.locator(f"[data-spot={spot}] .stack-chip").all_text_contents()]
        mine = placed[in_page(page, "session.me.username")]
        assert values and sum(values) * 100 == mine, (game, width, locale, values)

    # table news: the seventh player sits down; each page says so in its news line, over nothing else
    sit(newcomer, table_id)
    for locale, width, height, _, page in players:
        news = page.locator("#news li").last
        expect(news).to_contain_text(f"{game[:4]}_newcomer")
        expect(page.locator("#toast")).not_to_be_visible()  # no toast over the felt
        notice = news.bounding_box()
        assert notice and notice["height"] > 0
        box = [notice["x"], notice["y"], notice["x"] + notice["width"], notice["y"] + notice["height"]]
        for name, other in on_screen(page, f"{game} {width}x{height} {locale} news").items():
            assert not overlaps(box, other), (game, width, locale, "the news covers", name, box, other)
        shot(page, f"31-layout-{width}-{locale}-{game}", full_page=False)

    # the result: one line with the round's net, as the server settled it, in large type and said
    if game == "lucky-draw":
        for _, _, _, _, page in players:
            stand = page.locator("#stand")
            expect(stand).to_be_visible(timeout=ROUND)
            stand.click()
    # every page is measured while the result is on show (a few seconds), the screenshots are taken after
    for *_, page in players:
        wait_for_phase(page, "result", timeout=ROUND / 1000)
    for locale, width, height, _, page in players:
        assert page.locator("#your-result").text_content(), (game, locale, width, "no result line")
        on_screen(page, f"{game} {width}x{height} {locale} result")
    for locale, width, _, _, page in players:
        shot(page, f"31-result-{width}-{locale}-{game}", full_page=False)
        beside(page, f"{game} {width} {locale}", game)
    problems: list[str] = []
    for locale, width, _, _, page in players:
        name = in_page(page, "session.me.username")
        history = in_page(page, f"(await api('GET', '/api/history')).filter((r) => r.table_id === {table_id})")
        assert history, (game, name, "no settled round")
        row = history[0]
        assert {code: bet["amount"] for code, bet in row["bets"].items()} == {spot: placed[name]}, row
        net = sum(bet["net"] for bet in row["bets"].values())
        # the settlement agrees with the round's result: a Player bet wins even money, pushes on a tie
        stake = placed[name]
        if game == "lucky-draw":
            event = row["bets"]["enter"]["event"]
            assert (net > 0) == (event == "Player wins") and (net < 0) == (event == "Dealer wins"), row
        else:
            assert net == {"player": stake, "banker": -stake, "tie": 0}[row["winner"]], row
        win, lose, push = WORDS[locale]
        wanted = win.format(money(net)) if net > 0 else lose.format(money(net)) if net < 0 else push
        lines = page.evaluate("window.lines")
        assert lines and lines[-1][0] == wanted, (game, locale, width, lines, wanted)
        assert lines[-1][1] >= 20, ("large type", lines[-1])
        assert any(wanted in said for said in page.evaluate("window.said")), (wanted, page.evaluate("window.said"))
        if width == 1280:  # axe once per language: the table with the result line and the news line shown
            problems += serious(page, f"{game} {locale} result")
    assert problems == [], "\n".join(problems)
    for *_, context, _ in players:
        context.close()
    newcomer_context.close()
    assert errors == [], errors
