"""End to end in real headless Chromium (Playwright) against the real server on SQLite: register,
join an EZ table, bet, see the cards, the result, the balance change and the roads update; an
over-limit bet is refused and changes nothing; a Lucky Draw round with Draw.  Screenshots go to
``artifacts/screenshots`` (or ``$BACCARAT_SCREENSHOTS``).

Chromium comes from Debian's ``chromium`` package (the test command installs it: ``tests/provision.py``); CI sets
``BACCARAT_REQUIRE_BROWSER=1`` so that a missing browser fails instead of skipping.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

if not os.environ.get("BACCARAT_REQUIRE_BROWSER"):
    pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Page, expect, sync_playwright

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(os.environ.get("BACCARAT_SCREENSHOTS", Path(__file__).parents[1] / "artifacts" / "screenshots"))
BETTING_SECONDS = 6

if CHROMIUM is None:
    if os.environ.get("BACCARAT_REQUIRE_BROWSER"):
        raise RuntimeError("BACCARAT_REQUIRE_BROWSER is set but there is no chromium on the PATH")
    pytest.skip("no chromium on the PATH (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser-data")


@pytest.fixture(scope="module")
def server(data_dir: Path) -> Iterator[str]:
    data = data_dir
    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
    process = subprocess.Popen([exe, "serve", "--port", "0", "--data-dir", str(data), "--betting-seconds",
                                str(BETTING_SECONDS)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"(http://[0-9.]+:\d+)", line)
    assert match, line
    try:
        yield match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def page(server: str) -> Iterator[Page]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(server)
        yield tab
        context.close()
        browser.close()
        assert errors == [], errors  # no JavaScript error on the page


def balance(page: Page) -> float:
    return float(page.locator("#balance").inner_text().replace(",", ""))


def register(page: Page, name: str) -> None:
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "correct horse battery")
    page.click("#register")
    expect(page.locator("h1", has_text="Tables")).to_be_visible()
    expect(page.locator("#balance")).to_have_text("1,000.00")


def sit(page: Page, table_id: int) -> None:
    page.locator(f"[data-table='{table_id}'] button").click()
    expect(page.locator("#phase")).to_contain_text(re.compile("BETTING|DEALING|DECISIONS"))


def wait_for_betting(page: Page, seconds_left: int = 3) -> None:
    """Until a betting window with at least ``seconds_left`` seconds to go."""
    deadline = time.monotonic() + 3 * BETTING_SECONDS + 10
    while time.monotonic() < deadline:
        phase, countdown = page.locator("#phase").inner_text(), page.locator("#countdown").inner_text()
        if phase.startswith("BETTING") and countdown.endswith(" s") and int(countdown[:-2]) >= seconds_left:
            return
        page.wait_for_timeout(100)
    raise AssertionError("no betting window opened")


def test_ez_round_in_the_browser_bet_cards_result_balance_and_roads(page: Page):
    expect(page.locator("#login")).to_be_visible()  # what a new visitor sees first
    page.screenshot(path=str(SHOTS / "00-login.png"), full_page=True)
    register(page, "browser_ez")
    page.screenshot(path=str(SHOTS / "01-lobby.png"), full_page=True)
    sit(page, 2)
    wait_for_betting(page)
    page.screenshot(path=str(SHOTS / "02-ez-table.png"), full_page=True)
    expect(page.locator("[data-spot=dragon_7] .name")).to_have_text("DRAGON 7")
    expect(page.locator("[data-spot=panda_8] .pays").first).to_have_text("25:1")

    # an over-limit bet (the EZ card's 25.00 maximum) is refused and changes nothing
    before = balance(page)
    page.click("[data-chip='25']")
    page.click("[data-spot=banker]")
    page.click("[data-spot=banker]")
    expect(page.locator("[data-spot=banker] .amount")).to_contain_text("+50.00")
    page.click("#place")
    expect(page.locator("#refusal")).to_contain_text("maximum")
    page.screenshot(path=str(SHOTS / "03-over-limit-refused.png"), full_page=True)
    assert balance(page) == before
    expect(page.locator("[data-spot=banker] .amount")).not_to_contain_text("50.00 +")  # nothing placed
    page.click("#clear")

    # a good bet: 5.00 on Banker, 1.00 on Dragon 7
    wait_for_betting(page)
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    page.click("[data-chip='1']")
    page.click("[data-spot=dragon_7]")
    page.click("#place")
    expect(page.locator("[data-spot=banker] .amount")).to_have_text("5.00")
    expect(page.locator("#balance")).to_have_text(f"{before - 6:,.2f}")
    beads_before = page.locator("#roads .bead").count()

    # the round is dealt: cards in order, the result banner, settlement on the spots, the roads move
    expect(page.locator("#banner")).to_have_text(re.compile(r"(BANKER WINS|PLAYER WINS|TIE) \d : \d"),
                                                 timeout=3 * BETTING_SECONDS * 1000)
    assert page.locator("#player-hand .card").count() in (2, 3)
    assert page.locator("#banker-hand .card").count() in (2, 3)
    expect(page.locator("[data-spot=banker] .net")).to_have_text(re.compile(r"(won \+|lost |push )"))
    expect(page.locator("#roads .bead")).to_have_count(beads_before + 1)
    page.wait_for_timeout(2500)  # the cards finish their dealing animation
    page.screenshot(path=str(SHOTS / "04-ez-result.png"), full_page=True)
    net = page.locator("[data-spot=banker] .net").inner_text() + page.locator("[data-spot=dragon_7] .net").inner_text()
    assert balance(page) != before - 6 or "push" in net or "lost" in net  # a win or push came back
    # the history row opens the round's detail, with why each hand drew or stood
    page.locator("#history tr.row").first.click()
    expect(page.locator("#history tr.detail").first).to_contain_text("Banker:")
    page.click("#ask-banker")
    expect(page.locator("#roads .answer")).to_contain_text("Banker next")
    page.screenshot(path=str(SHOTS / "05-ez-history-and-ask.png"), full_page=True)


def test_phone_sized_screen_shows_the_whole_layout(page: Page, server: str):
    page.set_viewport_size({"width": 390, "height": 844})
    register(page, "browser_phone")
    sit(page, 1)
    for spot in ("player", "banker", "tie", "dragon_bonus_player", "dragon_bonus_banker"):
        expect(page.locator(f"[data-spot={spot}]")).to_be_visible()
        box = None
        for _ in range(20):  # the spots are redrawn with each state push: measure one that is attached
            box = page.locator(f"[data-spot={spot}]").bounding_box()
            if box is not None:
                break
            page.wait_for_timeout(50)
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, spot
    expect(page.locator("[data-spot=banker] .pays").first).to_have_text("0.95:1")
    page.screenshot(path=str(SHOTS / "06-mini-phone.png"), full_page=True)


def test_lucky_draw_round_with_draw(page: Page):
    register(page, "browser_ld")
    sit(page, 3)
    wait_for_betting(page)
    before = balance(page)
    page.click("[data-chip='5']")
    page.click("[data-spot=enter]")
    page.click("#place")
    expect(page.locator("[data-spot=enter] .amount")).to_have_text("5.00")
    # first deal: our two cards and the dealer's up card, the other dealer card face down
    expect(page.locator("#draw")).to_be_visible(timeout=3 * BETTING_SECONDS * 1000)
    expect(page.locator("#dealer-hand .card.back")).to_have_count(1)
    expect(page.locator("#dealer-hand .card:not(.back)")).to_have_count(1)
    page.check("#show-hint")  # the optional hint: the exact strategy card's decision
    expect(page.locator("#hint")).to_have_text(re.compile("Optimal: (DRAW|STAND)"))
    page.screenshot(path=str(SHOTS / "07-lucky-draw-decision.png"), full_page=True)
    page.click("#draw")
    expect(page.locator("#banner")).to_have_text(re.compile(r"YOU \d : DEALER \d"),
                                                 timeout=3 * BETTING_SECONDS * 1000)
    expect(page.locator("[data-spot=draw] .net")).to_have_text(re.compile(r"(won \+|lost |push )"))
    page.wait_for_timeout(1000)
    page.screenshot(path=str(SHOTS / "08-lucky-draw-result.png"), full_page=True)
    # the Draw wager was staked equal to Enter and settled; the balance moved by the round's net
    row = page.locator("#history tr.row").first
    expect(row).to_contain_text("draw 5.00")
    expect(row).to_contain_text("enter 5.00")
    net = float(row.locator("td").nth(4).inner_text().replace(",", ""))
    expect(page.locator("#balance")).to_have_text(f"{before + net:,.2f}")
    row.click()
    expect(page.locator("#history tr.detail").first).to_contain_text("draw")


def test_verify_a_real_round_in_the_page_and_see_a_tampered_record_fail(page: Page, server: str, data_dir: Path):
    """The commitment is on the table before the first bet, the page gives the shoe a random client
    seed, Verify says when the round becomes verifiable, then "verified" once the shoe is revealed,
    and names the mismatch when the shoe's record is tampered with on its way to the page."""
    import httpx

    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
    subprocess.run([exe, "operator", "pit_boss", "--data-dir", str(data_dir)], input="correct horse battery\n",
                   text=True, check=True, capture_output=True)
    boss = {"Authorization": "Bearer " + httpx.post(f"{server}/api/sessions", json={
        "username": "pit_boss", "password": "correct horse battery"}).json()["token"]}
    table = httpx.post(f"{server}/api/operator/tables", headers=boss, json={
        "name": "fair-ez", "game": "ez", "decks": 1, "betting_seconds": BETTING_SECONDS}).json()
    register(page, "browser_fair")
    page.reload()  # the lobby lists the new table
    sit(page, table["id"])
    # before any bet: the shoe's commitment, and a random client seed the page has given the shoe
    expect(page.locator("#fair-commitment")).to_have_text(table["shoe"]["commitment"])
    expect(page.locator("#client-seed")).to_have_value(re.compile("^[0-9a-f]{32}$"))
    seed = page.locator("#client-seed").input_value()
    wait_for_betting(page)
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    page.click("#place")
    expect(page.locator("#banner")).to_have_text(re.compile(r"(BANKER WINS|PLAYER WINS|TIE) \d : \d"),
                                                 timeout=3 * BETTING_SECONDS * 1000)
    row = page.locator("#history tr.row").first
    answer = page.locator("#history tr.fair-answer").first  # Verify answers under the round's row
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("Verifiable when shoe 1 of fair-ez ends")
    page.screenshot(path=str(SHOTS / "09-verify-before-the-shoe-ends.png"), full_page=True)
    # the operator closes the table: its shoe ends and its seed is revealed
    assert httpx.post(f"{server}/api/operator/tables/{table['id']}/close", headers=boss).status_code == 200
    record = httpx.get(f"{server}/api/tables/{table['id']}/shoes/1").json()
    assert seed in record["client_seeds"]
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("verified: the revealed seeds deal these cards", timeout=10_000)
    expect(answer).to_contain_text(f"Your seed {seed} is among the shoe's client seeds")
    page.screenshot(path=str(SHOTS / "10-verified.png"), full_page=True)

    # the same round against a record whose client seeds were changed on the way: the mismatch is named
    def tampered(route):  # type: ignore[no-untyped-def]
        answer = route.fetch()
        changed = answer.json()
        changed["client_seeds"] = [*changed["client_seeds"], "planted-by-someone"]
        route.fulfill(response=answer, json=changed)
    page.route(f"**/api/tables/{table['id']}/shoes/1", tampered)
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("MISMATCH", timeout=10_000)
    expect(answer).to_contain_text("cards: your history says")
    page.screenshot(path=str(SHOTS / "11-tampered-record.png"), full_page=True)
