"""The operator console and the player's protection in real Chromium (issue 14): an operator sees the
tables with their players and the round in play, stands a player up, closes and reopens a table,
changes its limits and watches it live; reads the reports, whose figures and chart come from the API,
and downloads their CSV; looks a player up and recalls a round; checks the audit trail.  A player sets a reality check,
which interrupts play with the time played and the net result (Continue or Leave), and takes a
time-out that the lobby shows.  Screenshots go to ``artifacts/screenshots`` (``console-*``).
"""

from __future__ import annotations

import re
import secrets
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
    bet,
    expect,
    in_page,
    need_chromium,
    new_page,
    register,
    running_server,
    shot,
    token,
    wait_for_betting,
)
from ..conftest import clock_held

pytestmark = pytest.mark.browser
need_chromium()


def _seed(data: Path) -> None:
    """Six days of play at two tables before the server starts (on an injected clock), and the staff: a pit boss,
    two cashiers, surveillance and an administrator."""
    from baccarat.server.house import accounts
    from baccarat.server.operator import actions as operations
    from baccarat.server.playing import betting, seating, tables
    from baccarat.server.playing.dealer import deal_due
    from baccarat.server.playing.timeline import Pace
    from baccarat.server.storage.db import connect, sqlite_url, transaction
    from baccarat.server.storage.migrate import upgrade

    url = sqlite_url(data)
    upgrade(url)
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=6, hours=1)
    with clock_held(start) as held, connect(url) as sessions:
        def setup(s):
            ids = [tables.create_table(s, name, game, betting_seconds=10, pace=Pace(0, 0, 0), now=start).id
                   for name, game in (("mini-1", "mini"), ("ez-1", "ez"), ("lucky-draw-1", "lucky-draw"))]
            players = [accounts.register(s, name, PASSWORD, grant=500_000).id for name in ("zoe", "yan")]
            boss = accounts.register(s, "pit_boss", PASSWORD, grant=0, role="pit_boss")
            for name, role in (("cass", "cashier"), ("cora", "cashier"), ("eye", "surveillance"), ("head", "admin")):
                accounts.register(s, name, PASSWORD, grant=0, role=role)
            for table_id in ids[:2]:
                for player in players:
                    seating.sit(s, table_id, player)
            return ids, players, boss
        ids, players, boss = transaction(sessions, setup)
        stakes = ({"banker": 2_500, "tie": 500}, {"player": 2_000, "dragon_bonus_player": 500})
        ez = ({"banker": 2_000, "dragon_7": 500}, {"player": 1_500})
        for day in range(6):
            for _ in range(8):
                for player, mini_bets, ez_bets in zip(players, stakes, ez, strict=True):
                    transaction(sessions, lambda s, p=player, b=mini_bets: betting.place_bets(s, ids[0], p, b))
                    transaction(sessions, lambda s, p=player, b=ez_bets: betting.place_bets(s, ids[1], p, b))
                held.advance(seconds=11)
                deal_due(sessions, now=held.now())
            held.moment = start + timedelta(days=day + 1)
            deal_due(sessions, now=held.now())
        transaction(sessions, lambda s: operations.set_limits(s, boss, ids[1], 100, {"banker": 2_500,
                                                                                     "player": 2_500}))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("console-data")
    _seed(data)
    with running_server(data, betting_seconds=8) as running:
        yield running


def _operator_page(browser, server: Server, errors: list[str], user: str = "pit_boss", **options) -> Page:
    _, page = new_page(browser, server.url + "/operator", errors=errors, **options)
    page.fill("#username", user)
    page.fill("#password", PASSWORD)
    page.click("#login")
    expect(page.locator("#tabs a").first).to_be_visible()
    if user == "pit_boss":
        expect(page.locator("#console-tables [data-table]").first).to_be_visible()
    return page


def test_the_operator_runs_the_tables_from_the_console(server: Server, browser: Browser):
    errors: list[str] = []
    zoe = token(server, "zoe")
    api(server, "POST", "/api/tables/3/seats", zoe, {})
    page = _operator_page(browser, server, errors)
    mini = page.locator("[data-table='1']")
    expect(mini.locator(".badge")).to_have_text("Open")
    expect(page.locator("[data-table='3'] .seats")).to_contain_text("zoe")
    expect(page.locator("[data-table='2'] .limits-line")).to_contain_text("Minimum 1.00")
    # stand a player up (one who sits and never plays): the seat is free, and zoe is told why
    expect(page.locator("#stand-3-1")).to_have_attribute("aria-label", "Stand zoe up from seat 1")
    page.click("#stand-3-1")
    expect(page.locator("[data-table='3']")).to_contain_text("No one is seated.")
    expect(page.locator("#stand-3-1")).to_have_count(0)
    mine = api(server, "GET", "/api/tables/3/you", zoe)
    assert isinstance(mine, dict) and mine["seat"] is None and mine["notice"]["code"] == "notice.operator_stood"
    # watch a table live: the phase and the round come from the table's own view
    page.click("#watch-1")
    expect(page.locator("#monitor-phase")).to_contain_text(re.compile(r"Round \d+"))
    # close an idle table, then open it again
    page.click("#close-3")
    expect(page.locator("[data-table='3'] .badge")).to_have_text(re.compile("Closed|Closing"))
    page.click("#open-3")
    expect(page.locator("[data-table='3'] .badge")).to_have_text("Open")
    # new limits wait for the next round, and say so
    page.click("#limits-1")
    page.fill("#min-1", "5")
    page.locator("[data-table='1'] .limits-form button[type=submit]").click()
    expect(page.locator("[data-table='1'] .pending")).to_contain_text("Minimum 5.00")
    shot(page, "console-tables")
    # a pit boss has no audit tab and no staff tab: surveillance reads the trail
    assert page.locator("#tabs a").all_inner_texts() == ["Tables", "Reports", "Players"]
    pit_page = page
    page = _operator_page(browser, server, errors, user="eye")
    assert page.locator("#tabs a").all_inner_texts() == ["Tables", "Reports", "Players", "Audit trail"]
    expect(page.locator("#console-tables [data-table]").first).to_be_visible()
    expect(page.locator("#new-open")).to_have_count(0)  # surveillance changes nothing: no table form, no buttons
    expect(page.locator("#close-1")).to_have_count(0)
    # every one of those actions is in the audit trail, and the chain checks
    page.click("#tab-audit")
    expect(page.locator("#audit-verdict")).to_contain_text("The chain is intact")
    actions = page.locator("#audit-rows tr td:nth-child(4)").all_inner_texts()
    assert actions[:4] == ["Changed limits", "Reopened a table", "Closed a table", "Stood a player up"], actions
    shot(page, "console-audit")
    # in Chinese, no catalogue key is missing on any tab
    pit_page.close()
    page.select_option("#lang", "zh-CN")
    for tab in ("tables", "reports", "players", "audit"):
        page.click(f"#tab-{tab}")
        page.wait_for_timeout(600)
        if tab == "reports":
            expect(page.locator("#win-chart")).to_be_visible()
            shot(page, "console-report-zh", full_page=False)
    assert in_page(page, "[...missingKeys]") == []
    expect(page.locator("#tab-audit")).to_have_text("审计记录")
    shot(page, "console-audit-zh")
    assert errors == []


def test_reports_show_the_api_s_figures_with_the_chart_and_download_csv(server: Server, browser: Browser):
    errors: list[str] = []
    boss = token(server, "pit_boss")
    report = api(server, "GET", "/api/operator/reports/tables", boss)
    assert isinstance(report, dict) and report["total"]["rounds"] >= 90
    page = _operator_page(browser, server, errors)
    page.click("#tab-reports")
    expect(page.locator("#tile-handle .tile-value")).to_have_text(
        f"{report['total']['handle'] / 100:,.2f}")
    assert page.locator("#win-chart path.line").count() == 2
    points = page.locator("#win-chart circle.dot").count()
    assert points == len(report["series"])
    assert page.locator("#report-rows tbody tr").count() == len(report["rows"])
    wagers = page.locator("#wager-rows tbody tr").all_inner_texts()
    assert any("Banker" in row and "1.06 %" in row for row in wagers), wagers  # Mini-Baccarat's exact edge
    with page.expect_download() as download:
        page.click("#csv-tables")
    saved = download.value.path()
    assert saved is not None
    lines = Path(saved).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("day,table_id,table") and len(lines) == len(report["rows"]) + 1
    page.locator("#win-chart").scroll_into_view_if_needed()
    shot(page, "console-report")
    # a player's statement and the recall of one of their rounds
    page.click("#tab-players")
    page.fill("#player-search", "zo")
    page.click("#player-find")
    page.locator("#player-results button", has_text="zoe").click()
    expect(page.locator("#statement tbody tr").first).to_be_visible()
    page.locator("#statement tbody button").first.click()
    expect(page.locator("#recall .deal-order li").first).to_be_visible()
    assert page.locator("#recall .deal-order .card").count() >= 4
    page.locator("#recall").scroll_into_view_if_needed()
    shot(page, "console-recall", full_page=False)
    assert errors == []


def test_a_player_is_not_let_into_the_console(server: Server, browser: Browser):
    _, page = new_page(browser, server.url + "/operator")
    page.fill("#username", "yan")
    page.fill("#password", PASSWORD)
    page.click("#login")
    expect(page.locator("#not-operator")).to_have_text(
        "This console is for the casino's staff. Your account plays at the tables.")


def test_a_large_credit_needs_a_second_member_of_staff_and_the_administrator_gives_roles(server: Server,
                                                                                        browser: Browser):
    """The cashier credits a player from the player's page: a small credit at once, one above the threshold waits;
    a second cashier approves it in the list of credits waiting; the administrator adds a member of staff and
    changes a role in the staff tab (in Chinese too, no key missing)."""
    errors: list[str] = []
    zoe = next(p for p in api(server, "GET", "/api/operator/players?q=zoe", token(server, "cass"))  # type: ignore[union-attr]
               if p["username"] == "zoe")
    before = zoe["balance"]
    page = _operator_page(browser, server, errors, user="cass")
    assert page.locator("#tabs a").all_inner_texts() == ["Players"]  # a cashier's one tab
    page.goto(f"{server.url}/operator#/players/{zoe['id']}")
    expect(page.locator("#money-form")).to_be_visible()
    page.fill("#money-amount", "25")
    page.fill("#money-memo", "comp")
    page.click("#money-credit")
    expect(page.locator("#toast")).to_have_text(f"Credited 25.00: the balance is {(before + 2_500) / 100:,.2f}.")
    expect(page.locator("#player-balance .tile-value")).to_have_text(f"{(before + 2_500) / 100:,.2f}")  # read again
    page.fill("#money-amount", "20000")
    page.click("#money-credit")
    expect(page.locator("#toast")).to_contain_text("is above the approval threshold")
    expect(page.locator("#credits-waiting li")).to_contain_text("(yours: another member of staff decides)")
    expect(page.locator("#player-balance .tile-value")).to_have_text(f"{(before + 2_500) / 100:,.2f}")
    shot(page, "console-credit-waiting", full_page=False)
    second = _operator_page(browser, server, errors, user="cora")
    expect(second.locator("#credits-waiting li")).to_contain_text("20,000.00")
    second.locator("#credits-waiting button.primary").click()
    expect(second.locator("#toast")).to_have_text("Approved: zoe is credited 20,000.00.")
    expect(second.locator("#credits-waiting")).to_contain_text("No credit is waiting.")
    balance = api(server, "GET", f"/api/operator/players/{zoe['id']}", token(server, "cass"))
    assert isinstance(balance, dict) and balance["balance"] == before + 2_500 + 2_000_000
    second.close()
    head = _operator_page(browser, server, errors, user="head")
    assert head.locator("#tabs a").all_inner_texts() == ["Audit trail", "Staff"]
    head.click("#tab-staff")
    expect(head.locator("#staff-rows tr[data-staff='cass']")).to_contain_text("cashier")
    head.fill("#staff-username", "nina")
    head.fill("#staff-password", "a long password")
    head.select_option("#staff-role", "surveillance")
    head.click("#staff-add")
    expect(head.locator("#staff-rows tr[data-staff='nina'] td").nth(1)).to_have_text("surveillance")
    nina = api(server, "GET", "/api/operator/staff", token(server, "head"))
    nina_id = next(m["account_id"] for m in nina["staff"] if m["username"] == "nina")  # type: ignore[index]
    head.select_option(f"#role-{nina_id}", "pit_boss")
    head.click(f"#set-role-{nina_id}")
    expect(head.locator("#staff-rows tr[data-staff='nina'] td").nth(1)).to_have_text("pit boss")
    expect(head.locator("#staff-role")).to_have_value("surveillance")  # the form keeps the role last chosen
    shot(head, "console-staff", full_page=False)
    head.select_option("#lang", "zh-CN")
    expect(head.locator("#staff-rows tr[data-staff='nina'] td").nth(1)).to_have_text("赌区主管")
    assert in_page(head, "[...missingKeys]") == []
    shot(head, "console-staff-zh", full_page=False)
    assert errors == []


def test_the_reality_check_interrupts_play_and_a_time_out_shows_in_the_lobby(server: Server, page: Page):
    page.clock.install()
    page.reload()
    wren = f"wren{secrets.token_hex(3)}"  # a name of its own: a rerun on the module's server registers again
    register(page, wren)
    expect(page.locator("#help-line")).to_contain_text("800.522.4700")
    page.click("#protect-link")
    page.select_option("#reality-minutes", "15")
    expect(page.locator("#toast")).to_have_text("Saved.")
    page.fill("#limit-amount", "50")
    page.click("#limit-save")
    expect(page.locator("#limits-rows")).to_contain_text("50.00")
    page.goto(server.url + "/#/")
    page.locator("[data-table='1'] button.sit").click()
    expect(page.locator("#phase")).to_have_attribute("data-phase", re.compile(r"\w+"))
    wait_for_betting(page)
    bet(page, {"banker": [5]})
    # the page reads the protection again after a bet: jumping the clock while that read is on its way would have
    # it schedule the check from the jumped time (the next one, 15 minutes on)
    page.wait_for_load_state("networkidle")
    page.clock.fast_forward("15:05")
    dialog = page.locator("#reality [role=alertdialog]")
    try:
        expect(dialog).to_be_visible(timeout=5_000)
    except AssertionError:
        # the round's result reads the protection too, and schedules the check again from the page's clock as it
        # then is: a result that crossed the jump (ci25, under load) puts the check one period on
        page.clock.fast_forward("15:05")
        expect(dialog).to_be_visible()
    expect(page.locator("#reality-net")).to_contain_text(re.compile(r"You are (up|down) \d|You are even"))
    # the minutes are the server's (its clock did not jump with the page's): "played for 0 minutes" here
    expect(dialog).to_contain_text(re.compile(r"You have played for \d+ minutes? since you logged in"))
    expect(dialog).to_contain_text("Staked in this session: 5.00.")
    expect(page.locator("#reality-continue")).to_be_focused()
    shot(page, "console-reality-check", full_page=False)
    page.click("#reality-continue")
    expect(dialog).to_be_hidden()
    page.clock.fast_forward("15:00")
    expect(dialog).to_be_visible()
    page.click("#reality-leave")
    expect(page.locator("#login")).to_be_visible()  # Leave logs out
    # a time-out: the lobby says so, and sitting down is refused in the player's words
    page.fill("#username", wren)
    page.fill("#password", PASSWORD)
    page.click("#login")
    expect(page.locator("#lobby [data-table]").first).to_be_visible()
    page.click("#protect-link")
    page.select_option("#timeout-hours", "48")
    page.click("#take-timeout")
    expect(page.locator("#protect-error")).to_have_text("Tick the box to confirm first.")
    page.check("#break-understood")
    page.click("#take-timeout")
    expect(page.locator("#protect-status")).to_contain_text("You are taking a time-out until")
    shot(page, "console-protection")
    page.goto(server.url + "/#/")
    expect(page.locator("#lobby-blocked")).to_contain_text("time-out")
    # no Sit down button during a break: the sentence says why (the refusal's words: test_browser_roads_lobby)
    expect(page.locator("#lobby [data-table]").first).to_be_visible()
    expect(page.locator("#lobby button.sit:visible")).to_have_count(0)
