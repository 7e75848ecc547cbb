"""Roads, lobby, breaks and feel in real Chromium (issue 31, items 8, 10 and 12).

* **No road cut off**: late in a shoe (a whole shoe's roads, computed by the core from 72 hands and served
  as the table's roads), every mark a road box shows lies wholly inside it, at 390 x 844 and 1280 x 900
  on the table and in the lobby: the box is a whole number of columns wide and scrolled by whole
  columns.  Early in a shoe (one hand) the five roads take less than 45 % of a desktop's height: a road
  with nothing on it yet is one line that says so.
* **The lobby's countdown is live**: it ticks each second from the server's close time and the clock
  offset, with no request in between (Playwright's request log).
* **A break's end reads the same** in the lobby's sentence and in the refusal to sit down (one timestamp,
  one formatter rounding up to the minute), and the lobby and the table show no Sit down button on a
  break, the sentence saying why instead.
* **Chip stacks**: the player's own chips are drawn as a stack on each spot they bet (staged dashed,
  placed solid), summing to the amount; none on the spots they did not bet.
* **Sound**: off by default; the header's toggle turns it on, it is remembered after a reload, turning
  it on makes an AudioContext (stubbed in the page to count) and nothing is downloaded for audio.

Screenshots: ``artifacts/screenshots/31-roads-*.png``, ``31-lobby-*.png``, ``31-break-*.png``,
``31-stacks.png``, ``31-sound.png``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from baccarat.core.roads import parse_hands, roads

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
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
need_chromium()
BETTING_SECONDS = 20


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("roads-lobby"), betting_seconds=BETTING_SECONDS) as running:
        yield running


def shoe_roads(count: int, seed: int = 31) -> dict[str, Any]:
    """The roads answer for a shoe of ``count`` hands (long streaks included), as the server computes it."""
    chance = random.Random(seed)
    words = []
    while len(words) < count:
        side = chance.choices("BPT", weights=(46, 45, 9))[0]
        words += [side] * (chance.choice((1, 1, 2, 3, 7)) if side != "T" else 1)
    drawn = roads(parse_hands(" ".join(words[:count]))).to_json()
    return {"shoe": 1, **{key: drawn[key] for key in ("bead_plate", "big_road", "big_eye_boy", "small_road",
                                                      "cockroach_pig", "ask", "stats")}}


def serve_roads(page: Page, answer: dict[str, Any]) -> None:
    page.route(re.compile(r".*/api/tables/\d+/roads$"),
               lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(answer)))


# Each road box: its marks either wholly inside its visible area or wholly outside it (scrolled away).
CLIPPED = """(selector) => {
  const out = [];
  for (const box of document.querySelectorAll(selector + ' .grid-box')) {
    const b = box.getBoundingClientRect();
    const left = b.left + box.clientLeft, right = left + box.clientWidth;
    const parent = box.parentElement.getBoundingClientRect();
    if (b.right > parent.right + 0.5) out.push(['wider than its panel', b.right, parent.right]);
    for (const cell of box.querySelectorAll('.cell')) {
      const c = cell.getBoundingClientRect();
      const seen = c.right > left + 0.5 && c.left < right - 0.5;
      if (seen && (c.left < left - 0.5 || c.right > right + 0.5))
        out.push([box.parentElement.id || 'lobby', c.left, c.right, left, right]);
    }
    if (box.scrollWidth > box.clientWidth && Math.abs(box.scrollLeft - (box.scrollWidth - box.clientWidth)) > 1)
      out.push(['not scrolled to the newest column', box.scrollLeft, box.scrollWidth, box.clientWidth]);
  }
  return out;
}"""


@pytest.mark.parametrize("size", [(390, 844), (1280, 900)], ids=["phone", "desktop"])
def test_no_road_column_is_cut_late_in_a_shoe_on_the_table_and_in_the_lobby(server: Server, browser: Browser,
                                                                            size: tuple[int, int]):
    errors: list[str] = []
    context, page = new_page(browser, server.url, width=size[0], height=size[1], errors=errors)
    late = shoe_roads(72)
    assert max(cell["col"] for cell in late["big_road"]) > 20  # more columns than any screen shows
    serve_roads(page, late)
    register(page, f"roads_{size[0]}")
    expect(page.locator(".lobby-road .grid-box .cell").first).to_be_attached()
    page.wait_for_timeout(300)
    assert page.evaluate(CLIPPED, ".lobby-road") == []
    shot(page, f"31-roads-lobby-{size[0]}")
    sit(page, 2)
    expect(page.locator("#roads #cockroach-pig .cell").first).to_be_attached()
    page.wait_for_timeout(300)
    problems = page.evaluate(CLIPPED, "#roads")
    assert problems == [], problems
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    page.locator("#roads").scroll_into_view_if_needed()
    shot(page, f"31-roads-late-{size[0]}", full_page=False)
    # the window narrows (a phone turned, a window dragged): the roads fit again, still whole columns
    page.set_viewport_size({"width": size[0] - 37, "height": size[1]})
    page.wait_for_timeout(300)
    assert page.evaluate(CLIPPED, "#roads") == []
    assert errors == []
    context.close()


def test_early_in_a_shoe_the_roads_take_a_bounded_height_on_a_desk(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, width=1280, height=900, errors=errors)
    serve_roads(page, shoe_roads(1))
    register(page, "roads_early")
    sit(page, 1)
    expect(page.locator("#roads .bead")).to_have_count(1)
    heights = page.evaluate("""() => [...document.querySelectorAll('#roads .grid-box')].map((box) =>
        [box.parentElement.id, box.getBoundingClientRect().height, box.classList.contains('empty'), box.innerText])""")
    assert len(heights) == 5
    assert sum(h for _, h, _, _ in heights) < 0.45 * 900, heights
    derived = [row for row in heights if row[0] in ("big-eye-boy", "small-road", "cockroach-pig")]
    assert all(empty and height <= 40 and text == "No marks yet: this road starts a few hands into the shoe."
               for _, height, empty, text in derived), derived
    # the two roads with a hand on them still draw their grid to the panel's edge
    assert [empty for _, _, empty, _ in heights[:2]] == [False, False]
    shot(page, "31-roads-early-1280")
    assert errors == []
    context.close()


def test_the_lobby_countdown_ticks_each_second_without_a_request(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, width=1280, height=900, errors=errors)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    register(page, "lobby_ticks")
    line = page.locator("[data-table='1'] .phase-line")
    expect(line).to_have_text(re.compile(r"^BETTING · \d+ s$"), timeout=60_000)
    for _attempt in range(4):
        seen = len(requests)
        first = line.inner_text()
        page.wait_for_timeout(1100)
        second = line.inner_text()
        if len(requests) == seen and first.startswith("BETTING") and second.startswith("BETTING"):
            break  # a phase that ended in between asks the server once: try again
    else:
        raise AssertionError(f"no quiet second in the lobby: {requests[-6:]}")
    a, b = (int(re.sub(r"\D", "", text)) for text in (first, second))
    assert a - b in (1, 2), (first, second)  # it ticked, from the page's own clock
    shot(page, "31-lobby-countdown")
    assert errors == []
    context.close()


def test_a_break_reads_the_same_everywhere_and_takes_the_sit_down_buttons_away(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, width=1280, height=900, errors=errors)
    register(page, "on_a_break")
    expect(page.locator("[data-table='1'] button.sit")).to_be_visible()
    token = page.evaluate("localStorage.getItem('token')")
    headers = {"Authorization": f"Bearer {token}"}
    taken = page.request.post(f"{server.url}/api/protection/break", data={"hours": 24}, headers=headers)
    assert taken.ok, taken.text()
    refused = page.request.post(f"{server.url}/api/tables/1/seats", data={}, headers=headers)
    assert refused.status >= 400
    refusal = refused.json()
    assert refusal["params"]["until"] == taken.json()["blocked"]["until"]  # one timestamp
    page.reload()
    banner = page.locator("#lobby-blocked")
    expect(banner).to_be_visible()
    expect(page.locator("#lobby [data-table]").first).to_be_visible()
    page.wait_for_timeout(500)
    assert page.locator("#lobby button.sit:visible").count() == 0  # no Sit down during a break
    words = in_page(page, "refusalText(arg)", refusal)
    end = in_page(page, "dateTime(arg)", refusal["params"]["until"])
    assert end in banner.inner_text() and end in words, (banner.inner_text(), words)
    # the same minute as the status's until rounded up (never the minute the break still runs)
    assert in_page(page, "dateTime(arg) === "
                         "dateTime(new Date(Math.ceil(Date.parse(arg) / 60000) * 60000).toISOString())",
                   refusal["params"]["until"])
    shot(page, "31-break-lobby")
    # at a table as a watcher: no Sit down button, the rail line says why
    page.goto(f"{server.url}/#/table/1")
    expect(page.locator("#rail")).to_contain_text(end)
    expect(page.locator("#sit")).to_be_hidden()
    shot(page, "31-break-table")
    assert errors == [], errors
    context.close()


def test_your_chips_are_drawn_as_stacks_on_your_spots(server: Server, browser: Browser):
    errors: list[str] = []
    context, page = new_page(browser, server.url, width=1280, height=900, errors=errors)
    register(page, "stacks")
    sit(page, 1)
    wait_for_betting(page, 6)
    page.click("[data-chip='25']")
    page.click("[data-spot=player]")
    page.click("[data-spot=player]")
    page.click("[data-chip='5']")
    page.click("[data-spot=player]")
    stack = page.locator("[data-spot=player] .stack .stack-chip")
    expect(stack).to_have_count(3)
    assert page.locator("[data-spot=player] .stack .stack-chip.staged").count() == 3
    page.click("#place")
    expect(page.locator("[data-spot=player] .stack .stack-chip.placed")).to_have_count(3)
    values = [int(v) for v in page.eval_on_selector_all("[data-spot=player] .stack-chip",
                                                        "(cs) => cs.map((c) => c.dataset.value)")]
    assert sorted(values) == [5, 25, 25]
    assert page.locator("[data-spot=banker] .stack-chip, [data-spot=tie] .stack-chip").count() == 0
    inside = page.evaluate("""() => {
      const spot = document.querySelector('[data-spot=player]').getBoundingClientRect();
      return [...document.querySelectorAll('[data-spot=player] .stack-chip')].every((chip) => {
        const c = chip.getBoundingClientRect();
        return c.width > 10 && c.left >= spot.left && c.right <= spot.right
          && c.top >= spot.top && c.bottom <= spot.bottom;
      });
    }""")
    assert inside
    page.click("[data-chip='1']")
    page.click("[data-spot=player]")  # one more staged on top: dashed
    expect(page.locator("[data-spot=player] .stack-chip.staged")).to_have_count(1)
    shot(page, "31-stacks", full_page=False)
    assert errors == []
    context.close()


COUNT_AUDIO = """() => {
  window.audioMade = { contexts: 0, oscillators: 0, buffers: 0 };
  class FakeParam { setValueAtTime() {} exponentialRampToValueAtTime() {} }
  class FakeNode { constructor() { this.gain = new FakeParam(); this.frequency = new FakeParam(); }
                   connect(next) { return next; } start() {} stop() {} }
  window.AudioContext = class {
    constructor() { window.audioMade.contexts += 1; this.currentTime = 0; this.sampleRate = 8000;
                    this.state = 'running'; this.destination = new FakeNode(); }
    resume() { return Promise.resolve(); }
    createOscillator() { window.audioMade.oscillators += 1; return new FakeNode(); }
    createGain() { return new FakeNode(); }
    createBiquadFilter() { const n = new FakeNode(); n.frequency = { value: 0 }; return n; }
    createBufferSource() { window.audioMade.buffers += 1; return new FakeNode(); }
    createBuffer(channels, length) { return { getChannelData: () => new Float32Array(length) }; }
  };
}"""


def test_sound_is_off_by_default_remembered_and_made_in_the_page(server: Server, browser: Browser):
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.add_init_script(f"({COUNT_AUDIO})()")
    requests: list[Any] = []
    context.on("request", lambda request: requests.append(request))
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url)
    register(page, "sound")
    toggle = page.locator("#sound")
    expect(toggle).to_have_text("Sound off")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    sit(page, 1)
    wait_for_betting(page, 4)
    page.click("[data-chip='5']")
    page.click("[data-spot=player]")  # a chip while sound is off: nothing made
    assert page.evaluate("window.audioMade") == {"contexts": 0, "oscillators": 0, "buffers": 0}
    toggle.click()
    expect(toggle).to_have_text("Sound on")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    made = page.evaluate("window.audioMade")
    assert made["contexts"] == 1 and made["oscillators"] >= 1, made
    assert page.evaluate("localStorage.getItem('sound')") == "on"
    page.reload()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")  # remembered in this browser
    expect(page.locator("#sound")).to_have_text("Sound on")
    wait_for_betting(page, 3)
    page.click("[data-chip='5']")
    page.click("[data-spot=banker]")
    assert page.evaluate("window.audioMade.oscillators") >= 1  # a chip put down is heard
    shot(page, "31-sound", full_page=False)
    page.locator("#sound").click()
    assert page.evaluate("localStorage.getItem('sound')") == "off"
    audio = [r.url for r in requests if r.resource_type == "media"
             or re.search(r"\.(mp3|wav|ogg|m4a|aac|webm|flac)(\?|$)", r.url)]
    assert audio == []
    assert all(r.url.startswith(server.url) or r.url.startswith("data:") for r in requests), \
        {r.url for r in requests if not r.url.startswith(server.url)}
    assert errors == []
    context.close()
