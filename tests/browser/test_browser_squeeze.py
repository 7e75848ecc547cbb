"""The squeeze in real Chromium (issue 31, item 11), at the default mini-squeeze table: the Player's squeezer
peels the first card by dragging its corner with the mouse and turns it with Enter, then peels the next with
the arrow keys; the watcher's page sees the corner lift live and no face before the turn; the Banker's
squeezer, whose browser asks for reduced motion, has the cards turned at once.  Screenshots ``31-squeeze-*.png``."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..browser_kit import (
    PASSWORD,
    Browser,
    Server,
    bet,
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
SQUEEZE_TABLE = 4  #: mini-squeeze, after mini-1, ez-1 and lucky-draw-1 on a fresh database


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("squeeze-data"), betting_seconds=8) as running:
        yield running


def _lift(page, index: int) -> float:
    value = page.locator(f".card.squeeze[data-index='{index}']").evaluate(
        "n => getComputedStyle(n).getPropertyValue('--lift')")
    return float(value or 0)


def test_squeezers_peel_and_turn_and_the_watcher_sees_the_corner_lift(server: Server, browser: Browser):
    errors: list[str] = []
    ann_context, ann = new_page(browser, server.url, errors=errors)
    bob_context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    bob = bob_context.new_page()
    bob.on("pageerror", lambda error: errors.append(str(error)))
    bob.goto(server.url)
    cat_context, cat = new_page(browser, server.url, errors=errors)
    names = {}
    for page, name in ((ann, "sq_ann"), (bob, "sq_bob"), (cat, "sq_cat")):
        names[name] = register(page, name)
        sit(page, SQUEEZE_TABLE)
    wait_for_betting(ann, 4)
    bet(ann, {"player": [25]})
    bet(bob, {"banker": [5]})
    # the four cards come face down; ann's first card becomes hers to squeeze once all four are down
    mine = ann.locator("#player-hand .card.squeeze.mine[data-index='0']")
    expect(mine).to_be_visible(timeout=30_000)
    expect(cat.locator(".card.squeeze")).to_have_count(4)
    expect(cat.locator("#player-hand .card:not(.squeeze)")).to_have_count(0)  # no face on the watcher's page
    box = mine.bounding_box()
    assert box is not None
    ann.mouse.move(box["x"] + box["width"] - 3, box["y"] + box["height"] - 3)
    ann.mouse.down()
    ann.mouse.move(box["x"] + box["width"] - 3, box["y"] + box["height"] * 0.45, steps=6)
    ann.mouse.up()
    assert 0.3 < _lift(ann, 0) < 1
    cat.wait_for_function("() => { const n = document.querySelector(\".card.squeeze[data-index='0']\");"
                          " return n && parseFloat(getComputedStyle(n).getPropertyValue('--lift')) > 0.3; }",
                          timeout=5_000)  # the watcher sees the corner lift
    assert cat.locator("#player-hand .card:not(.squeeze)").count() == 0
    shot(ann, "31-squeeze-squeezer-peels")
    shot(cat, "31-squeeze-watcher-sees-the-lift")
    ann.keyboard.press("Enter")  # turned
    expect(cat.locator("#player-hand .card:not(.squeeze)[data-index='0']")).to_be_visible(timeout=5_000)
    # bob's browser asks for reduced motion: his card is turned as soon as it is his, not at the squeeze time
    expect(cat.locator("#banker-hand .card:not(.squeeze)[data-index='1']")).to_be_visible(timeout=4_000)
    # ann's second card, with the keyboard: arrows peel, Enter turns
    second = ann.locator("#player-hand .card.squeeze.mine[data-index='2']")
    expect(second).to_be_visible(timeout=5_000)
    second.focus()
    for _ in range(3):
        ann.keyboard.press("ArrowUp")
    assert _lift(ann, 2) == pytest.approx(0.3, abs=0.01)
    cat.wait_for_function("() => { const n = document.querySelector(\".card.squeeze[data-index='2']\");"
                          " return n && parseFloat(getComputedStyle(n).getPropertyValue('--lift')) > 0.2; }",
                          timeout=5_000)
    shot(cat, "31-squeeze-watcher-keyboard-peel")
    ann.keyboard.press("Enter")
    expect(cat.locator("#player-hand .card:not(.squeeze)[data-index='2']")).to_be_visible(timeout=5_000)
    expect(cat.locator("#banker-hand .card:not(.squeeze)[data-index='3']")).to_be_visible(timeout=4_000)
    wait_for_phase(cat, "result", timeout=40)
    expect(cat.locator("#banner")).not_to_have_text("")
    expect(cat.locator("#news")).to_contain_text(f"{names['sq_ann']} squeezes the Player's cards")
    expect(cat.locator("#news")).to_contain_text(f"{names['sq_bob']} squeezes the Banker's cards")
    shot(cat, "31-squeeze-result")
    assert errors == []
    for context in (ann_context, bob_context, cat_context):
        context.close()


def _operator(data: Path) -> None:
    """An operator account on a fresh database (the server makes the default tables at its start)."""
    from baccarat.server.house import accounts
    from baccarat.server.storage.db import connect, sqlite_url, transaction
    from baccarat.server.storage.migrate import upgrade

    url = sqlite_url(data)
    upgrade(url)
    with connect(url) as sessions:
        transaction(sessions, lambda s: accounts.register(s, "sq_boss", PASSWORD, grant=0, role="pit_boss"))


def test_the_console_s_new_table_form_offers_the_squeeze(tmp_path: Path, browser: Browser):
    _operator(tmp_path)
    with running_server(tmp_path, betting_seconds=8) as running:
        errors: list[str] = []
        context, page = new_page(browser, running.url + "/operator", errors=errors)
        page.fill("#username", "sq_boss")
        page.fill("#password", PASSWORD)
        page.click("#login")
        expect(page.locator("#console-tables [data-table]").first).to_be_visible()
        expect(page.locator("label[for=new-squeeze]")).to_have_text("Squeeze seconds a card (0: no squeeze)")
        page.fill("#new-name", "sq-console")
        page.fill("#new-squeeze", "8")
        shot(page, "31-squeeze-console-form")
        page.click("#new-open")
        expect(page.locator("#console-tables")).to_contain_text("sq-console", timeout=10_000)
        with urllib.request.urlopen(running.url + "/api/tables") as answer:
            listed = {t["name"]: t for t in json.loads(answer.read())}
        assert listed["sq-console"]["squeeze"]["seconds"] == 8.0
        assert listed["mini-squeeze"]["squeeze"]["seconds"] == 6.0  # the default squeeze table
        assert listed["mini-1"]["squeeze"] is None
        assert errors == []
        context.close()
