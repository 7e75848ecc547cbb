"""The whole table in real Chromium (issue 12): two players see each other's names, seats, chips and the
spot totals; bets on one spot add up; Double and Rebet stop at a spot's maximum before anything is sent;
a closed browser's seat is shown away, then freed after the grace period; a bet placed and the table
left with the keyboard alone; a phone held upright shows the cards, the countdown, the chips and Place
bets together.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from ..browser_kit import (
    Browser,
    Page,
    Server,
    balance,
    chromium,
    expect,
    in_viewport,
    need_chromium,
    new_page,
    phase,
    register,
    running_server,
    shot,
    sit,
    wait_for_betting,
    wait_for_phase,
)

pytestmark = pytest.mark.browser
need_chromium()
BETTING_SECONDS = 10
GRACE_SECONDS = 4
ROUND = 40_000  # ms: more than a whole round


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("table-data"), betting_seconds=BETTING_SECONDS,
                        env={"BACCARAT_SEAT_GRACE_SECONDS": str(GRACE_SECONDS)}) as running:
        yield running


def seat_of(page: Page) -> str:
    return page.locator("#seats .seat.mine").get_attribute("data-seat") or ""


def stage(page: Page, spot: str, *chips: int) -> None:
    for value in chips:
        page.click(f"[data-chip='{value}']")
        page.click(f"[data-spot={spot}]")


def test_two_players_see_each_other_and_bets_add_up(server: Server, browser: Browser):
    errors: list[str] = []
    context_a, ann = new_page(browser, server.url, errors=errors)
    context_b, bob = new_page(browser, server.url, errors=errors)
    register(ann, "table_ann")
    register(bob, "table_bob")
    sit(ann, 2)
    sit(bob, 2)
    seat_a, seat_b = seat_of(ann), seat_of(bob)
    assert seat_a and seat_b and seat_a != seat_b
    # each sees the other by name at the other's seat
    expect(ann.locator(f"#seats [data-seat='{seat_b}']")).to_contain_text("table_bob")
    expect(bob.locator(f"#seats [data-seat='{seat_a}']")).to_contain_text("table_ann")
    expect(ann.locator(f"#seats [data-seat='{seat_a}']")).to_contain_text(f"{seat_a} · YOU")
    expect(ann.locator(f"#seats [data-seat='{seat_a}']")).to_contain_text("table_ann")

    sent: list[str] = []
    ann.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    wait_for_betting(ann, 7)
    before = balance(ann)
    # two bets on one spot add up
    stage(ann, "banker", 5)
    ann.click("#place")
    expect(ann.locator("[data-spot=banker] .amount")).to_have_text("you 5.00")
    stage(ann, "banker", 5)
    ann.click("#place")
    expect(ann.locator("[data-spot=banker] .amount")).to_have_text("you 10.00")
    expect(ann.locator("#balance")).to_have_text(f"{(before - 1000) / 100:,.2f}")
    stage(bob, "banker", 25)
    bob.click("#place")
    expect(bob.locator("[data-spot=banker] .amount")).to_have_text("you 25.00")
    # the spot's total and number of players, each player's chips (seat markers), your own marked
    for page in (ann, bob):
        expect(page.locator("[data-spot=banker] .crowd")).to_have_text("2 players · 35.00")
        expect(page.locator("[data-spot=banker] .marker")).to_have_count(2)
        expect(page.locator("[data-spot=banker] .marker.mine")).to_have_count(1)
    expect(ann.locator(f"#seats [data-seat='{seat_b}'] .seat-bet")).to_have_text("25.00")
    expect(bob.locator(f"#seats [data-seat='{seat_a}'] .seat-bet")).to_have_text("10.00")

    # Double stops at the maximum before sending anything: 10.00 placed, 10.00 staged, then 20.00 more
    bets_sent = sum('"type":"bet"' in frame for frame in sent)
    ann.click("#double")
    expect(ann.locator("[data-spot=banker] .amount")).to_have_text("you 10.00 +10.00")
    ann.click("#double")
    expect(ann.locator("#refusal")).to_have_text(
        "Double would put 30.00 on Banker, over its maximum of 25.00: add up to 5.00 by hand.")
    expect(ann.locator("[data-spot=banker] .amount")).to_have_text("you 10.00 +10.00")
    shot(ann, "11-two-players-ann")
    shot(bob, "11-two-players-bob")
    ann.click("#clear")
    assert sum('"type":"bet"' in frame for frame in sent) == bets_sent

    # the round: both see the result and their own settlement
    for page in (ann, bob):
        expect(page.locator("#banner")).to_have_text(re.compile(r"(BANKER WINS|PLAYER WINS|TIE) \d : \d"),
                                                     timeout=ROUND)
        expect(page.locator("[data-spot=banker] .net")).not_to_have_text("")
    shot(ann, "12-two-players-result")

    # Bob closes his browser: his seat is held (away), then freed after the grace period and announced
    context_b.close()
    expect(ann.locator(f"#seats [data-seat='{seat_b}']")).to_have_class(re.compile(r"\baway\b"), timeout=10_000)
    shot(ann, "13-seat-away")
    expect(ann.locator(f"#seats [data-seat='{seat_b}']")).to_have_class(re.compile(r"\bempty\b"),
                                                                         timeout=(GRACE_SECONDS + 15) * 1000)
    expect(ann.locator("#news")).to_contain_text(f"Seat {seat_b} is free")

    # Rebet repeats the last round's bets, and stops at the maximum too
    wait_for_betting(ann, 5)
    ann.click("#rebet")
    expect(ann.locator("[data-spot=banker] .amount")).to_have_text("+10.00")
    ann.click("#rebet")
    expect(ann.locator("[data-spot=banker] .amount")).to_have_text("+20.00")
    ann.click("#rebet")
    expect(ann.locator("#refusal")).to_have_text(
        "Rebet would put 30.00 on Banker, over its maximum of 25.00: add up to 5.00 by hand.")
    ann.click("#clear")
    context_a.close()
    assert errors == [], errors


def focus(page: Page, selector: str, limit: int = 120) -> None:
    """Tab (only the keyboard) until ``selector`` has the focus."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_bet_placed_and_the_table_left_with_the_keyboard_only(page: Page):
    focus(page, "#username")
    page.keyboard.type("keys_only")
    focus(page, "#password")
    page.keyboard.type("correct horse battery")
    focus(page, "#register")
    page.keyboard.press("Enter")
    expect(page.locator("#lobby [data-table]").first).to_be_visible()
    focus(page, "[data-table='1'] button.sit")
    page.keyboard.press("Enter")
    wait_for_betting(page, 5)
    focus(page, "[data-chip='5']")
    page.keyboard.press("Enter")
    expect(page.locator("[data-chip='5']")).to_have_attribute("aria-pressed", "true")
    focus(page, "[data-spot=player]")
    page.keyboard.press("Space")
    expect(page.locator("[data-spot=player] .amount")).to_have_text("+5.00")
    focus(page, "#place")
    page.keyboard.press("Enter")
    expect(page.locator("[data-spot=player] .amount")).to_have_text("you 5.00")
    assert page.evaluate("document.activeElement.id") == "place"  # the focus stays where it was
    shot(page, "14-keyboard-bet")
    # leaving is refused while the bet is in play, in words that say when it is possible
    focus(page, "#leave")
    page.keyboard.press("Enter")
    expect(page.locator("#refusal")).to_contain_text("you can leave once this round is settled")
    expect(page.locator("#banner")).not_to_have_text("", timeout=ROUND)
    focus(page, "#leave")
    page.keyboard.press("Enter")
    expect(page.locator("#lobby")).to_be_visible()


def test_a_phone_shows_the_cards_the_countdown_the_chips_and_place_bets_together(server: Server, browser: Browser):
    errors: list[str] = []
    for locale, name in (("en-US", "phone_en"), ("zh-CN", "phone_zh")):
        context, page = new_page(browser, server.url, locale=locale, width=390, height=844, errors=errors)
        register(page, name)
        sit(page, 1)
        wait_for_betting(page, 4)
        for selector in ("#countdown", "#phase", "[data-chip='5']", "#place", "[data-spot=banker]",
                         "[data-spot=dragon_bonus_banker]", "#hands"):
            assert in_viewport(page, selector), (locale, "betting", selector)
        page.click("[data-chip='5']")
        page.click("[data-spot=banker]")
        page.click("#place")
        expect(page.locator("[data-spot=banker] .amount")).not_to_contain_text("+")
        shot(page, f"15-phone-{locale}-betting", full_page=False)
        expect(page.locator("#hands .card").first).to_be_visible(timeout=ROUND)
        for selector in ("#hands .card", "#phase", "[data-chip='5']", "#place"):
            assert in_viewport(page, selector), (locale, "dealing", selector)
        shot(page, f"15-phone-{locale}-dealing", full_page=False)
        wait_for_phase(page, "result", timeout=ROUND / 1000)
        deadline = time.monotonic() + 3
        while not page.locator("#countdown").inner_text() and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        for selector in ("#hands .card", "#countdown", "#banner", "[data-chip='5']", "#place"):
            assert in_viewport(page, selector), (locale, "result", selector)
        assert page.locator("#countdown").inner_text(), "the next round's countdown"
        assert phase(page) == "result"
        page.wait_for_timeout(300)
        shot(page, f"15-phone-{locale}-result", full_page=False)
        expect(page.locator("#history tr.row")).to_have_count(1)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the page is wider than the phone"
        shot(page, f"15-phone-{locale}-result-full")
        context.close()
    assert errors == [], errors


def test_a_player_who_sits_out_is_stood_up_announced_and_can_sit_again(tmp_path_factory: pytest.TempPathFactory):
    errors: list[str] = []
    with running_server(tmp_path_factory.mktemp("sit-out-data"), betting_seconds=10,
                        env={"BACCARAT_SIT_OUT_ROUNDS": "1"}) as server, chromium() as browser:
        context_a, ann = new_page(browser, server.url, errors=errors)
        context_b, bob = new_page(browser, server.url, errors=errors)
        register(ann, "idle_ann")
        bob_name = register(bob, "idle_bob")
        sit(ann, 2)
        # Bob sits early in a window: one that closes before his seat is checked would stand him up already
        # (every window counts toward the rule; under load, two sittings took longer than a 6 s window's rest)
        wait_for_betting(ann, 8)
        if ann.locator("#sit").is_visible():  # a window closed while she waited: she was stood up, and sits again
            ann.click("#sit")
            expect(ann.locator("#sit")).to_be_hidden()
        sit(bob, 2)
        expect(bob.locator("#sit")).to_be_hidden()
        wait_for_betting(ann, 3)
        stage(ann, "player", 1)
        ann.click("#place")
        expect(ann.locator("[data-spot=player] .amount")).to_have_text("you 1.00")
        # Bob lets a dealt round go by without a bet: he is stood up, told so, and offered his seat back
        expect(bob.locator("#sit")).to_be_visible(timeout=ROUND)
        expect(bob.locator("#news")).to_contain_text(f"{bob_name} was stood up")
        expect(bob.locator("#refusal")).to_have_text(  # his own notice, worded by the page from its code
            "You were stood up from seat 2: no bet in 1 rounds in a row. Sit down again to play.")
        expect(bob.locator("#rail")).to_contain_text("Bet from the rail")  # EZ takes his bets without a seat
        expect(ann.locator("#news")).to_contain_text(f"{bob_name} was stood up")
        shot(bob, "16-stood-up")
        bob.click("#sit")
        expect(bob.locator("#seats .seat.mine")).to_contain_text("idle_bob")
        expect(bob.locator("#sit")).to_be_hidden()
        context_a.close()
        context_b.close()
    assert errors == [], errors


def test_chips_go_on_the_layout_as_they_are_put_down_and_undo_takes_them_back(server: Server, browser: Browser):
    """Put-down mode (remembered in the browser): a chip put on a spot is a bet at once; Undo takes the last chip
    back and Clear the rest while betting is open, each answered by the server (the balance moves both ways)."""
    errors: list[str] = []
    context, page = new_page(browser, server.url, errors=errors)
    register(page, "put_down")
    sit(page, 1)
    page.check("#at-once")
    wait_for_betting(page, 7)
    start = balance(page)
    banker, player = page.locator("[data-spot=banker] .amount"), page.locator("[data-spot=player] .amount")
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    expect(banker).to_have_text("you 5.00")  # placed: no Place bets
    page.click("[data-spot=banker]")
    expect(banker).to_have_text("you 10.00")
    page.click("[data-spot=player]")
    expect(player).to_have_text("you 5.00")
    expect(page.locator("#balance")).to_have_text(f"{(start - 1_500) / 100:,.2f}")
    expect(page.locator("[data-spot=banker] .stack-chip")).to_have_count(2)
    page.click("#undo")  # the last chip put down: the Player's
    expect(player).to_have_text("")
    expect(page.locator("#refusal")).to_have_text("5.00 back in your balance.")
    page.click("#clear")  # the rest
    expect(banker).to_have_text("")
    expect(page.locator("#balance")).to_have_text(f"{start / 100:,.2f}")
    page.reload()
    expect(page.locator("#at-once")).to_be_checked()  # remembered
    assert errors == []
    context.close()
