"""Provably fair in real Chromium (issue 13, on the table of issue 12): the shoe's commitment is on the
table before the first bet, the page gives the shoe a random client seed, and Verify on a history row
says when the round becomes verifiable, then "verified" once the shoe is revealed (also in Simplified
Chinese), and names the mismatch when the shoe's record is tampered with on its way to the page.
axe-core finds no critical or serious violation on the table with the panel and a Verify answer.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe

from ..browser_kit import (
    CARD,
    NO_MORE_BETS,
    PASSWORD,
    RESULTS_PAUSE,
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
)

pytestmark = pytest.mark.browser
need_chromium()
BETTING_SECONDS = 6
FIRST_WINDOW = 25  #: the verified table's betting window, seconds
ROUND = (BETTING_SECONDS + NO_MORE_BETS + 6 * CARD + RESULTS_PAUSE + 10) * 1000  # ms: a whole round, with room
#: what a Chinese screen may show in Latin letters: hexadecimal digests and seeds (16 digits or more)
HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("fair-data"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def operator(server: Server) -> dict[str, str]:
    exe = shutil.which("baccarat", path=str(Path(sys.executable).parent)) or "baccarat"
    subprocess.run([exe, "staff", "pit_boss", "--role", "pit_boss", "--data-dir", str(server.data)],
                   input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    answer = httpx.post(f"{server.url}/api/sessions", json={"username": "pit_boss", "password": PASSWORD})
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def serious(page: Page, where: str) -> list[str]:
    return [f"{where}: {v['id']} ({v['impact']}): {v['help']} -- " + "; ".join(str(n["target"]) for n in v["nodes"][:5])
            for v in Axe().run(page).response["violations"] if v["impact"] in ("critical", "serious")]


def test_verify_a_real_round_in_the_page_and_see_a_tampered_record_fail(server: Server, browser: Browser):
    boss = operator(server)
    # a first window long enough to register, sit and bet in: a window that closes while the page watches is
    # dealt, bets or none, and its first deal would fix the shoe's client seeds without this page's
    table = httpx.post(f"{server.url}/api/operator/tables", headers=boss, json={
        "name": "fair-ez", "game": "ez", "decks": 1, "betting_seconds": FIRST_WINDOW}).json()
    errors: list[str] = []
    problems: list[str] = []
    context, page = new_page(browser, server.url, errors=errors)
    register(page, "browser_fair")
    sit(page, table["id"])
    # before any bet: the shoe's commitment, and a random client seed the page has given the shoe
    expect(page.locator("#fair")).to_have_attribute("open", "")  # open on a desk
    expect(page.locator("#fair-commitment")).to_have_text(table["shoe"]["commitment"])
    expect(page.locator("#fair-commitment")).to_have_attribute("title", "shoe 1, hmac-sha256-fisher-yates/3")
    expect(page.locator("#fair-root-line")).to_be_hidden()  # no root before the first deal: seeds still come in
    expect(page.locator("#client-seed")).to_have_value(re.compile("^[0-9a-f]{32}$"))
    expect(page.locator("#fair-state")).to_have_text(
        "Shoe 1 takes the seeds of those who bet before its first deal.")
    seed = page.locator("#client-seed").input_value()
    problems += serious(page, "table with the fair panel")
    wait_for_betting(page)
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    page.click("#place")
    expect(page.locator("#banner")).to_have_text(re.compile(r"(BANKER WINS|PLAYER WINS|TIE) \d : \d"),
                                                 timeout=ROUND + (FIRST_WINDOW - BETTING_SECONDS) * 1000)
    # the shoe has been dealt from: its client seeds are public, and a seed set now is for the next shoe
    expect(page.locator("#fair-state")).to_contain_text("Shoe 1 was shuffled with 1 client seed;")
    # the Merkle root published at the first deal, on the panel as the table view has it
    root = httpx.get(f"{server.url}/api/tables/{table['id']}").json()["shoe"]["merkle_root"]
    expect(page.locator("#fair-root")).to_have_text(root)
    expect(page.locator("#history th").last).to_have_text("Fair")
    row = page.locator("#history tr.row").first
    answer = page.locator("#history tr.fair-answer").first  # Verify answers under the round's row
    expect(row.locator(".fair-verify")).to_have_accessible_name(re.compile(r"^Verify round \d+$"))
    row.locator(".fair-verify").click()
    # the shoe is in play: the round is proven at once against the root (algorithm 3)
    expect(answer).to_contain_text("verified: each card is proven at its place in the shoe against the Merkle root",
                                   timeout=10_000)
    shot(page, "40-fair-verify-before-the-shoe-ends")
    shoe_record = re.compile(rf".*/api/tables/{table['id']}/shoes/1(\?.*)?$")

    def changed_card(route):  # type: ignore[no-untyped-def]
        response = route.fetch()
        changed = response.json()
        cards = changed["rounds"][-1]["cards"]
        cards[0] = "Ah" if cards[0] != "Ah" else "Kh"
        route.fulfill(response=response, json=changed)

    page.route(shoe_record, changed_card)  # a card changed on its way: its proof names it at once
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("MISMATCH", timeout=10_000)
    expect(answer).to_contain_text(
        re.compile(r"(A♥|K♥) at position \d+: its proof does not lead to the shoe's Merkle root"))
    shot(page, "40b-fair-tampered-card-in-play")
    page.unroute(shoe_record)

    def lost_card(route):  # type: ignore[no-untyped-def]
        response = route.fetch()
        changed = response.json()
        changed["rounds"][-1]["cards"].pop()  # the round's last card gone, with its proof: the rules want it
        changed["rounds"][-1]["proof"].pop()
        route.fulfill(response=response, json=changed)

    page.route(shoe_record, lost_card)  # named as a deal short of a card, never a check that breaks
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("MISMATCH", timeout=10_000)
    expect(answer).to_contain_text("the rules draw one card more")
    expect(answer).not_to_contain_text("could not check")
    page.unroute(shoe_record)

    # the operator closes the table: its shoe ends and its seed is revealed
    assert httpx.post(f"{server.url}/api/operator/tables/{table['id']}/close", headers=boss).status_code == 200
    record = httpx.get(f"{server.url}/api/tables/{table['id']}/shoes/1").json()
    assert seed in record["client_seeds"]
    row.locator(".fair-verify").focus()
    page.keyboard.press("Enter")  # the keyboard alone
    expect(answer).to_contain_text("verified: the revealed seeds deal these cards", timeout=10_000)
    expect(answer).to_contain_text(f"Your seed {seed} is among the shoe's client seeds")
    shot(page, "41-fair-verified")
    problems += serious(page, "table with the fair panel and a Verify answer")

    # the same round against a record whose client seeds were changed on the way: the mismatch is named
    def tampered(route):  # type: ignore[no-untyped-def]
        response = route.fetch()
        changed = response.json()
        changed["client_seeds"] = [*changed["client_seeds"], "planted-by-someone"]
        route.fulfill(response=response, json=changed)

    page.route(shoe_record, tampered)
    row.locator(".fair-verify").click()
    expect(answer).to_contain_text("MISMATCH", timeout=10_000)
    expect(answer).to_contain_text(re.compile(r"cards: your history says (10|[AKQJ2-9])[♠♥♦♣]"))
    shot(page, "42-fair-tampered-record")
    page.unroute(shoe_record)

    # the history signed by the house (issue 40 item 5): downloaded, checked at once, and checked again as a file;
    # a copy with one figure changed is refused (the page's own Ed25519 check over the export's canonical JSON)
    fingerprint = httpx.get(f"{server.url}/api/fairness/key").json()["fingerprint"]
    export_answer = page.locator(".fair-export-answer")
    with page.expect_download() as downloading:
        page.locator(".fair-export-download").click()
    saved = downloading.value.path()
    expect(export_answer).to_have_text(
        f"Signed by the house (key {fingerprint}): this export is exactly what the house gave.")
    text = saved.read_text(encoding="utf-8")
    edited = re.sub(r'"balance":(\d+)', lambda m: f'"balance":{int(m.group(1)) + 100}', text, count=1)
    assert edited != text
    page.locator(".fair-export-file").set_input_files(
        files=[{"name": "edited.json", "mimeType": "application/json", "buffer": edited.encode()}])
    expect(export_answer).to_have_text("The signature does not match: this export was changed after the house "
                                       "signed it. Download your history again here.")
    page.locator(".fair-export-file").set_input_files(saved)
    expect(export_answer).to_contain_text("Signed by the house")
    shot(page, "42b-fair-signed-export")

    # in Simplified Chinese: the panel and Verify's answer in its words (hexadecimal stays as it is)
    page.select_option("#lang", "zh-CN")
    expect(page.locator("#fair summary")).to_contain_text("可证明公平")
    expect(page.locator("#history th").last).to_have_text("公平")
    zh_row = page.locator("#history tr.row").first
    zh_row.locator(".fair-verify").click()
    zh_answer = page.locator("#history tr.fair-answer").first
    expect(zh_answer).to_contain_text("已验证：公开的种子发出的正是这些牌", timeout=10_000)
    expect(zh_answer).to_contain_text(f"您的种子 {seed} 在本靴的客户端种子之中")
    panel = page.locator("#fair").inner_text() + (page.locator("#fair-commitment").get_attribute("title") or "")
    verified = zh_answer.inner_text()
    shot(page, "43-fair-verified-zh")
    page.route(shoe_record, tampered)
    zh_row.locator(".fair-verify").click()
    expect(zh_answer).to_contain_text("不一致", timeout=10_000)
    expect(zh_answer).to_contain_text(re.compile(r"牌：您的记录为 (10|[AKQJ2-9])[♠♥♦♣]"))
    for words in (verified, panel, zh_answer.inner_text()):
        assert not re.findall(r"[A-Za-z]{2,}", HEX.sub("", words).replace("hmac-sha256-fisher-yates/3", "")), words
    shot(page, "44-fair-tampered-record-zh")
    context.close()
    assert problems == [], "\n".join(problems)
    assert errors == [], errors


def test_on_a_phone_the_panel_is_one_line_that_opens(server: Server, browser: Browser):
    """390 x 844: the panel is closed to one line under the shoe (the cards and the chips first); it opens
    from the keyboard, and the player's choice is kept for the next table."""
    errors: list[str] = []
    context, page = new_page(browser, server.url, width=390, height=844, errors=errors)
    register(page, "phone_fair")
    sit(page, 2)
    panel = page.locator("#fair")
    expect(panel).not_to_have_attribute("open", "")
    expect(page.locator("#client-seed")).to_have_value(re.compile("^[0-9a-f]{32}$"))  # given all the same
    assert panel.bounding_box()["height"] < 24, panel.bounding_box()  # type: ignore[index]
    page.locator("#fair summary").focus()
    page.keyboard.press("Enter")
    expect(panel).to_have_attribute("open", "")
    expect(page.locator("#fair-commitment")).to_be_visible()
    shot(page, "45-fair-phone-open", full_page=False)
    page.goto(server.url + "/#/")
    sit(page, 1)
    expect(page.locator("#fair")).to_have_attribute("open", "")  # as the player left it
    context.close()
    assert errors == [], errors
