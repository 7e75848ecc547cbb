"""The command line's start-up and exit shortcuts (issue 17): one command built, a quick exit."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from baccarat.cli import _app_for, app, main

CONSOLE = "import sys; from baccarat.cli import main; sys.argv = ['baccarat', *sys.argv[1:]]; sys.exit(main())"


def _console(*args: str) -> subprocess.CompletedProcess[str]:
    """``baccarat ARGS`` as the console script runs it (``main()`` with no arguments)."""
    return subprocess.run([sys.executable, "-c", CONSOLE, *args], capture_output=True, text=True, timeout=120)


def test_a_named_command_is_built_alone_and_anything_else_gets_every_command():
    alone = _app_for("void-round")
    assert [info.callback.__name__ for info in alone.registered_commands if info.callback] == ["void_round"]
    assert alone.registered_callback is app.registered_callback  # --version still works before the command
    for other in (None, "audit", "no-such-command"):
        assert _app_for(other) is app


def test_the_command_alone_parses_and_refuses_as_before(capsys: pytest.CaptureFixture[str]):
    assert main(["simulate", "--help"]) == 0
    assert "Usage: baccarat simulate [OPTIONS]" in capsys.readouterr().out
    assert main(["simulate", "ez", "--shoes", "0"]) == 2
    assert main(["--version", "simulate"]) == 0
    assert capsys.readouterr().out.startswith("baccarat ")
    assert main(["simulat", "ez"]) == 2
    assert "No such command" in capsys.readouterr().err


def test_the_console_scripts_quick_exit_writes_everything_and_keeps_the_exit_code(capsys: pytest.CaptureFixture[str]):
    args = ["simulate", "ez", "--shoes", "30", "--seed", "5", "--workers", "2", "--json"]
    assert main(args) == 0
    in_process = json.loads(capsys.readouterr().out)
    done = _console(*args)
    assert done.returncode == 0 and json.loads(done.stdout) == in_process
    refused = _console("simulate", "ez", "--shoes", "0")
    assert refused.returncode == 2 and "--shoes" in refused.stderr
    analysed = _console("analyze", "mini", "--decks", "8")
    assert analysed.returncode == 0 and analysed.stdout.startswith("Mini-Baccarat, 8 decks")
