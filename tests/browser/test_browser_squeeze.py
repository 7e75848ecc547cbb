"""The squeeze in real Chromium (issue 31, item 11; issue 41, item 1), at the default mini-squeeze table: the card
being squeezed is drawn large, its squeezer lifts it from an edge (mouse, then keys) and turns it; the watchers (a
phone in Traditional Chinese, a desk in Simplified) see the same lift and the same part of the face, and no face
before the turn; the Banker's squeezer, whose browser asks for reduced motion, has the cards turned at once.
Screenshots ``41-squeeze-*.png``, ``31-squeeze-console-form.png``."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


#: The squeeze time per card here: the test's checks (and screenshots) between a card coming to the stage and its
#: turn take a few seconds on a loaded machine, where the default table's 6 s leaves little to spare
SQUEEZE_SECONDS = 15.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A fresh server for each try (a rerun finds the squeeze table's seats free)."""
    from sqlalchemy import update

    from baccarat.server.storage.db import connect, sqlite_url
    from baccarat.server.storage.models import GameTable

    with running_server(tmp_path / "squeeze-data", betting_seconds=8) as running:
        with connect(sqlite_url(running.data)) as sessions, sessions.begin() as s:  # read at each deal
            s.execute(update(GameTable).where(GameTable.id == SQUEEZE_TABLE).values(squeeze_seconds=SQUEEZE_SECONDS))
        yield running


#: pips a face shows whole (a picture card: none, its frame instead)
PIPS = {"A": 1, "T": 10, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}


def _stage(page) -> dict:
    """The squeeze stage as the page draws it: the card being squeezed, its lift and edge, the face's parts."""
    return page.evaluate("""() => {
      const stage = document.querySelector('#squeeze-stage');
      const card = stage.querySelector('.stage-card');
      return { shown: !stage.hidden, index: card.getAttribute('data-index'), edge: card.getAttribute('data-edge'),
               lift: parseFloat(card.style.getPropertyValue('--lift') || '0'),
               pips: card.querySelectorAll('.pip').length, index_shown: card.querySelectorAll('.index').length,
               court: card.querySelectorAll('.court').length, title: stage.querySelector('.stage-title').textContent,
               countdown: stage.querySelector('.stage-countdown').textContent,
               howto: stage.querySelector('.stage-howto').textContent,
               height: card.getBoundingClientRect().height, vh: window.innerHeight };
    }""")


LIFTED = "parseFloat(c.style.getPropertyValue('--lift'))"


def _wait_stage(page, condition: str, timeout: int = 8_000) -> None:
    page.wait_for_function("() => { const c = document.querySelector('#squeeze-stage:not([hidden]) .stage-card');"
                           f" return c && ({condition}); }}", timeout=timeout)


def _bunching_second_card_peels(socket: Any) -> None:
    """A table socket whose first peel of the card dealt third (short edge) is held back and sent with the next
    frame: both arrive together, as frames read off the network after a stall."""
    server = socket.connect_to_server()
    held: list[str | bytes] = []  # the peel held back, until the next frame
    done = False

    def to_server(message: str | bytes) -> None:
        nonlocal done
        frame = json.loads(message) if isinstance(message, str) else {}
        if not done and not held and frame.get("type") == "squeeze" and frame.get("card") == 2:
            held.append(message)
            return
        if held:
            server.send(held.pop())
            done = True
        server.send(message)

    socket.on_message(to_server)


def test_a_squeeze_on_a_large_card_shows_everyone_the_part_of_the_face_its_lift_uncovers(server: Server,
                                                                                       browser: Browser):
    """ann (English, 1366x768) lifts the Player's first card from its long edge until every pip column shows,
    turns it with Enter, then lifts her second card from the short edge with the arrow key; bob (1280x720, reduced
    motion) has his cards turned at once; cat watches in Traditional Chinese on a phone (390x844) and dee in
    Simplified at 1280x720: each sees the large card, who squeezes, the countdown, the same lift and the same pips,
    and no face before the turn.  ann's first peel of her second card is held back on its way and sent with
    the next, as after a stall: the server passes over the second (within its pause of the first), so her page
    sends the lift she let go at again, and the watchers see it."""
    errors: list[str] = []
    ann_context = browser.new_context(viewport={"width": 1366, "height": 768})
    ann = ann_context.new_page()
    ann.on("pageerror", lambda error: errors.append(str(error)))
    ann.route_web_socket(re.compile(r"/ws/tables/"), _bunching_second_card_peels)
    ann.goto(server.url)
    bob_context = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    bob = bob_context.new_page()
    bob.on("pageerror", lambda error: errors.append(str(error)))
    bob.goto(server.url)
    cat_context, cat = new_page(browser, server.url, errors=errors, locale="zh-HK", width=390, height=844)
    dee_context, dee = new_page(browser, server.url, errors=errors, locale="zh-CN", width=1280, height=720)
    names = {}
    for page, name in ((ann, "sq_ann"), (bob, "sq_bob"), (cat, "sq_cat"), (dee, "sq_dee")):
        names[name] = register(page, name)
        sit(page, SQUEEZE_TABLE)
    wait_for_betting(ann, 4)
    bet(ann, {"player": [25]})
    bet(bob, {"banker": [5]})
    # the four cards come face down; ann's first card comes to the stage, hers to squeeze, once all four are down
    expect(ann.locator("#squeeze-stage .stage-card.mine[data-index='0']")).to_be_visible(timeout=30_000)
    for page in (cat, dee):
        expect(page.locator("#squeeze-stage .stage-card[data-index='0']")).to_be_visible(timeout=5_000)
    flat = [_stage(page) for page in (ann, cat, dee)]  # before the lift: nothing of the face
    # at once (well within the squeeze time): ann takes the card by its right edge and drags it three quarters
    # across, every pip column shows
    box = ann.locator("#squeeze-stage .stage-card").bounding_box()
    assert box is not None
    ann.mouse.move(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2)
    ann.mouse.down()
    ann.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] / 2, steps=8)
    ann.mouse.up()
    expect(cat.locator(".card.squeeze")).to_have_count(4)
    expect(cat.locator("#player-hand .card:not(.squeeze)")).to_have_count(0)  # no face on the watcher's page
    ann_stage = _stage(ann)
    assert ann_stage["title"] == "You squeeze the Player's card"
    assert "right edge to see the sides" in ann_stage["howto"]
    assert ann_stage["countdown"].startswith("Turned in ")
    expect(cat.locator("#squeeze-stage .stage-title")).to_have_text(f"{names['sq_ann']} 正在咪閒家的牌")
    # the squeeze table's name is the registry's in every language (it was "mini-squeeze · 迷你百家乐")
    expect(cat.locator("#table-title")).to_have_text("迷你百家樂 咪牌桌")
    expect(dee.locator("#table-title")).to_have_text("迷你百家乐 咪牌桌")
    expect(ann.locator("#table-title")).to_have_text("Mini-Baccarat Squeeze")
    expect(dee.locator("#squeeze-stage .stage-title")).to_have_text(f"{names['sq_ann']} 正在咪闲家的牌")
    expect(cat.locator("#player-hand .squeezer")).to_have_text(f"咪牌：{names['sq_ann']}")
    expect(ann.locator("#banker-hand .squeezer")).to_have_text(f"Squeezed by {names['sq_bob']}")
    for drawn in flat:  # a third of the screen's height at least, on a desk and on a phone
        assert drawn["height"] >= drawn["vh"] / 3 - 1, drawn
        assert drawn["pips"] == drawn["index_shown"] == drawn["court"] == 0, drawn  # flat: nothing of the face
    _wait_stage(ann, f"c.getAttribute('data-edge') === 'long' && {LIFTED} > 0.7")
    for page in (cat, dee):  # the watchers see the same edge, the same lift and what the server sent of the face
        _wait_stage(page, f"c.getAttribute('data-edge') === 'long' && {LIFTED} > 0.7"
                    " && (c.querySelectorAll('.pip').length + c.querySelectorAll('.court').length) > 0")
    assert cat.locator("#player-hand .card:not(.squeeze)").count() == 0
    sides = [_stage(page) for page in (ann, cat, dee)]
    assert all(s["index_shown"] == 0 for s in sides)  # the thumbs hold the corners: no index from an edge
    shot(ann, "41-squeeze-1-squeezer-long-edge")
    shot(cat, "41-squeeze-2-watcher-phone-zh-hant")
    shot(dee, "41-squeeze-3-watcher-zh-cn")
    ann.locator("#squeeze-stage .stage-card").focus()
    ann.keyboard.press("Enter")  # turned
    face = cat.locator("#player-hand .card:not(.squeeze)[data-index='0']")
    expect(face).to_be_visible(timeout=5_000)
    expect(face).to_have_class(re.compile(r"\bflip\b"))  # it was face down: it flips over
    rank = face.get_attribute("data-card")[0]
    assert {s["pips"] for s in sides} == {PIPS[rank]} and {s["court"] for s in sides} == {int(rank in "JQK")}
    # bob's browser asks for reduced motion: his card is turned as soon as it is his, not at the squeeze time
    expect(cat.locator("#banker-hand .card:not(.squeeze)[data-index='1']")).to_be_visible(timeout=4_000)
    # ann's second card, with the keyboard: the up arrow lifts the short edge, Enter turns it
    second = ann.locator("#squeeze-stage .stage-card.mine[data-index='2']")
    expect(second).to_be_visible(timeout=5_000)
    second.focus()
    for _ in range(3):
        ann.keyboard.press("ArrowUp")
    _wait_stage(ann, f"c.getAttribute('data-edge') === 'short' && Math.abs({LIFTED} - 0.3) < 0.01")
    _wait_stage(dee, f"c.getAttribute('data-index') === '2' && c.getAttribute('data-edge') === 'short'"
                f" && {LIFTED} > 0.2")
    shot(dee, "41-squeeze-4-watcher-short-edge")
    ann.keyboard.press("Enter")
    ann.keyboard.press("Enter")  # once turned, nothing more is sent: no refusal
    expect(cat.locator("#player-hand .card:not(.squeeze)[data-index='2']")).to_be_visible(timeout=5_000)
    expect(cat.locator("#banker-hand .card:not(.squeeze)[data-index='3']")).to_be_visible(timeout=4_000)
    wait_for_phase(cat, "result", timeout=40)
    expect(cat.locator("#squeeze-stage")).to_be_hidden()
    expect(ann.locator("#banner")).not_to_have_text("")
    expect(ann.locator("#refusal")).to_have_text("")
    expect(ann.locator("#news")).to_contain_text(f"{names['sq_ann']} squeezes the Player's cards")
    shot(ann, "41-squeeze-5-result")
    assert errors == []
    for context in (ann_context, bob_context, cat_context, dee_context):
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
