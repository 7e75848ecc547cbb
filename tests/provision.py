"""What the test command starts by itself, so that ``python -m pytest`` runs the whole suite: a pytest plugin
(registered by ``tests/conftest.py``).  It installs nothing: ``scripts/provision`` installs Debian's
postgresql, chromium, nginx and prometheus (promtool) where they are missing (the README's test command runs it first).

- the PostgreSQL tests (the ``database_url`` fixture's ``postgresql`` parameter): when some selected test needs
  it and ``BACCARAT_TEST_POSTGRES_URL`` is not set, it starts a throw-away server with ``.ci/postgres.sh`` on a
  free port, exports its URL for the session, and stops it and removes its files at the end;
- the browser tests (``tests/browser/``) and the reverse-proxy test (a test that asks for the ``nginx``
  fixture): it says whether chromium and nginx are there.

It reports what it did in one line before the tests run. ``BACCARAT_NO_PROVISION=1`` turns it off.
Under pytest-xdist (``-n 2``) each worker starts a PostgreSQL server of its own for the tests it runs
(stopped when the worker ends), and the controller reports each worker's line when it is done.  What is not
there is skipped with a reason that says how to provide it, unless ``BACCARAT_REQUIRE_POSTGRES`` /
``BACCARAT_REQUIRE_BROWSER`` / ``BACCARAT_REQUIRE_NGINX`` is set (as ``.ci/run`` sets them): then those tests
fail.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_SH = ROOT / ".ci" / "postgres.sh"
BROWSER_TESTS = "test_browser"  #: test_browser.py and test_browser_*.py
NAME = "baccarat-provision"
OFF = "BACCARAT_NO_PROVISION"
URL = "BACCARAT_TEST_POSTGRES_URL"
DIR = "BACCARAT_TEST_POSTGRES_DIR"

HOW_POSTGRES = (
    "install PostgreSQL with scripts/provision (as root) and the tests start a server of their own, or set "
    "BACCARAT_TEST_POSTGRES_URL to a server where you may CREATE DATABASE (postgresql+psycopg://USER@HOST:PORT/DB)"
)
HOW_BROWSER = "run scripts/provision (as root: it installs Debian's chromium), or put a chromium on the PATH"
HOW_NGINX = "run scripts/provision (as root: it installs Debian's nginx), or put an nginx on the PATH"
NGINX_FIXTURE = "nginx"  #: the fixture of the tests that run nginx


def register(config: pytest.Config) -> None:
    """Called from ``tests/conftest.py``'s ``pytest_configure``."""
    if not config.pluginmanager.has_plugin(NAME):
        config.pluginmanager.register(Provisioner(config), NAME)


def why_no_postgres(config: pytest.Config) -> str:
    """Why there is no ``BACCARAT_TEST_POSTGRES_URL``, and how to provide one by hand."""
    plugin = config.pluginmanager.get_plugin(NAME)
    why = getattr(plugin, "postgres_problem", None) or "no PostgreSQL server was provisioned"
    return f"no PostgreSQL server ({why}): {HOW_POSTGRES}"


def why_no_nginx(config: pytest.Config) -> str:
    """Why there is no ``nginx``, and how to provide one by hand."""
    plugin = config.pluginmanager.get_plugin(NAME)
    why = getattr(plugin, "nginx_problem", None) or "not on the PATH"
    return f"no nginx ({why}): {HOW_NGINX}"


def nginx_binary() -> str | None:
    """The ``nginx`` to run: on the PATH, or Debian's (in /usr/sbin, not on every user's PATH)."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def chromium_binary() -> str | None:
    """The Chromium the browser tests drive: ``BACCARAT_CHROMIUM``, else Debian's ``chromium-headless-shell``
    (scripts/provision installs it): the same Chromium build, Blink and V8 as the ``chromium`` package without
    the desktop browser's profile services, so that a new page costs Chromium about 0.16 s of CPU rather than
    0.6 s (benchmarks/page_cpu.py; Playwright's own headless default is this shell too); else ``chromium``."""
    return (os.environ.get("BACCARAT_CHROMIUM") or shutil.which("chromium-headless-shell")
            or shutil.which("chromium") or shutil.which("chromium-browser"))


def _tail(text: str, lines: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:] if line.strip())


class Provisioner:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.notes: dict[str, str] = {}  # "postgres", "browser": what was done
        self.postgres_problem: str | None = None
        self.postgres_dir: str | None = None
        self.nginx_problem: str | None = None
        self.browser_checked = False

    # --- hooks ---------------------------------------------------------------------------

    @pytest.hookimpl
    def pytest_collect_file(self, file_path: Path) -> None:
        # before the browser tests' module is imported: it skips (or fails) at import without chromium
        if (file_path.name.startswith(BROWSER_TESTS) and file_path.suffix == ".py" and not self.browser_checked
                and not self.config.option.collectonly):
            self.browser_checked = True
            if not self.browser_left_out():
                self.provision_browser()

    @pytest.hookimpl
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self.config.option.collectonly and any(needs_postgres(item) for item in session.items):
            self.provision_postgres()
        if not self.config.option.collectonly and any(NGINX_FIXTURE in getattr(item, "fixturenames", ())
                                                      for item in session.items):
            self.provision_nginx()
        notes = [self.notes[what] for what in ("postgres", "browser", "nginx") if what in self.notes]
        if notes:
            line = "provisioning for the tests: " + "; ".join(notes)
            self.write(line)
            if hasattr(self.config, "workeroutput"):  # a pytest-xdist worker: its own server, said by the controller
                self.config.workeroutput[NAME] = line

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """pytest-xdist's controller: each worker provisions for its own tests (a PostgreSQL server of its
        own); say what each did, as its line cannot be shown while it runs."""
        line = getattr(node, "workeroutput", {}).get(NAME)
        if line:
            self.write(f"\n[{node.gateway.id}] {line}")  # after the progress dots on the line

    @pytest.hookimpl
    def pytest_unconfigure(self) -> None:
        if self.postgres_dir is None:
            return
        subprocess.run(["bash", str(POSTGRES_SH), "stop", self.postgres_dir], capture_output=True, check=False)
        self.postgres_dir = None
        os.environ.pop(URL, None)
        os.environ.pop(DIR, None)

    # --- what is provisioned -------------------------------------------------------------

    def provision_postgres(self) -> None:
        if os.environ.get(URL):
            self.notes["postgres"] = "PostgreSQL: BACCARAT_TEST_POSTGRES_URL as given"
            return
        if os.environ.get(OFF):
            self.postgres_problem = f"{OFF} is set"
            return
        start = time.monotonic()
        done = subprocess.run(["bash", str(POSTGRES_SH)], capture_output=True, text=True, check=False)
        seconds = time.monotonic() - start
        exports = dict(_exports(done.stdout))
        if done.returncode != 0 or URL not in exports or DIR not in exports:
            ours = [line.strip() for line in done.stderr.splitlines() if line.startswith("postgres.sh:")]
            self.postgres_problem = " | ".join(ours) or f"bash .ci/postgres.sh: {_tail(done.stderr) or done.returncode}"
            then = "fail" if os.environ.get("BACCARAT_REQUIRE_POSTGRES") else "skip"
            self.notes["postgres"] = f"PostgreSQL: none ({self.postgres_problem}), its tests {then}"
            return
        self.postgres_dir = exports[DIR]
        os.environ.update(exports)
        version = _read(Path(self.postgres_dir) / "data" / "PG_VERSION")
        port = exports[URL].rsplit(":", 1)[1].split("/", 1)[0]
        self.notes["postgres"] = f"PostgreSQL {version} throw-away server on 127.0.0.1:{port} ({seconds:.1f} s)"

    def provision_browser(self) -> None:
        found = chromium_binary()
        then = "fail" if os.environ.get("BACCARAT_REQUIRE_BROWSER") else "skip"
        self.notes["browser"] = (f"chromium at {found}" if found
                                 else f"no chromium, the browser tests {then}: {HOW_BROWSER}")

    def provision_nginx(self) -> None:
        found = nginx_binary()
        if found:
            self.notes["nginx"] = f"nginx at {found}"
            return
        self.nginx_problem = "not on the PATH"
        then = "fails" if os.environ.get("BACCARAT_REQUIRE_NGINX") else "skips"
        self.notes["nginx"] = f"nginx: none, the reverse-proxy test {then}: {HOW_NGINX}"

    # --- helpers -------------------------------------------------------------------------

    def browser_left_out(self) -> bool:
        """Whether ``-m`` leaves out the tests marked ``browser`` whatever their other marks (the fast loop,
        ``-m "not slow and not browser"``): then there is no chromium to install."""
        expression = self.config.getoption("markexpr", None)
        if not expression:
            return False
        try:
            from _pytest.mark.expression import Expression

            compiled = Expression.compile(expression)
            return not any(compiled.evaluate(lambda name, others=others, **_: name == "browser" or others)
                           for others in (False, True))
        except Exception:  # pytest's expression module is not public: when in doubt, provision
            return False

    def write(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)


def needs_postgres(item: pytest.Item) -> bool:
    """Whether ``item`` runs on PostgreSQL (the ``database_url`` or ``empty_database_url`` fixture's
    ``postgresql`` parameter)."""
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgresql" in (callspec.params.get("database_url"),
                                                     callspec.params.get("empty_database_url"))


def _exports(stdout: str) -> list[tuple[str, str]]:
    """``export NAME='value'`` lines as (NAME, value)."""
    pairs = []
    for line in stdout.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            pairs.append((name, value))
    return pairs


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return "?"
