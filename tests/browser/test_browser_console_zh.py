"""The operator console, second pass (issue 31, item 9), in real Chromium:

* **Chinese throughout**: with the console in Simplified Chinese, no game or wager name of the registry
  appears in English on the tables, reports and players tabs (nor "DrawWin" or "Lucky Draw"): the names
  come from the registry's codes in the console's language.
* **The live monitor agrees with the table card**: its seated list is the card's, in the same words,
  also after a player stands up.
* **Game recall shows a timeout**: a Lucky Draw seat that stood because its time ran out is listed with
  "time ran out" beside the seat that drew.
* **The day's drop and win on each table card**, equal to the tables report for today.

Screenshots: ``artifacts/screenshots/31-console-zh.png``, ``31-console-zh-recall.png``,
``31-console-zh-reports.png``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ..browser_kit import (
    PASSWORD,
    Browser,
    Page,
    Server,
    api,
    expect,
    in_page,
    need_chromium,
    new_page,
    running_server,
    shot,
    token,
)
from ..conftest import clock_held

pytestmark = [pytest.mark.browser, pytest.mark.slow]
need_chromium()


def _seed(data: Path) -> None:
    """Today (minutes ago, on an injected clock): three mini rounds and one Lucky Draw round where zoe
    draws and yan sends nothing (he stands when the time runs out); an operator."""
    from baccarat.server.house import accounts
    from baccarat.server.playing import betting, dealing, seating, tables
    from baccarat.server.playing.dealer import deal_due
    from baccarat.server.playing.timeline import Pace
    from baccarat.server.storage.db import connect, sqlite_url, transaction
    from baccarat.server.storage.migrate import upgrade

    url = sqlite_url(data)
    upgrade(url)
    start = max(datetime.now(UTC) - timedelta(minutes=10),
                datetime.now(UTC).replace(hour=0, minute=0, second=1, microsecond=0))  # today, UTC
    with clock_held(start) as held, connect(url) as sessions:
        def setup(s):
            ids = [tables.create_table(s, name, game, paytable=1 if game == "lucky-draw" else None, betting_seconds=10,
                                       decision_seconds=10, pace=Pace(0, 0, 0), now=start).id
                   for name, game in (("mini-1", "mini"), ("ez-1", "ez"), ("lucky-draw-1", "lucky-draw"))]
            players = [accounts.register(s, name, PASSWORD, grant=500_000).id for name in ("zoe", "yan")]
            accounts.register(s, "pit_boss", PASSWORD, grant=0, role="pit_boss")
            accounts.register(s, "cash_desk", PASSWORD, grant=0, role="cashier")
            accounts.register(s, "the_eye", PASSWORD, grant=0, role="surveillance")
            for table_id in (ids[0], ids[2]):
                for player in players:
                    seating.sit(s, table_id, player)
            return ids, players
        ids, players = transaction(sessions, setup)
        for _ in range(3):
            for player, stakes in zip(players, ({"banker": 2_500, "tie": 500}, {"player": 2_000}), strict=True):
                transaction(sessions, lambda s, p=player, b=stakes: betting.place_bets(s, ids[0], p, b))
            held.advance(seconds=11)
            deal_due(sessions, now=held.now())
        for player in players:
            transaction(sessions, lambda s, p=player: betting.place_bets(s, ids[2], p, {"enter": 1_000}))
        held.advance(seconds=11)
        deal_due(sessions, now=held.now())
        held.advance(seconds=1)
        transaction(sessions, lambda s: dealing.decide(s, ids[2], players[0], "draw"))
        held.advance(seconds=11)
        deal_due(sessions, now=held.now())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("console-zh")
    _seed(data)
    with running_server(data, betting_seconds=8) as running:
        yield running


def _english_names(server: Server) -> set[str]:
    """Every game and wager name of the registry (English), and the words the console used to leave in English."""
    games = api(server, "GET", "/api/games")
    assert isinstance(games, list)
    names = {"DrawWin", "Lucky Draw"}
    for game in games:
        names.add(game["name"])
        names.update(wager["name"] for wager in game["wagers"])
    return names


def _english_left(page: Page, names: set[str]) -> list[str]:
    text = page.locator("#view").inner_text() + page.locator("#top").inner_text()
    return sorted(name for name in names if re.search(rf"\b{re.escape(name)}\b", text))


def test_the_console_in_chinese_with_the_day_s_figures_the_monitor_and_a_timeout_in_recall(server: Server,
                                                                                           browser: Browser):
    errors: list[str] = []
    names = _english_names(server)
    assert {"Enter", "Draw", "Player", "Banker"} <= names
    boss = token(server, "pit_boss")
    _, page = new_page(browser, server.url + "/operator", locale="zh-CN", width=1366, height=900, errors=errors)
    page.fill("#username", "pit_boss")
    page.fill("#password", PASSWORD)
    page.click("#login")
    expect(page.locator("#console-tables [data-table]").first).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")

    # the day's drop and win on each card, as the tables report counts them for today
    today = datetime.now(UTC).date().isoformat()
    report = api(server, "GET", f"/api/operator/reports/tables?from={today}&to={today}", boss)
    assert isinstance(report, dict)
    by_table = {row["table_id"]: row for row in report["tables"]}
    assert by_table[1]["handle"] == 3 * 5_000 and by_table[3]["handle"] == 3_000
    for table_id in (1, 2, 3):
        row = by_table.get(table_id, {"handle": 0, "win": 0})
        words = in_page(page, "t('op.today', { handle: money(arg[0]), win: money(arg[1]) })",
                        [row["handle"], row["win"]])
        expect(page.locator(f"#today-{table_id}")).to_have_text(words)

    # the live monitor's seated list is the card's, in the same words, before and after a player stands up
    def agree() -> None:
        card = page.eval_on_selector_all("[data-table='3'] [data-seated]",
                                         "(items) => items.map((i) => i.dataset.seated)")
        words = in_page(page, "t('op.seated', { names: arg })", ", ".join(card))
        expect(page.locator("#monitor-seated")).to_have_text(words)
    page.click("#watch-3")
    expect(page.locator("#monitor-seated")).to_contain_text("zoe")
    agree()
    api(server, "DELETE", "/api/tables/3/seats", token(server, "zoe"))
    expect(page.locator("#monitor-seated")).not_to_contain_text("zoe", timeout=5_000)
    expect(page.locator("[data-table='3'] .seats")).not_to_contain_text("zoe", timeout=5_000)
    agree()
    assert _english_left(page, names) == []
    shot(page, "31-console-zh")

    # reports: the theoretical-win rule names Lucky Draw's wagers in Chinese
    page.click("#tab-reports")
    expect(page.locator("#report-rows")).to_be_visible()
    expect(page.locator("#wager-rows")).to_contain_text(in_page(page, "wagerName('enter')"))
    assert _english_left(page, names) == []
    shot(page, "31-console-zh-reports")

    # game recall: yan stood when his time ran out, zoe drew
    yan = next(p for p in api(server, "GET", "/api/operator/players?q=yan", boss) if p["username"] == "yan")  # type: ignore[union-attr]
    page.goto(f"{server.url}/operator#/players/{yan['id']}")
    lucky_line = page.locator("#statement tbody tr", has_text=in_page(page, "tableName('lucky-draw-1', 'lucky-draw')"))
    lucky_line.locator("button.link").first.click()
    decisions = page.locator("#recall-decisions")
    expect(decisions).to_contain_text(in_page(page, "t('op.timed_out')"))
    recalled = api(server, "GET", "/api/operator/tables/3/rounds/1", boss)
    assert isinstance(recalled, dict)
    for decision in recalled["decisions"]:
        words = in_page(page, "`${t('op.seat', { n: arg.seat })} ${t('op.action.' + arg.action)}`"
                        " + (arg.timed_out ? ` (${t('op.timed_out')})` : '')", decision)
        expect(decisions).to_contain_text(words)
    assert sorted((d["action"], d["timed_out"]) for d in recalled["decisions"]) == [("draw", False), ("stand", True)]
    assert _english_left(page, names) == []
    shot(page, "31-console-zh-recall")
    assert errors == []


#: Latin words a Chinese console may show: names typed by people (accounts, a table's name), and SHA-256
LATIN = re.compile(r"[A-Za-z_]{2,}")


def test_the_audit_trail_a_statement_and_the_drawwin_table_read_in_chinese(server: Server, browser: Browser):
    """Every audit entry in the console's language (its action, its target, each field and value: money as money,
    limits as the card says them, a status by its name, the dealer as the dealer), a statement whose lines the
    house made say only their kind (a cashier's memo as typed), and a Lucky Draw card naming its DrawWin pay
    table by what it pays, not by its number."""
    errors: list[str] = []
    boss, cashier = token(server, "pit_boss"), token(server, "cash_desk")
    zoe = next(p for p in api(server, "GET", "/api/operator/players?q=zoe", boss) if p["username"] == "zoe")  # type: ignore[union-attr]
    api(server, "POST", f"/api/operator/wallets/{zoe['id']}/credit", cashier, {"amount": 1_250, "memo": "补充筹码"})
    api(server, "PUT", "/api/operator/tables/1/limits", boss, {"minimum": 200, "maximums": {"banker": 100_000}})
    opened_table = api(server, "POST", "/api/operator/tables", boss, {"name": "lucky-draw-9", "game": "lucky-draw",
                                                                      "paytable": 2})
    assert isinstance(opened_table, dict)
    _, page = new_page(browser, server.url + "/operator", locale="zh-CN", width=1366, height=900, errors=errors)
    page.fill("#username", "the_eye")
    page.fill("#password", PASSWORD)
    page.click("#login")
    page.click("#tab-audit")
    rows = page.locator("#audit-rows tr")
    credit = rows.filter(has_text="补充筹码")
    expect(credit).to_contain_text(in_page(page, "t('op.action.credit')"))
    expect(credit).to_contain_text(in_page(page, f"t('op.target.account', {{account: {zoe['id']}}})"))
    expect(credit).to_contain_text(in_page(page, "`${t('op.field.amount')}: ${money(1250)}`"))
    limits = rows.filter(has_text=in_page(page, "t('op.action.change_limits')"))
    expect(limits).to_contain_text(in_page(page, "t('op.field.pending_limits')"))
    expect(limits).to_contain_text(in_page(page, "`${wagerName('banker')} ${money(100000)}`"))
    opened = rows.filter(has_text=in_page(page, "t('op.action.open_table')"))
    expect(opened).to_contain_text(in_page(page, "`${t('op.field.status')}: ${t('op.status.open')}`"))
    expect(opened).to_contain_text(in_page(page, "gameName('lucky-draw')"))
    view = page.locator("#view").inner_text()
    digests = set(re.findall(r"\b[0-9a-f]{12,}\b", view))
    left = {w for w in LATIN.findall(view) if not any(w in d for d in digests)}
    assert left <= {"SHA", "the_eye", "pit_boss", "cash_desk", "CSV", "lucky", "draw"}, sorted(left)  # (the new
    # table's name, lucky-draw-9, as the pit boss typed it)
    shot(page, "31-console-zh-audit")

    # zoe's statement: her opening grant says its kind only; the cashier's memo is shown as typed
    page.goto(f"{server.url}/operator#/players/{zoe['id']}")
    statement = page.locator("#statement tbody")
    expect(statement).to_contain_text("补充筹码")
    expect(statement).not_to_contain_text("new account grant")
    expect(statement.locator("tr", has_text=in_page(page, "t('op.kind.grant')"))).to_have_count(1)

    # the Lucky Draw cards, as the pit boss sees them: each DrawWin pay table by what it pays
    _, boss_page = new_page(browser, server.url + "/operator", locale="zh-CN", width=1366, height=900, errors=errors)
    boss_page.fill("#username", "pit_boss")
    boss_page.fill("#password", PASSWORD)
    boss_page.click("#login")
    for table_id, pays in ((3, "2:1"), (opened_table["id"], "3:2")):
        card = boss_page.locator(f"[data-table='{table_id}'] .muted").first
        expect(card).to_contain_text(pays)
        expect(card).not_to_contain_text("赔率表")
    assert errors == []
