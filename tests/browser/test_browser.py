"""End to end in real headless Chromium (Playwright) against the real server on SQLite: register, join
an EZ table, bet, see the cards, the result, the balance change and the roads update; an over-limit
bet is refused and changes nothing; a Lucky Draw round with Draw.  More in ``test_browser_*.py``:
the paced timeline, the whole table, languages and accessibility, the connection.  Screenshots go to
``artifacts/screenshots`` (or ``$BACCARAT_SCREENSHOTS``).

Chromium comes from Debian's ``chromium`` package (the test command installs it: ``scripts/provision``); CI sets
``BACCARAT_REQUIRE_BROWSER=1`` so that a missing browser fails instead of skipping.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from ..browser_kit import (
    CARD,
    RESULTS_PAUSE,
    Page,
    Server,
    balance,
    expect,
    need_chromium,
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
ROUND = BETTING_SECONDS + 1 + 8 * CARD + RESULTS_PAUSE + 5  # the longest round, with room


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("browser-data"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def test_ez_round_in_the_browser_bet_cards_result_balance_and_roads(page: Page):
    expect(page.locator("#login")).to_be_visible()  # what a new visitor sees first
    shot(page, "00-login")
    register(page, "browser_ez")
    page.wait_for_timeout(500)  # the lobby's roads
    shot(page, "01-lobby")
    sit(page, 2)
    wait_for_betting(page, 8)
    expect(page.locator("[data-spot=dragon_7] .name")).to_have_text("Dragon 7")
    expect(page.locator("[data-spot=panda_8] .pays")).to_have_text("25:1")
    expect(page.locator("[data-spot=banker] .pays")).to_have_text("1:1")
    expect(page.locator("[data-spot=banker] .note")).to_contain_text("Dragon 7 (Banker pushes)")
    # the EZ card's 25.00 maximum: the 100 and 500 chips are not offered at all
    expect(page.locator("[data-chip='100']")).to_be_hidden()
    expect(page.locator("[data-chip='500']")).to_be_hidden()
    shot(page, "02-ez-table")

    # over the maximum: the page says so before sending, and stages nothing more
    before = balance(page)
    page.click("[data-chip='25']")
    page.click("[data-spot=banker]")
    page.click("[data-spot=banker]")
    expect(page.locator("#refusal")).to_have_text("Banker is at its maximum of 25.00: bet on another spot.")
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("+25.00")
    shot(page, "03-over-limit-refused")
    page.click("#clear")
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("")
    assert balance(page) == before

    # bets add up on a spot: 20.00 placed (here straight through the API, as another client of the same
    # account would), 10.00 more staged is over the maximum: once the page hears of the 20.00, Place bets
    # is off while the staged chips are over it
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    page.click("[data-spot=banker]")
    token = page.evaluate("localStorage.getItem('token')")
    answer = page.request.post(f"{page.url.split('#')[0]}api/tables/2/bets", data={"bets": {"banker": 2000}},
                               headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "browser-ez-0001"})
    assert answer.ok, answer.text()
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("you 20.00 +10.00")
    expect(page.locator("#place")).to_be_disabled()
    expect(page.locator("#balance")).to_have_text(f"{(before - 2000) / 100:,.2f}")
    page.click("#undo")

    # 5.00 more on Banker (25.00 in all) and 1.00 on Dragon 7
    page.click("[data-chip='1']")
    page.click("[data-spot=dragon_7]")
    page.click("#place")
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("you 25.00")
    expect(page.locator("#balance")).to_have_text(f"{(before - 2600) / 100:,.2f}")
    expect(page.locator("[data-spot=banker] .crowd")).to_have_text("1 player · 25.00")
    expect(page.locator("#seats .seat.mine")).to_contain_text("browser_ez")
    before -= 2000
    # a watched table deals every round, bets or none: the hands the roads show before this one (a window
    # that closed while the page sat down was dealt with nobody's bets)
    shown = page.request.get(f"{page.url.split('#')[0]}api/tables/2/roads").json()["stats"]["hands"]

    # the round is dealt: cards in order, the result banner, settlement on the spots, the roads move
    expect(page.locator("#banner")).to_have_text(re.compile(r"(BANKER WINS|PLAYER WINS|TIE) \d : \d"),
                                                 timeout=ROUND * 1000)
    assert page.locator("#player-hand .card").count() in (2, 3)
    assert page.locator("#banker-hand .card").count() in (2, 3)
    expect(page.locator("[data-spot=banker] .net")).to_have_text(re.compile(r"^(won \+[\d.]+|lost [\d.]+|push)$"))
    # the result is said in the page's live region, with what it meant for you
    said = re.compile(r"^(Banker wins|Player wins|Tie) \d : \d\. (You (win|lose) [\d,.]+|Your bets push)$")
    expect(page.locator("#announcer")).to_have_text(said)
    expect(page.locator("#roads .bead")).to_have_count(shown + 1)
    page.wait_for_timeout(400)  # the last card's animation
    shot(page, "04-ez-result")
    net = page.locator("[data-spot=banker] .net").inner_text() + page.locator("[data-spot=dragon_7] .net").inner_text()
    expect(page.locator("#history tr.row")).to_have_count(1)
    assert balance(page) != before - 600 or "push" in net or "lost" in net  # a win or push came back
    # the history row: words, not codes, and the round's detail with why each hand drew or stood
    row = page.locator("#history tr.row").first
    expect(row).to_contain_text("Banker 25.00")
    expect(row).to_contain_text("Dragon 7 1.00")
    expect(row).to_contain_text(re.compile(r"(Banker wins|Player wins|Tie) \d : \d"))
    row.locator("button[aria-controls]").click()  # the row's time opens its detail (Verify is the other)
    detail = page.locator("#history tr.detail").first
    expect(detail).to_contain_text("Cards in deal order:")
    expect(detail).to_contain_text(re.compile(r"[AKQJ2-9]|10[♠♥♦♣]"))
    # why the Banker drew or stood, or that a natural stopped the deal (core/messages: reason.*)
    expect(detail).to_contain_text(re.compile(r"Banker (draws|stands) on \d|Natural: neither hand draws\."))
    assert not re.search(r"\b[2-9TJQKA][cdhs]\b|dragon_7|banker_", detail.inner_text())  # no raw codes
    # the roads fill their panel with cells of 20 px or more; every Bead Plate and Big Road mark has its letter
    sizes = page.evaluate("""() => {
        const grids = [...document.querySelectorAll('#roads .grid')].map((g) => getComputedStyle(g));
        return {
            panel: document.querySelector('#roads').clientWidth,
            boxes: [...document.querySelectorAll('#roads .grid-box')].map((b) => b.getBoundingClientRect().width),
            cells: grids.map((style) => parseFloat(style.gridAutoColumns)),
            columns: grids.map((style) => style.gridTemplateColumns.split(' ').length),
        };
    }""")
    assert all(box >= 0.9 * sizes["panel"] for box in sizes["boxes"]), sizes
    # a hand or two: the Bead Plate and the Big Road have a grid; the derived roads, empty yet (Big Eye Boy
    # starts with the second column's second hand), one line each
    assert shown + 1 <= 2, shown
    assert len(sizes["cells"]) == 2 and min(sizes["cells"]) >= 20, sizes
    expect(page.locator("#roads .grid-box.empty")).to_have_count(3)
    assert min(sizes["columns"]) >= 15, sizes  # empty columns drawn to the panel's edge, not a small box
    expect(page.locator("#roads .bead").first).to_have_text(re.compile("^[BPT]$"))
    if page.locator("#roads .big .letter").count():  # (a first hand that is a tie makes a cell with no side)
        expect(page.locator("#roads .big .letter").first).to_have_text(re.compile("^[BP]$"))
    page.click("#ask-banker")
    expect(page.locator("#ask-preview")).to_contain_text("If Banker wins next:")
    expect(page.locator("#ask-preview")).to_contain_text("Big Eye Boy")
    expect(page.locator("#ask-preview")).to_contain_text(re.compile("(red|blue|no mark yet)"))
    shot(page, "05-ez-history-and-ask")
    # the next round opens after the results pause, with a clean felt
    wait_for_phase(page, "betting", timeout=RESULTS_PAUSE + 5)
    expect(page.locator("#banner")).to_have_text("")
    expect(page.locator("#player-hand .card")).to_have_count(0)


def test_lucky_draw_round_with_draw(page: Page):
    register(page, "browser_ld")
    sit(page, 3)
    wait_for_betting(page, 6)
    # the table's pay tables on the layout, from the server's registry
    expect(page.locator("#paytables")).to_contain_text("Draw: Lucky 7 (3-card 7) pays 2:1")  # named by its pays
    expect(page.locator("#paytables [data-wager=draw]")).to_contain_text("Lucky 9 (3-card 9)")
    expect(page.locator("#paytables [data-wager=draw]")).to_contain_text("3:1")
    expect(page.locator("#paytables [data-wager=block_bonus]")).to_contain_text("Ultimate Block")
    expect(page.locator("#paytables [data-wager=block_bonus]")).to_contain_text("35:1")
    before = balance(page)
    page.click("[data-chip='5']")
    page.click("[data-spot=enter]")
    page.click("#place")
    expect(page.locator("[data-spot=enter] .amount")).to_have_text("you 5.00")
    # first deal: our two cards and the dealer's up card, the other dealer card face down
    expect(page.locator("#draw")).to_be_visible(timeout=ROUND * 1000)
    expect(page.locator("#dealer-hand .card.back")).to_have_count(1)
    expect(page.locator("#dealer-hand .card:not(.back)")).to_have_count(1)
    expect(page.locator("#your-hand .card")).to_have_count(2)
    expect(page.locator("#hint")).to_have_count(0)  # no hint unless asked for, and never "null"
    assert "null" not in page.locator("#decision").inner_text()
    page.check("#show-hint")  # the optional hint: the exact strategy card's decision
    expect(page.locator("#hint")).to_have_text(re.compile(r"^Hint: (DRAW|STAND) \(per 1 of Enter, .*\)$"))
    sides = page.evaluate("[...document.querySelectorAll('#hands > .hand')].map(e => e.id)")
    shot(page, "07-lucky-draw-decision")
    page.click("#draw")
    expect(page.locator("#decision")).to_contain_text("You draw")
    expect(page.locator("#banner")).to_have_text(re.compile(r"^(YOU WIN \d : \d|DEALER WINS \d : \d|PUSH \d : \d)$"),
                                                 timeout=ROUND * 1000)
    assert page.evaluate("[...document.querySelectorAll('#hands > .hand')].map(e => e.id)") == sides  # same places
    expect(page.locator("#your-hand .card")).to_have_count(3)
    expect(page.locator("[data-spot=draw] .net")).to_have_text(re.compile(r"^(won \+[\d.]+|lost [\d.]+|push)$"))
    page.wait_for_timeout(400)
    shot(page, "08-lucky-draw-result")
    # the Draw wager was staked equal to Enter and settled; the balance moved by the round's net
    row = page.locator("#history tr.row").first
    expect(row).to_contain_text("Draw 5.00")
    expect(row).to_contain_text("Enter 5.00")
    net = round(float(row.locator("td .net").inner_text().replace(",", "").replace("−", "-")) * 100)
    assert balance(page) == before + net
    row.locator("button[aria-controls]").click()  # the row's time opens its detail (Verify is the other)
    expect(page.locator("#history tr.detail").first).to_contain_text("Draw:")
