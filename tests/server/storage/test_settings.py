"""The server's settings: read from ``BACCARAT_*`` variables with pydantic-settings, options first, and
a bad value refused in words naming the variable (the command line exits 2 and starts nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from baccarat.core.errors import ConfigurationError
from baccarat.server.storage.settings import DEFAULT_GRANT, Settings

VARIABLES = ("BACCARAT_DATA_DIR", "BACCARAT_DATABASE_URL", "BACCARAT_GRANT", "BACCARAT_BETTING_SECONDS",
             "BACCARAT_PUSHES", "BACCARAT_RESYNC_SECONDS", "BACCARAT_BULK_BETS", "BACCARAT_WS_DEFLATE",
             "BACCARAT_SEAT_GRACE_SECONDS", "BACCARAT_SIT_OUT_ROUNDS", "BACCARAT_ALLOWED_ORIGINS")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_defaults_without_any_variable():
    settings = Settings()
    assert settings.data_dir == Path("baccarat-data") and settings.database_url is None
    assert (settings.grant, settings.betting_seconds, settings.pushes) == (DEFAULT_GRANT, 15.0, "auto")
    assert (settings.bulk_bets, settings.ws_deflate, settings.sit_out_rounds) == (True, False, 5)
    assert settings.allowed_origins == ()


def test_each_variable_is_read_and_the_options_come_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("BACCARAT_DATA_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("BACCARAT_BETTING_SECONDS", "7.5")
    monkeypatch.setenv("BACCARAT_BULK_BETS", "0")
    monkeypatch.setenv("BACCARAT_WS_DEFLATE", "1")
    monkeypatch.setenv("BACCARAT_PUSHES", "poll")
    monkeypatch.setenv("BACCARAT_SIT_OUT_ROUNDS", "3")
    monkeypatch.setenv("BACCARAT_DATABASE_URL", "  ")  # empty: SQLite in the data directory
    settings = Settings()
    assert (settings.data_dir, settings.betting_seconds) == (tmp_path / "env", 7.5)
    assert (settings.bulk_bets, settings.ws_deflate, settings.pushes) == (False, True, "poll")
    assert settings.sit_out_rounds == 3
    assert settings.database_url is None and settings.url.startswith("sqlite:///")
    chosen = Settings.from_options(data_dir=tmp_path / "option", betting_seconds=2.0)
    assert (chosen.data_dir, chosen.betting_seconds, chosen.pushes) == (tmp_path / "option", 2.0, "poll")


@pytest.mark.parametrize(("variable", "value", "words"), [
    ("BACCARAT_BETTING_SECONDS", "soon", "BACCARAT_BETTING_SECONDS: 'soon' is not a number of seconds (e.g. 15)"),
    ("BACCARAT_BETTING_SECONDS", "0", "BACCARAT_BETTING_SECONDS: '0' is too small: give more than 0"),
    ("BACCARAT_SIT_OUT_ROUNDS", "2.5", "BACCARAT_SIT_OUT_ROUNDS: '2.5' is not a whole number of rounds (e.g. 5)"),
    ("BACCARAT_SIT_OUT_ROUNDS", "0", "BACCARAT_SIT_OUT_ROUNDS: '0' is too small: give 1 or more"),
    ("BACCARAT_PUSHES", "push", "BACCARAT_PUSHES: 'push' is not auto or poll"),
    ("BACCARAT_BULK_BETS", "maybe", "BACCARAT_BULK_BETS: 'maybe' is not 1 (on) or 0 (off)"),
    ("BACCARAT_GRANT", "-5", "BACCARAT_GRANT: '-5' is too small: give 0 or more"),
])
def test_a_bad_value_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch, variable, value, words):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as refused:
        Settings()
    assert str(refused.value) == words


def test_a_bad_option_is_refused_naming_the_option():
    with pytest.raises(ConfigurationError, match=r"^betting_seconds: -1\.0 is too small: give more than 0$"):
        Settings(betting_seconds=-1.0)


@pytest.mark.slow
def test_serve_with_a_bad_variable_says_so_and_starts_nothing(tmp_path: Path):
    code = "import sys; from baccarat.cli.app import main; sys.argv[0] = 'baccarat'; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", code, "serve", "--data-dir", str(tmp_path)], capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "BACCARAT_PUSHES": "push"})
    assert done.returncode == 2 and "BACCARAT_PUSHES: 'push' is not auto or poll" in done.stderr
    assert not (tmp_path / "baccarat.sqlite3").exists()
