"""What the browser tests share: the real server as a subprocess, headless Chromium (Debian's, on the
PATH; ``scripts/provision`` installs it), and the steps a player takes on the page.

Screenshots go to ``artifacts/screenshots`` (or ``$BACCARAT_SCREENSHOTS``).
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

if not os.environ.get("BACCARAT_REQUIRE_BROWSER"):
    pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from . import server_kit
from .provision import chromium_binary

CHROMIUM = chromium_binary()
SHOTS = Path(os.environ.get("BACCARAT_SCREENSHOTS", Path(__file__).parents[1] / "artifacts" / "screenshots"))
PASSWORD = "correct horse battery"
#: the server's pace (``baccarat.server.playing.timeline``): no more bets, one card, the results pause
NO_MORE_BETS, CARD, RESULTS_PAUSE = 1.0, 0.6, 4.0


def need_chromium() -> None:
    if CHROMIUM is None:
        if os.environ.get("BACCARAT_REQUIRE_BROWSER"):
            raise RuntimeError("BACCARAT_REQUIRE_BROWSER is set but there is no chromium on the PATH")
        pytest.skip("no chromium on the PATH (scripts/provision installs it)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``baccarat serve`` on SQLite in ``data``; :meth:`stop` and :meth:`start` again keep its port and data."""

    def __init__(self, data: Path, *, betting_seconds: float, port: int | None = None,
                 env: dict[str, str] | None = None, args: tuple[str, ...] = ()):
        self.data, self.betting_seconds, self.args = data, betting_seconds, args
        self.port = port or free_port()
        self.env = {"BACCARAT_SIT_OUT_ROUNDS": "1000", **(env or {})}
        self.served: server_kit.Served | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        self.served = server_kit.serve("--betting-seconds", str(self.betting_seconds), *self.args, data_dir=self.data,
                                       port=self.port, env=self.env)
        return self

    def stop(self) -> None:
        if self.served is not None:
            self.served.stop()
            self.served = None


@contextmanager
def running_server(data: Path, **options: Any) -> Iterator[Server]:
    server = Server(data, **options).start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def chromium() -> Iterator[Browser]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Browser, url: str, *, locale: str = "en-US", width: int = 1280, height: int = 900,
             errors: list[str] | None = None) -> tuple[BrowserContext, Page]:
    """A fresh browser profile (its own session) on the server's page; JavaScript errors go to ``errors``."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    if errors is not None:
        page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return context, page


#: The page's modules whose names :func:`in_page` puts in scope (the page has no globals of its own: ES modules).
_MODULES = {"/static/i18n.js": ("t", "money", "wagerName", "gameName", "tableName", "CATALOGUES", "missingKeys",
                                 "refusalText", "dateTime"),
            "/static/api.js": ("api",), "/static/shell.js": ("session",)}


def in_page(page: Page, expression: str, arg: Any = None) -> Any:
    """The value of a JavaScript ``expression`` in the page, with ``arg`` and the names of its modules in scope
    (``t``, ``money``, ``wagerName``, ``gameName``, ``tableName``, ``CATALOGUES``, ``missingKeys``,
    ``refusalText``, ``dateTime``, ``api``, ``session``): the modules the page itself loaded (an import of the same
    address is the same module, its state and all)."""
    imports = "".join(f"const {{ {', '.join(names)} }} = await import({json.dumps(path)});"
                      for path, names in _MODULES.items())
    return page.evaluate(f"async (arg) => {{ {imports} return ({expression}); }}", arg)


def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def balance(page: Page) -> int:
    """The header's balance in minor units."""
    return round(float(page.locator("#balance").inner_text().replace(",", "").replace("−", "-")) * 100)


#: The run of the current test: 1, or 2 when the browser tier runs a failed test again (pytest-rerunfailures);
#: set by tests/conftest.py for each browser test.
ATTEMPT = 1


def register(page: Page, name: str) -> str:
    """Register ``name`` (``name-2`` when the test runs again on its module's server, where the first run's
    account, with its bets, already is), wait for the lobby and the new account's balance, and return the name
    registered (what the table's news and seats say)."""
    if ATTEMPT > 1:
        name = f"{name}-{ATTEMPT}"
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#register")
    expect(page.locator("#lobby [data-table]").first).to_be_visible()
    expect(page.locator("#balance")).to_have_text("1,000.00")
    return name


def sit(page: Page, table_id: int) -> None:
    page.locator(f"[data-table='{table_id}'] button.sit").click()
    expect(page.locator("#phase")).to_have_attribute("data-phase", re.compile(r"\w+"))


def phase(page: Page) -> str:
    return page.locator("#phase").get_attribute("data-phase") or ""


def seconds_left(page: Page) -> int:
    digits = re.sub(r"\D", "", page.locator("#countdown").inner_text())
    return int(digits) if digits else -1


def wait_for_betting(page: Page, at_least: int = 3, timeout: float = 60) -> None:
    """Until a betting window with at least ``at_least`` seconds to go."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if phase(page) == "betting" and seconds_left(page) >= at_least:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"no betting window opened (phase {phase(page)!r})")


def wait_for_phase(page: Page, wanted: str, timeout: float = 60) -> None:
    expect(page.locator("#phase")).to_have_attribute("data-phase", wanted, timeout=timeout * 1000)


def bet(page: Page, chips: dict[str, list[int]]) -> None:
    """Stage chips (spot -> chip values) and place them."""
    for spot, values in chips.items():
        for value in values:
            page.click(f"[data-chip='{value}']")
            page.click(f"[data-spot={spot}]")
    page.click("#place")
    expect(page.locator("#refusal")).to_have_class(re.compile("info"))


def in_viewport(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the visible window (as the user sees it, scrolled where it is)."""
    return bool(page.evaluate("""(selector) => {
        const el = document.querySelector(selector);
        if (!el) return false;
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
            && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    }""", selector))


def api(server: Server, method: str, path: str, token: str | None = None, body: object = None) -> object:
    """A request to ``server``'s API outside the page (as another client would): its JSON answer, or None."""
    request = urllib.request.Request(server.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {}),
                                              "Idempotency-Key": f"browser-{uuid.uuid4().hex}"})
    with urllib.request.urlopen(request) as answer:
        text = answer.read().decode()
    return json.loads(text) if text else None


def token(server: Server, name: str) -> str:
    """A session token for account ``name`` (its password is :data:`PASSWORD`)."""
    answer = api(server, "POST", "/api/sessions", body={"username": name, "password": PASSWORD})
    assert isinstance(answer, dict)
    return str(answer["token"])
