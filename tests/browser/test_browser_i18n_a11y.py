"""Languages and accessibility in real Chromium (issue 12).

* With the browser in ``zh-CN`` the page picks Simplified Chinese, and no screen a player meets (login
  with a wrong password, lobby, the three tables in every phase of a round with a bet, a refusal from
  the page and one from the server, the result, the history with a round's detail, the roads' ask,
  Lucky Draw's decision with its hint) shows a word of English or a catalogue key, in its text or in
  what a screen reader reads (aria-label, title).  The exceptions: the language switch, which names
  each language in its own words ("English"), and the provably fair panel's hexadecimal commitment
  and seeds and its algorithm's name, shown as they are in every language.
* Both catalogues have the same keys, and no key was missing while the pages were shown.
* axe-core (axe-playwright-python) finds no critical or serious violation on the login, the lobby and
  each game's table (betting, and the result), in both languages (in Simplified Chinese on the screens of the
  walk above: one walk, not two).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from axe_playwright_python.sync_playwright import Axe

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
from ..server.test_catalogue_js import SIMPLIFIED_ONLY  # (checked there in the catalogues; here on the screen)

pytestmark = pytest.mark.browser
need_chromium()
LONG = True  #: started first (tests/conftest.py)
BETTING_SECONDS = 8
ROUND = 40_000
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Exempt, and nothing else: what the provably fair panel (fair.js) shows as it is in every language,
# because a player compares it with other tools: hexadecimal digests and seeds of 16 digits or more
# (the shoe's commitment, a client seed: no word of English is 16 letters a to f) and the name of the
# shuffle algorithm; and the web address of the rule card's help line (an address is typed as it is).
AS_IT_IS = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])|(?<![0-9A-Za-z])hmac-sha256-fisher-yates/\d+"
                      r"|(?<![0-9A-Za-z])ksgamblinghelp\.com(?![0-9A-Za-z])")

SHOWN = """() => {
  const parts = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest('#lang, script, noscript, style') || !el.checkVisibility()) continue;
    parts.push(node.textContent);
  }
  for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
    if (el.closest('#lang') || !el.checkVisibility()) continue;
    for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
      if (el.getAttribute(name)) parts.push(el.getAttribute(name));
    }
  }
  for (const el of document.querySelectorAll('.visually-hidden')) parts.push(el.textContent);
  return parts.join('\\n');
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("i18n-data"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def english(page: Page, names: set[str]) -> list[str]:
    """The Latin-letter words on the screen that are not a player's name (card ranks are one letter)."""
    return [word for word in LATIN_WORD.findall(AS_IT_IS.sub(" ", page.evaluate(SHOWN))) if word not in names]


def _around(shown: str, words: list[str]) -> list[str]:
    """Each word where it stands on the screen."""
    return [shown[max(0, shown.find(word) - 60):shown.find(word) + 60] for word in words]


def no_english(page: Page, names: set[str], where: str, samples: int = 3) -> None:
    for _ in range(samples):
        assert len(page.evaluate(SHOWN)) > 20, where  # the check reads the page
        found = english(page, names)
        assert not found, (where, found, _around(page.evaluate(SHOWN), found[:3]))  # (read again only on failure)
        page.wait_for_timeout(150)


def test_in_simplified_chinese_no_screen_shows_english_and_axe_finds_no_serious_violation(server: Server,
                                                                                          browser: Browser):
    """Every screen of a walk through the three games in Simplified Chinese: no English word, and axe-core finds
    no critical or serious violation (the English walk is :func:`test_axe_finds_no_critical_or_serious_violation`)."""
    names = {"zhwang"}
    errors: list[str] = []
    problems: list[str] = []
    context, page = new_page(browser, server.url, locale="zh-CN", errors=errors)
    keys = in_page(page, "[Object.keys(CATALOGUES.en).sort(), Object.keys(CATALOGUES['zh-CN']).sort()]")
    assert keys[0] == keys[1], set(keys[0]) ^ set(keys[1])  # one catalogue per language, the same keys
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    expect(page.locator("#login")).to_have_text("登录")
    no_english(page, names, "login")
    problems += serious(page, "zh login")
    shot(page, "20-zh-login")
    page.fill("#username", "nobody")
    page.fill("#password", "correct horse battery")
    page.click("#login")
    expect(page.locator("#login-error")).to_have_text("用户名或密码错误。")
    no_english(page, names | {"nobody"}, "login refused", 1)
    page.fill("#password", "short")
    page.click("#register")
    expect(page.locator("#login-error")).to_have_text("密码长度为 8 到 128 个字符。")
    page.fill("#username", "")
    register(page, "zhwang")
    page.wait_for_timeout(800)
    no_english(page, names, "lobby")
    problems += serious(page, "zh lobby")
    shot(page, "21-zh-lobby")

    # EZ: a refusal by the page, a bet, then every phase of the round to the next window
    sit(page, 2)
    wait_for_betting(page, 5)
    no_english(page, names, "ez betting")
    page.click("[data-chip='25']")
    page.click("[data-spot=banker]")
    page.click("[data-spot=banker]")
    expect(page.locator("#refusal")).to_contain_text("已达上限")
    no_english(page, names, "ez refusal", 1)
    page.click("#clear")
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    page.click("#place")
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("您 5.00")
    # the server's own refusal, in the player's words: leaving with a bet in play (at once: on a slow machine the
    # checks below outlasted the round, and the player then left)
    page.click("#leave")
    expect(page.locator("#refusal")).to_have_text("您还有注码在桌上：本局结算后才能离开。")
    no_english(page, names, "ez bet placed", 1)
    problems += serious(page, "zh ez betting")
    shot(page, "22-zh-ez-betting")
    for wanted in ("no_more_bets", "dealing", "result"):
        wait_for_phase(page, wanted, timeout=ROUND / 1000)
        shot(page, f"22-zh-ez-{wanted}")
        no_english(page, names, f"ez {wanted}", 2)
    expect(page.locator("#banner")).to_have_text(re.compile(r"^(庄赢|闲赢|和局) \d : \d$"))
    expect(page.locator("#history tr.row")).to_have_count(1)
    page.locator("#history tr.row button[aria-controls]").first.click()
    page.click("#ask-banker")
    no_english(page, names, "ez result, history detail and ask", 1)
    problems += serious(page, "zh ez result")
    shot(page, "23-zh-ez-result")
    wait_for_phase(page, "betting", timeout=10)
    no_english(page, names, "ez next round", 1)

    # Mini-Baccarat with its pay tables open
    page.goto(server.url + "/#/")
    sit(page, 1)
    wait_for_betting(page, 2)
    page.click("#paytables summary")
    expect(page.locator("#paytables [data-wager=dragon_bonus_banker]")).to_contain_text("赢 9 点")
    no_english(page, names, "mini with pay tables")
    problems += serious(page, "zh mini with pay tables")
    shot(page, "24-zh-mini")

    # Lucky Draw: the decision with its hint, then the result
    page.goto(server.url + "/#/")
    sit(page, 3)
    wait_for_betting(page, 4)
    page.click("[data-chip='5']")
    page.click("[data-spot=enter]")
    page.click("#place")
    expect(page.locator("#draw")).to_be_visible(timeout=ROUND)
    page.check("#show-hint")
    why = r" ?（每 1 单位入局注，停牌平均回报 [+−]?\d\.\d+，补牌平均回报 [+−]?\d\.\d+）"  # the reason, in numbers
    expect(page.locator("#hint")).to_have_text(re.compile(f"^提示：(补牌|停牌){why}$"))
    no_english(page, names, "lucky draw decision")
    problems += serious(page, "zh lucky draw decision")
    shot(page, "25-zh-lucky-decision")
    page.click("#stand")
    expect(page.locator("#banner")).to_have_text(re.compile(r"^(您赢了|荷官赢|和局) \d : \d$"), timeout=ROUND)
    no_english(page, names, "lucky draw result")
    problems += serious(page, "zh lucky draw result")
    shot(page, "26-zh-lucky-result")
    assert in_page(page, "[...missingKeys]") == []  # every key had its Chinese words
    # the switch: English at once, and kept for the next visit
    page.select_option("#lang", "en")
    expect(page.locator("#phase")).to_have_text(re.compile("^(BETTING|NO MORE BETS|DEALING|DECISIONS|RESULT)$"))
    expect(page.locator("#table-title")).to_have_text("Lucky Draw Baccarat table 1")
    page.goto(server.url + "/#/")
    expect(page.locator("h1")).to_have_text("Tables")
    context.close()
    assert problems == [], "\n".join(problems)
    assert errors == [], errors


def test_a_hong_kong_browser_reads_traditional_chinese_at_the_table(server: Server, browser: Browser):
    """A zh-HK browser gets Traditional Chinese (a zh-TW or zh-MO one the same: test_catalogue_js.py): the login,
    the lobby, an EZ table taking bets with a refusal of the server's, no English word and no Simplified character
    on any of them, axe-core content; the menu offers the three languages and switches to Simplified."""
    errors: list[str] = []
    problems: list[str] = []
    context, page = new_page(browser, server.url, locale="zh-HK", width=1366, height=768, errors=errors)
    assert page.evaluate("document.documentElement.lang") == "zh-Hant"
    expect(page.locator("#login")).to_have_text("登入")
    assert page.locator("#lang option").all_inner_texts() == ["English", "简体中文", "繁體中文"]
    expect(page.locator("#lang")).to_have_value("zh-Hant")

    def traditional(where: str) -> None:
        shown = page.evaluate(SHOWN)
        simplified = sorted({c for c in shown if c in SIMPLIFIED_ONLY})
        assert not simplified, (where, simplified)
        no_english(page, names, where, 1)

    names = {"hkwong", "zhwang", "axeen"}  # the module's players, seated at the same tables (hkwong-2 on a rerun:
    # the words are split at the hyphen)
    register(page, "hkwong")
    traditional("lobby")
    sit(page, 2)
    expect(page.locator("#table-title")).to_have_text("免佣百家樂 1 號桌")
    wait_for_betting(page, 4)
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    page.click("#place")
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("您 5.00")
    page.click("#leave")  # the server's refusal, in Traditional
    expect(page.locator("#refusal")).to_contain_text("您還有注碼在桌上")
    traditional("ez betting with a refusal")
    problems += serious(page, "zh-Hant ez betting")
    shot(page, "27-zh-hant-ez-betting")
    page.select_option("#lang", "zh-CN")
    expect(page.locator("#table-title")).to_have_text("免佣百家乐 1 号桌")
    context.close()
    assert problems == [], "\n".join(problems)
    assert errors == [], errors


#: What a script writes when it shows a value that is not there (a null child of ``replaceChildren`` is "null")
UNFILLED = re.compile(r"\b(?:null|undefined|NaN)\b|\[object Object\]")


def unfilled(page: Page, where: str) -> list[str]:
    """The words on the screen that are a missing value written out, each with where it stands."""
    shown = page.evaluate(SHOWN)
    return [f"{where}: {shown[max(0, m.start() - 60):m.end() + 20]!r}" for m in UNFILLED.finditer(shown)]


def serious(page: Page, where: str) -> list[str]:
    results = Axe().run(page)
    found = [f"{where}: {v['id']} ({v['impact']}): {v['help']} -- "
             + "; ".join(node["target"][0] if isinstance(node["target"][0], str) else str(node["target"])
                         for node in v["nodes"][:5])
             for v in results.response["violations"] if v["impact"] in ("critical", "serious")]
    return found


@pytest.mark.parametrize("locale", ["en-US"])  # Simplified Chinese: in the walk above
def test_axe_finds_no_critical_or_serious_violation(server: Server, locale: str, browser: Browser):
    problems: list[str] = []
    errors: list[str] = []
    context, page = new_page(browser, server.url, locale=locale, errors=errors)
    expect(page.locator("#login")).to_be_visible()
    problems += serious(page, "login")
    register(page, f"axe{locale[:2]}")
    page.wait_for_timeout(800)
    problems += serious(page, "lobby") + unfilled(page, "lobby")
    for table_id, spot in ((1, "player"), (2, "banker"), (3, "enter")):
        page.goto(server.url + "/#/")
        sit(page, table_id)
        wait_for_betting(page, 3)
        page.click("[data-chip='1']")
        page.click(f"[data-spot={spot}]")
        page.click("#place")
        expect(page.locator(f"[data-spot={spot}] .amount")).not_to_contain_text("+")
        problems += serious(page, f"table {table_id} betting") + unfilled(page, f"table {table_id} betting")
        if table_id == 3:
            expect(page.locator("#stand")).to_be_visible(timeout=ROUND)
            problems += serious(page, f"table {table_id} decisions")
        expect(page.locator("#banner")).not_to_have_text("", timeout=ROUND)
        page.click("#ask-banker") if table_id != 3 else None
        problems += serious(page, f"table {table_id} result") + unfilled(page, f"table {table_id} result")
    context.close()
    assert problems == [], "\n".join(problems)
    assert errors == [], errors
