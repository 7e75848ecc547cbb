"""Issue 31, items 4 and 5, on the page: Lucky Draw understood (pay tables named by what they pay, a
rules panel for every game from the registry, the Block Bonus named when it settles, the hint with its
reason, the seat box not showing a lost Block Bonus as the round's result while Enter is live, both
totals in the last result and the history) and limits and refusals (a phone shows every spot's limits,
refusals when nothing is left say so, a refused chip comes off the layout, Place bets is disabled while
something staged is over a limit, chips over the player's own limit are greyed with what is left), in
English and Chinese.  Screenshots: artifacts/screenshots/31-lucky-*.png."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from ..browser_kit import (
    Browser,
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
    wait_for_phase,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
need_chromium()
BLOCKS = ("Ultimate Block", "Pair Block", "Flush Block", "Normal Block", "No Block")
NUMBERED = re.compile(r"pay ?table \d|赔率表 ?\d", re.IGNORECASE)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # long betting windows: a test's clicks take seconds on a busy machine
    with running_server(tmp_path_factory.mktemp("lucky-data"), betting_seconds=16) as running:
        yield running


def _table(page: Page, text: str) -> int:
    card = page.locator("#lobby [data-table]", has_text=text).first
    expect(card).to_be_visible()
    return int(card.get_attribute("data-table") or "0")


def _token_fetch(page: Page, method: str, path: str, body: object) -> int:
    """A request with the page's own session (as another tab of the player's would send it): its status."""
    return int(page.evaluate("""async ([method, path, body]) => {
        const answer = await fetch(path, { method, headers: { "Content-Type": "application/json",
            Authorization: `Bearer ${localStorage.getItem("token")}`,
            "Idempotency-Key": `lucky-test-${Date.now()}-${Math.random().toString(36).slice(2)}` },
            body: JSON.stringify(body) });
        return answer.status; }""", [method, path, body]))


def test_pay_tables_are_named_by_what_they_pay_and_every_game_has_its_rules(page: Page) -> None:
    register(page, "lena")
    lobby = page.locator("#lobby")
    expect(lobby).to_contain_text("Draw: Lucky 7 (3-card 7) pays 2:1")
    assert not NUMBERED.search(page.locator("body").inner_text())
    shot(page, "31-lucky-lobby")
    sit(page, _table(page, "pays 2:1"))
    rules = page.locator("#rules-panel")
    expect(rules).to_contain_text("draws a third on 0–4")
    expect(rules.locator("[data-wager=draw] caption")).to_have_text("Draw: Lucky 7 (3-card 7) pays 2:1")
    block = rules.locator("[data-wager=block_bonus]")
    for event in BLOCKS:
        expect(block).to_contain_text(event)
    expect(block.locator("tr", has_text="Pair Block")).to_contain_text("one card in the dealer's first card's suit")
    assert not NUMBERED.search(page.locator("body").inner_text())
    shot(page, "31-lucky-rules")
    page.click("#leave")
    sit(page, _table(page, "EZ Baccarat"))
    expect(page.locator("#rules-panel summary")).to_contain_text("How to play")
    page.click("#rules-panel summary")
    expect(page.locator("#rules-panel")).to_contain_text("closest to 9 wins")
    expect(page.locator("#rules-panel [data-wager=dragon_7]")).to_contain_text("40:1")
    # punto banco's drawing rules, as the layout's chart prints them (from the tableau, via the catalogue)
    expect(page.locator("#rules-panel")).to_contain_text("The Player draws on 0–5 and stands on 6–7.")
    expect(page.locator("#rules-panel")).to_contain_text("the Banker draws on 0–5 and stands on 6–7")
    chart = page.locator("#drawing-chart tbody tr")
    expect(chart).to_have_count(8)  # Banker totals 0-7 (8 and 9 are naturals)
    cells = {int(row[0]): row[1:] for row in (line.split("\t") for line in chart.evaluate_all(
        "rows => rows.map((r) => [...r.children].map((c) => c.textContent).join('\\t'))"))}
    assert cells[3] == ["D"] * 8 + ["S", "D"]  # 3 draws unless the Player's third card is an 8
    assert cells[4] == ["S", "S"] + ["D"] * 6 + ["S", "S"] and cells[6] == ["S"] * 6 + ["D", "D", "S", "S"]
    assert cells[7] == ["S"] * 10 and cells[0] == ["D"] * 10
    page.locator("#rules-panel").scroll_into_view_if_needed()
    shot(page, "31-rules-punto-banco")


def test_in_chinese_too(browser: Browser, server: Server, page_errors: list[str]) -> None:
    context, page = new_page(browser, server.url, locale="zh-CN", errors=page_errors)
    try:
        register(page, "mei")
        expect(page.locator("#lobby")).to_contain_text("补牌注：幸运7（三张牌 7 点） 赔 2:1")
        assert not NUMBERED.search(page.locator("body").inner_text())
        sit(page, _table(page, "赔 2:1"))
        rules = page.locator("#rules-panel")
        expect(rules).to_contain_text("合计 0–4 点时补第三张")
        pair = rules.locator("[data-wager=block_bonus] tr", has_text="对子封牌")
        expect(pair).to_contain_text("其中一张与荷官第一张牌同花色")
        shot(page, "31-lucky-rules-zh")
    finally:
        context.close()
    assert page_errors == []


def test_a_lucky_round_names_the_block_bonus_keeps_the_seat_box_and_gives_both_totals(page: Page) -> None:
    register(page, "otto")
    table = _table(page, "pays 2:1")
    sit(page, table)
    if page.locator("#sit").is_visible():
        page.click("#sit")
    expect(page.locator("li.seat.mine")).to_have_count(1)
    wait_for_betting(page, at_least=11)
    for spot, chip in (("enter", 5), ("enter", 5), ("block_bonus", 5)):
        page.click(f"[data-chip='{chip}']")
        page.click(f"[data-spot={spot}]")
    page.click("#place")
    expect(page.locator("#refusal")).to_have_class(re.compile("info"))
    wait_for_phase(page, "decisions")
    # the Block Bonus is settled at the first deal: named at the table with what it pays (or lost)
    net = page.locator("[data-spot=block_bonus] .net")
    expect(net).to_have_text(re.compile("|".join(BLOCKS)))
    expect(page.locator("#your-hand .hand-result")).to_contain_text("Block Bonus: ")
    if "won" in net.inner_text():
        expect(net).to_contain_text(re.compile(r"pays \d+:1"))
    # Enter is live: the seat box shows the stake, not the Block Bonus's result as the round's
    expect(page.locator("li.seat.mine .seat-bet")).to_have_text("15.00")
    hint = page.locator("#show-hint")
    if not hint.is_checked():
        hint.check()
    expect(page.locator("#hint")).to_contain_text(re.compile(r"Hint: (DRAW|STAND).*per 1 of Enter, standing returns "
                                                             r"[+−]?\d\.\d{3}, drawing [+−]?\d\.\d{3}"))
    words = page.locator("#hint").inner_text()
    stand, draw = (float(x.replace("−", "-")) for x in re.findall(r"[+−]?\d\.\d{3}", words))
    assert ("DRAW" in words) == (draw > stand)  # the advice is the larger expectation
    advised, other = ("#draw", "#stand") if "DRAW" in words else ("#stand", "#draw")
    expect(page.locator(advised)).to_have_class(re.compile(r"\bprimary\b"))  # the hint's choice is the gold button
    expect(page.locator(other)).not_to_have_class(re.compile(r"\bprimary\b"))
    shot(page, "31-lucky-decision")
    page.click("#stand")
    wait_for_phase(page, "result")
    shot(page, "31-lucky-result")
    wait_for_phase(page, "betting")
    expect(page.locator("#last-result")).to_contain_text(re.compile(r"Dealer \d : You \d"))
    expect(page.locator("#history tr.row").first).to_contain_text(re.compile(r"Dealer \d : You \d"))
    shot(page, "31-lucky-last-result")
    # sat again at another seat (from another tab): the last round and the history still give the hand of the seat
    # it was played from (issue 41 item 2: they read the seat the player has now, another's hand or none)
    played = page.locator("li.seat.mine").get_attribute("data-seat")
    other = 7 if played != "7" else 6
    assert _token_fetch(page, "DELETE", f"/api/tables/{table}/seats", None) == 204
    assert _token_fetch(page, "POST", f"/api/tables/{table}/seats", {"seat": other}) == 201
    expect(page.locator("li.seat.mine")).to_have_attribute("data-seat", str(other))
    expect(page.locator("#last-result")).to_contain_text(re.compile(r"Dealer \d : You \d"))
    expect(page.locator("#history tr.row").first).to_contain_text(re.compile(r"Dealer \d : You \d"))
    page.locator("#history tr.row button.link").first.click()
    expect(page.locator("#history tr.detail").first).to_contain_text(re.compile(r"YOU: \w"))


def test_a_phone_shows_every_spot_s_limits_and_refusals_say_what_is_left(browser: Browser, server: Server,
                                                                          page_errors: list[str]) -> None:
    context, page = new_page(browser, server.url, width=390, height=844, errors=page_errors)
    try:
        register(page, "pia")
        sit(page, _table(page, "EZ Baccarat"))
        limits = page.locator("[data-spot=banker] .limits")
        expect(limits).to_be_visible()
        expect(limits).to_contain_text("25.00")
        wait_for_betting(page, at_least=11)
        page.click("[data-chip='25']")
        page.click("[data-spot=banker]")
        page.click("[data-chip='1']")
        page.click("[data-spot=banker]")
        expect(page.locator("#refusal")).to_contain_text("Banker is at its maximum")
        page.click("#double")
        expect(page.locator("#refusal")).to_contain_text("Banker is at its maximum")
        expect(page.locator("#refusal")).not_to_contain_text("add up to")
        shot(page, "31-lucky-phone-limits")
        page.click("#clear")
        page.click("#leave")
        sit(page, _table(page, "Mini-Baccarat"))
        wait_for_betting(page, at_least=11)
        page.click("[data-chip='500']")
        page.click("[data-spot=player]")
        page.click("[data-spot=player]")  # the whole 1,000.00
        expect(page.locator("[data-chip='500']")).to_have_attribute("title", re.compile("Your balance is used up"))
        page.click("[data-spot=banker]")  # the 500 chip still in hand
        expect(page.locator("#refusal")).to_contain_text("Your balance is used up")
        expect(page.locator("#refusal")).not_to_contain_text("0.00 to stake")
        # another tab of the player's stakes 1.00: what is staged is now over the balance, Place bets is off
        assert _token_fetch(page, "POST", f"/api/tables/{_table_id(page)}/bets", {"bets": {"banker": 100}}) == 201
        expect(page.locator("#place")).to_have_attribute("aria-disabled", "true")
        # why, said beside the totals (not only in the button's tooltip)
        expect(page.locator("#over-limit")).to_be_visible()
        expect(page.locator("#over-limit")).to_contain_text("take those chips off")
        shot(page, "31-lucky-place-disabled")
    finally:
        context.close()
    assert page_errors == []


def _table_id(page: Page) -> int:
    return int(page.evaluate("() => Number(location.hash.replace(/\\D/g, ''))"))


def test_a_refused_chip_comes_off_and_chips_over_your_own_limit_are_greyed(page: Page) -> None:
    register(page, "ruth")
    sit(page, _table(page, "Mini-Baccarat"))
    wait_for_betting(page, at_least=11)
    page.click("[data-chip='100']")
    page.click("[data-spot=player]")  # staged before the limit is known to this page
    # the player's own stake limit, set in another tab: 60.00 a day
    limit = {"kind": "stake", "period": "day", "amount": 6_000}
    assert _token_fetch(page, "PUT", "/api/protection/limits", limit) == 200
    page.click("[data-chip='25']")
    page.click("[data-spot=player]")
    page.click("#place")
    # the server refused: the chips it could not take came off (newest first, until the rest fits: 0 here)
    expect(page.locator("#refusal")).to_contain_text("stake limit")
    expect(page.locator("[data-spot=player] .amount")).not_to_contain_text("+")
    expect(page.locator("#totals")).to_contain_text("your own limit leaves 60.00")
    chip = page.locator("[data-chip='100']")
    expect(chip).to_have_attribute("aria-disabled", "true")
    expect(chip).to_have_attribute("title", "your own limit leaves 60.00")
    expect(chip).to_have_class(re.compile("over-own-limit"))
    expect(page.locator("[data-chip='25']")).to_have_attribute("aria-disabled", "false")
    shot(page, "31-lucky-own-limit")
    # Double within what the limit leaves is staged; over it, refused in the limit's words with nothing staged;
    # the chosen chip that no longer fits stays chosen, greyed, never swapped for a smaller one
    page.click("[data-spot=player]")  # 25.00: the limit leaves 35.00
    page.click("#double")
    expect(page.locator("[data-spot=player] .amount")).to_have_text("+50.00")
    page.click("#double")
    expect(page.locator("#refusal")).to_have_text("your own limit leaves 10.00")
    expect(page.locator("[data-spot=player] .amount")).to_have_text("+50.00")
    chosen = page.locator("[data-chip='25']")
    expect(chosen).to_have_attribute("aria-disabled", "true")
    expect(chosen).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-chip='5']")).to_have_attribute("aria-pressed", "false")


def test_a_limit_set_in_another_tab_reaches_the_table_at_once(page: Page) -> None:
    """The player's own stake limit set on the Safer play page of a second tab: the table's tray says what it
    leaves and greys the chips over it without a bet or a result in between (the tabs share localStorage); the
    second tab needs no log-in, and a log-out there signs the first out too."""
    register(page, "tess")
    sit(page, _table(page, "Mini-Baccarat"))
    expect(page.locator("#totals")).not_to_contain_text("your own limit")
    other = page.context.new_page()
    try:
        other.goto(page.url.split("#")[0])
        expect(other.locator("#who")).to_have_text(page.locator("#who").inner_text())  # signed in already: one
        # log-in for every tab of the browser
        other.click("#protect-link")
        other.select_option("#limit-kind", "stake")
        other.fill("#limit-amount", "60")
        other.click("#limit-save")
        expect(other.locator("#limits-rows")).to_contain_text("60.00")
        expect(page.locator("#totals")).to_contain_text("your own limit leaves 60.00")
        expect(page.locator("[data-chip='100']")).to_have_attribute("aria-disabled", "true")
        other.click("#logout")  # a log-out in one tab signs out every tab
        expect(page.locator("#login")).to_be_visible()
        expect(page.locator("#who")).to_have_text("")
    finally:
        other.close()
