"""The page follows the server's timeline (issue 12), sampled every 50 ms in real Chromium from the bet
to the next betting window: NO MORE BETS first, then the cards one at a time in deal order (each the
card the history later names at that place), totals only of the cards shown, the banner and the
settlement never before the last card, and the next countdown only after the results pause.  The same
is checked on every WebSocket frame the page receives and on REST views read every 100 ms meanwhile.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from ..browser_kit import (
    CARD,
    NO_MORE_BETS,
    RESULTS_PAUSE,
    Browser,
    Page,
    Server,
    expect,
    need_chromium,
    phase,
    register,
    running_server,
    seconds_left,
    shot,
    sit,
    wait_for_betting,
)

pytestmark = pytest.mark.browser
need_chromium()
BETTING_SECONDS = 5
POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}

SAMPLER = """(tableId) => {
  window.__samples = []; window.__rest = [];
  const grab = () => ({
    t: performance.now(),
    phase: document.querySelector('#phase').dataset.phase,
    round: document.querySelector('#round-no').textContent,
    countdown: document.querySelector('#countdown').textContent,
    cards: [...document.querySelectorAll('#hands .card:not(.back)')].map((c) => ({
      card: c.dataset.card, index: Number(c.dataset.index), hand: c.closest('.hand').id })),
    totals: Object.fromEntries([...document.querySelectorAll('#hands .hand')]
      .map((h) => [h.id, h.querySelector('.total').textContent])),
    banner: document.querySelector('#banner').textContent,
    nets: [...document.querySelectorAll('[data-spot] .net')].map((e) => e.textContent).join(''),
  });
  window.__sampler = setInterval(() => window.__samples.push(grab()), 50);
  window.__poller = setInterval(() => {
    const t = performance.now();
    fetch('/api/tables/' + tableId).then((r) => r.json())
      .then((v) => window.__rest.push({ t, view: v })).catch(() => {});
  }, 100);
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("timeline-data"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def points(code: str) -> int:
    return POINTS.get(code[0], 0) if code[0] in POINTS else int(code[0])


def total(codes: list[str]) -> int:
    return sum(points(c) for c in codes) % 10


def watch_one_round(page: Page, table_id: int, spot: str, *, decide: str | None = None
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], int]:
    """Bet on ``spot``, then sample the page until the next betting window; returns the page samples, the
    REST views, the WebSocket state frames and the round's number."""
    frames: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: frames.append({"t": time.monotonic(), **json.loads(payload)})
              if isinstance(payload, str) else None)

    page.on("websocket", on_socket)
    sit(page, table_id)
    wait_for_betting(page, 4)
    page.click("[data-chip='1']")
    page.click(f"[data-spot={spot}]")
    page.click("#place")
    expect(page.locator(f"[data-spot={spot}] .amount")).to_have_text("you 1.00")
    number = int(page.locator("#round-no").inner_text().split()[-1])
    page.evaluate(SAMPLER, table_id)
    shot(page, f"10-timeline-{table_id}-1-betting")
    expect(page.locator("#phase")).not_to_have_attribute("data-phase", "betting", timeout=(BETTING_SECONDS + 2) * 1000)
    shot(page, f"10-timeline-{table_id}-2-no-more-bets")
    expect(page.locator("#hands .card").nth(1)).to_be_visible(timeout=10_000)
    shot(page, f"10-timeline-{table_id}-3-dealing")
    if decide:
        expect(page.locator(f"#{decide}")).to_be_visible(timeout=20_000)
        shot(page, f"10-timeline-{table_id}-4-decisions")
        page.click(f"#{decide}")
    expect(page.locator("#banner")).not_to_have_text("", timeout=40_000)
    shot(page, f"10-timeline-{table_id}-5-result")
    expect(page.locator("#phase")).to_have_attribute("data-phase", "betting", timeout=(RESULTS_PAUSE + 3) * 1000)
    page.wait_for_timeout(300)
    shot(page, f"10-timeline-{table_id}-6-next-betting")
    page.evaluate("clearInterval(window.__sampler); clearInterval(window.__poller)")
    samples = page.evaluate("window.__samples")
    rest = page.evaluate("window.__rest")
    return samples, rest, frames, number


def dealt(page: Page, table_id: int, number: int) -> dict[str, Any]:
    rows = page.evaluate("fetch('/api/history', "
                         "{headers: {Authorization: 'Bearer ' + localStorage.getItem('token')}})"
                         ".then((r) => r.json())")
    return next(r for r in rows if r["table_id"] == table_id and r["round"] == number)


def check_views(views: list[dict[str, Any]], deal: list[str], number: int, where: str) -> None:
    """Each view of the round: its cards a prefix of the deal, no result before the last card."""
    for view in views:
        if view.get("round_number") != number:
            continue
        shown = [c["card"] for c in view.get("cards", [])]
        assert shown == deal[:len(shown)], (where, shown, deal)
        assert [c["index"] for c in view["cards"]] == list(range(len(shown))), where
        if view.get("result") is not None:
            assert len(shown) == len(deal), (where, "result before the last card", shown)
        if len(shown) < len(deal):
            assert view.get("result") is None, where


@pytest.mark.parametrize(("table_id", "spot", "decide"), [(2, "player", None), (3, "enter", "draw")],
                         ids=["ez", "lucky-draw"])
def test_the_page_shows_the_round_card_by_card_and_the_result_only_after_the_last_card(
        page: Page, table_id: int, spot: str, decide: str | None):
    register(page, f"timeline_{table_id}")
    samples, rest, frames, number = watch_one_round(page, table_id, spot, decide=decide)
    row = dealt(page, table_id, number)
    deal = row["cards"]  # the round's cards in deal order, as the history tells them afterwards
    assert 4 <= len(deal) <= 9

    # Each time below is bounded on both sides: a change the page shows happened after the sample before the
    # one that first shows it.  A duration's check uses its longest possible length, so a page whose thread
    # stalled (three browsers on two cores) does not look hurried; a page that hurries still fails it.
    # from the bet: BETTING, then NO MORE BETS with an empty felt for about a second, then the cards
    phases = [s["phase"] for s in samples]
    start = phases.index("no_more_bets")
    assert start > 0, "the sampling began after the bets closed"
    end = next(i for i in range(start, len(samples)) if samples[i]["phase"] != "no_more_bets")
    assert all(not s["cards"] for s in samples[start:end])
    assert (samples[end]["t"] - samples[start - 1]["t"]) / 1000 >= NO_MORE_BETS - 0.35, \
        "NO MORE BETS was not shown for a second"

    # every sample: the cards shown are the first k of the deal, each in its hand; totals only of those
    appeared: dict[int, float] = {}  # the sample first showing each card ...
    after: dict[int, float] = {}  # ... and the one before it
    banner_at = banner_after = None
    for at, s in enumerate(samples[start:], start):
        if s["phase"] == "betting":
            break
        indices = [c["index"] for c in s["cards"]]
        assert sorted(indices) == list(range(len(indices))), ("a card shown before an earlier one", indices)
        for c in s["cards"]:
            assert c["card"] == deal[c["index"]], ("not the card dealt at that place", c, deal)
            if c["index"] not in appeared:
                appeared[c["index"]], after[c["index"]] = s["t"], samples[at - 1]["t"]
        if table_id == 2:  # punto banco: P B P B, then the third cards; the totals of what is shown
            for hand in ("player-hand", "banker-hand"):
                codes = [c["card"] for c in sorted(s["cards"], key=lambda c: c["index"]) if c["hand"] == hand]
                assert s["totals"][hand] == (str(total(codes)) if codes else ""), (hand, codes, s["totals"])
            hands = [c["hand"] for c in sorted(s["cards"], key=lambda c: c["index"])]
            assert hands[:4] == ["player-hand", "banker-hand", "player-hand", "banker-hand"][:len(hands[:4])]
        if len(indices) < len(deal):
            assert s["banner"] == "", ("the result before the last card", len(indices), s["banner"])
            assert s["nets"] == "", ("a settlement before the last card", s["nets"])
        elif s["banner"] and banner_at is None:
            banner_at, banner_after = s["t"], samples[at - 1]["t"]
    assert sorted(appeared) == list(range(len(deal))), "every card of the deal was shown"
    assert banner_at is not None and banner_after is not None, "the result was shown"
    # one card at a time, at the table's pace (0.6 s; the page hears of each within a poll of 0.2 s)
    gaps = [(appeared[i + 1] - after[i]) / 1000 for i in range(len(deal) - 1)]
    assert all(gap >= CARD - 0.35 for gap in gaps if gap < 3), gaps  # (Lucky Draw's decisions make one long gap)
    assert (banner_at - after[len(deal) - 1]) / 1000 >= CARD - 0.35, "the result came with the last card"

    # the results pause, then the next window with its full countdown
    next_open = next(s for s in samples if s["t"] > banner_at and s["phase"] == "betting")
    assert (next_open["t"] - banner_after) / 1000 >= RESULTS_PAUSE - 0.5, "the next round opened during the pause"
    assert int("".join(ch for ch in next_open["countdown"] if ch.isdigit())) >= BETTING_SECONDS - 1
    assert next_open["cards"] == [] and next_open["banner"] == ""

    # the same on the wire: every WebSocket state frame and every REST view of the round
    check_views([f["table"] for f in frames if f.get("type") == "state"], deal, number, "websocket")
    check_views([r["view"] for r in rest], deal, number, "rest")
    assert any(f.get("type") == "state" and f["table"].get("result") for f in frames)


@pytest.mark.parametrize("skew", [timedelta(hours=1), timedelta(minutes=-3)], ids=["an-hour-ahead", "3-min-behind"])
def test_the_countdown_runs_on_the_servers_clock_whatever_the_players_clock(server: Server, skew: timedelta,
                                                                            browser: Browser):
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.clock.set_system_time(datetime.now() + skew)  # the player's clock is wrong; the page must not care
    page.goto(server.url)
    register(page, f"clock_{int(skew.total_seconds())}".replace("-", "m"))
    sit(page, 1)
    checked = 0
    deadline = time.monotonic() + 3 * BETTING_SECONDS + 20
    while checked < 4 and time.monotonic() < deadline:
        view = page.request.get(f"{server.url}/api/tables/1").json()
        shown = seconds_left(page)
        if view["phase"] == "betting" and view["round"] and shown >= 0 and phase(page) == "betting":
            left = (datetime.fromisoformat(view["round"]["closes_at"])
                    - datetime.fromisoformat(view["server_time"])).total_seconds()
            if left > 1:
                assert abs(shown - math.ceil(left)) <= 1, (shown, left)
                checked += 1
        page.wait_for_timeout(700)
    assert checked >= 3, "the countdown was read in a betting window"
    context.close()
    assert errors == [], errors
