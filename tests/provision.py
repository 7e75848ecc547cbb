"""What the test command provisions by itself, so that ``python -m pytest`` runs the whole suite.

A pytest plugin (registered by ``tests/conftest.py``), for the two kinds of test that need more
than the Python packages:

- the PostgreSQL half of the server's database tests (the ``database_url`` fixture's
  ``postgresql`` parameter): when some selected test needs it and ``BACCARAT_TEST_POSTGRES_URL`` is
  not set, it starts a throw-away server with ``.ci/postgres.sh`` (which, as root, installs Debian's
  ``postgresql`` with apt-get if need be) on a free port, exports its URL for the session, and
  stops it and removes its files at the end;
- the browser tests (``tests/test_browser*.py``): when they are collected and there is no
  ``chromium`` on the PATH, it installs Debian's ``chromium`` with apt-get (as root);
- the reverse-proxy test (a test that asks for the ``nginx`` fixture): when one is selected and there is
  no ``nginx``, it installs Debian's ``nginx`` with apt-get (as root); the test runs nginx itself, on a
  configuration and a prefix of its own, not the package's service.

It reports what it did in one line before the tests run. ``BACCARAT_NO_PROVISION=1`` turns it off.
Under pytest-xdist (``-n 2``) each worker provisions for the tests it runs (a PostgreSQL server of its
own, stopped when the worker ends), and the controller reports each worker's line when it is done.
What it cannot provision (not root, no apt-get, an install that fails) is skipped with a reason
that says how to provision it by hand, unless ``BACCARAT_REQUIRE_POSTGRES`` /
``BACCARAT_REQUIRE_BROWSER`` / ``BACCARAT_REQUIRE_NGINX`` is set (as ``.ci/run`` sets them): then those
tests fail.
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
    'start one with `eval "$(bash .ci/postgres.sh)"` (as root it installs Debian\'s postgresql; '
    "otherwise install PostgreSQL first), or set BACCARAT_TEST_POSTGRES_URL to a server where you may "
    "CREATE DATABASE (postgresql+psycopg://USER@HOST:PORT/DB)"
)
HOW_BROWSER = "apt-get install chromium (as root), or put a chromium on the PATH"
HOW_NGINX = "apt-get install nginx (as root), or put an nginx on the PATH"
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


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _initdb() -> bool:
    return any(Path("/usr/lib/postgresql").glob("*/bin/initdb")) or shutil.which("initdb") is not None


def _tail(text: str, lines: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:] if line.strip())


class Provisioner:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.notes: dict[str, str] = {}  # "postgres", "browser": what was done
        self.postgres_problem: str | None = None
        self.postgres_dir: str | None = None
        self.nginx_problem: str | None = None
        self.apt_updated = False
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
        install = not _initdb()
        if install and self.cannot_install() is None:
            self.write("installing Debian's postgresql with apt-get for the PostgreSQL tests ...")
        env = dict(os.environ, **({"BACCARAT_APT_UPDATED": "1"} if self.apt_updated else {}))
        start = time.monotonic()
        done = subprocess.run(["bash", str(POSTGRES_SH)], capture_output=True, text=True, env=env, check=False)
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
        how = "installed with apt-get, " if install else ""
        self.notes["postgres"] = f"PostgreSQL {version} throw-away server on 127.0.0.1:{port} ({how}{seconds:.1f} s)"

    def provision_browser(self) -> None:
        found = _chromium()
        if found:
            self.notes["browser"] = f"chromium already at {found}" + self.provision_chinese_font()
            return
        why = f"{OFF} is set" if os.environ.get(OFF) else self.cannot_install()
        if why is None:
            self.write("installing Debian's chromium with apt-get for the browser tests ...")
            start = time.monotonic()
            why = self.apt_install("chromium")
            found = _chromium()
            if why is None and found:
                self.notes["browser"] = (f"chromium installed with apt-get ({time.monotonic() - start:.0f} s)"
                                         + self.provision_chinese_font())
                return
        then = "fail" if os.environ.get("BACCARAT_REQUIRE_BROWSER") else "skip"
        self.notes["browser"] = (f"chromium: none ({why or 'not on the PATH after the install'}), "
                                 f"the browser tests {then}: {HOW_BROWSER}")

    def provision_nginx(self) -> None:
        found = nginx_binary()
        if found:
            self.notes["nginx"] = f"nginx already at {found}"
            return
        why = f"{OFF} is set" if os.environ.get(OFF) else self.cannot_install()
        if why is None:
            self.write("installing Debian's nginx with apt-get for the reverse-proxy test ...")
            start = time.monotonic()
            why = self.apt_install("nginx")
            if why is None and nginx_binary():
                self.notes["nginx"] = f"nginx installed with apt-get ({time.monotonic() - start:.0f} s)"
                return
        self.nginx_problem = why or "not on the PATH after the install"
        then = "fails" if os.environ.get("BACCARAT_REQUIRE_NGINX") else "skips"
        self.notes["nginx"] = f"nginx: none ({self.nginx_problem}), the reverse-proxy test {then}: {HOW_NGINX}"

    def provision_chinese_font(self) -> str:
        """A font with Chinese characters, so that the Simplified Chinese screenshots can be read (the tests
        themselves read the page's text, not its pixels); a note for the report line."""
        fc_list = shutil.which("fc-list")
        if fc_list is None or subprocess.run([fc_list, ":lang=zh"], capture_output=True, text=True,
                                             check=False).stdout.strip():
            return ""
        why = f"{OFF} is set" if os.environ.get(OFF) else self.cannot_install()
        why = why or self.apt_install("fonts-wqy-microhei")
        return f", no Chinese font for the screenshots ({why})" if why else ", Chinese font installed with apt-get"

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

    @staticmethod
    def cannot_install() -> str | None:
        """Why apt-get cannot install packages here; None when it can."""
        if getattr(os, "geteuid", lambda: -1)() != 0:
            return "not root, so no apt-get install"
        if shutil.which("apt-get") is None:
            return "no apt-get"
        return None

    def apt_install(self, package: str) -> str | None:
        """Install a Debian package; None when done, else why not."""
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        steps = [] if self.apt_updated else [["apt-get", "update", "-qq"]]
        for command in [*steps, ["apt-get", "install", "-y", "-qq", package]]:
            done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                return f"`{' '.join(command)}` failed: {_tail(done.stderr) or done.returncode}"
            if command[1] == "update":
                self.apt_updated = True
        return None

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
