"""The ``baccarat`` command line (Typer + Rich).

Exit codes: 0 success, 1 runtime error, 2 usage error, 3 verification
mismatch (reserved for ``verify``), 4 unavailable (``serve`` cannot open its
database or data directory, or cannot listen), 130 interrupted.  Errors of the
:class:`~baccarat.core.errors.BaccaratError` family are turned into messages here
(:func:`handle_errors`, with :mod:`baccarat.cli.exits`, which the console script also uses for a
line it answers before Typer loads) and nowhere else.

Each command lives in its own module and imports what it needs when it runs,
so that a quick command (``analyze``) does not pay for the others' imports.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.main import get_command_name

from baccarat import __version__
from baccarat.cli.exits import (
    EXIT_RUNTIME,
    end_early_workers,
    printable_output,
    quick_exit,
    report_error,
    report_interrupted,
)
from baccarat.core.errors import BaccaratError, ConfigurationError, InvalidAmountError

if TYPE_CHECKING:
    from baccarat.core.games import Game

_SETTINGS: dict[str, Any] = {
    "help": "Casino-grade baccarat: mini-baccarat with Dragon Bonus, EZ Baccarat, Lucky Draw Baccarat, and games "
            "from rules files.",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
}
app = typer.Typer(**_SETTINGS)

EXIT_UNAVAILABLE = 4  #: the server cannot start: its database, data directory or address is unavailable
#: Commands whose process may end without the interpreter's clean-up once their output is written
#: (nothing of theirs is left to close): see :func:`main`.
QUICK_EXIT = frozenset({"simulate", "analyze"})


def _game_help() -> str:
    from baccarat.core.registry import game_codes  # the registry: the one list of games

    return f"Which game: {', '.join(game_codes())}, or one that a --rules file defines."


#: The game argument of every command: a code from the registry (checked when the command runs,
#: after its --rules files have added their games).
GameArgument = Annotated[str, typer.Argument(help=_game_help(), show_default=False)]
#: ``--rules FILE``: games from rules files (TOML), added to the registry for this command.
RulesOption = Annotated[list[Path] | None, typer.Option(
    "--rules", dir_okay=False, help="A rules file (TOML) defining a game; may be given more than once.")]


def choose_game(code: str, paytable: int | None, rules: list[Path] | None) -> Game:
    """Load the rules files, then the registered game ``code`` (a usage error names the games)."""
    from baccarat.core.registry import get_game

    if rules:  # the rules files' reader (TOML, the facts vocabulary) only when there are some
        from baccarat.core.rulesfile import load_rules

        for path in rules:
            load_rules(path)
    return get_game(code, paytable=paytable)


class UsageProblem(typer.BadParameter):
    """Bad option values found after parsing (exit code 2)."""


def _version(value: bool) -> None:
    if value:
        print(f"baccarat {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Casino-grade baccarat."""


@contextmanager
def handle_errors() -> Iterator[None]:
    """The one place where errors become messages and exit codes (usage errors are Typer's, exit 2)."""
    try:
        yield
    except KeyboardInterrupt:
        raise typer.Exit(report_interrupted()) from None
    except (ConfigurationError, InvalidAmountError) as error:
        raise UsageProblem(str(error)) from error
    except BaccaratError as error:
        raise typer.Exit(report_error(error)) from error


def command_name(args: list[str]) -> str | None:
    """The command that ``args`` name (the first word that is not an option), if any."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def _app_for(name: str | None) -> typer.Typer:
    """The app that runs command ``name``: one with that command alone, or every command.

    Why: before it parses anything, Typer builds the Click command of every registered command,
    reading each function's signature and evaluating its annotations; for the ten commands that
    was about 25 ms of every run, 10% of ``baccarat analyze``.  Help (no command named), an
    unknown name and the command groups (``audit``) get the whole app, as before.
    """
    for info in app.registered_commands:
        if info.callback is not None and name == (info.name or get_command_name(info.callback.__name__)):
            alone = typer.Typer(**_SETTINGS)
            alone.registered_callback = app.registered_callback  # --version, and the same usage line
            alone.registered_commands = [info]
            return alone
    return app


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``baccarat`` console script; returns the exit code.

    Run as the console script (``argv`` None), ``simulate`` and ``analyze`` end the process as soon
    as their output is flushed, without the interpreter's clean-up (freeing every module, numpy's
    included): that clean-up was 20 to 40 ms of a process that deals for 0.6 s with two workers,
    serial time that kept two workers further from twice one (issue 17).  Their files are closed and
    their worker processes joined before they return.
    """
    args = sys.argv[1:] if argv is None else argv
    name = command_name(args)
    if argv is None:  # this process's own streams (a caller passing argv keeps its own)
        printable_output()
    if argv is None and name in QUICK_EXIT:
        # A short run that ends with os._exit: no cyclic collector.  Its collections walked every
        # object of Typer and numpy again and again while the analysis made its few thousand coups
        # (about 3% of a fresh ``baccarat analyze``, issue 17); what is freed is freed by counting.
        gc.disable()
    try:
        _app_for(name)(args=args, prog_name="baccarat")
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else EXIT_RUNTIME)
    finally:
        end_early_workers()  # workers the console script started, if unclaimed
    if argv is None and name in QUICK_EXIT:
        return quick_exit(code)
    return code


# Registered after ``app`` exists: each module adds its command to it.
from baccarat.cli import analyze, audit, play, roads, rounds, serve, simulate, verify  # noqa: E402

__all__ = ["GameArgument", "RulesOption", "analyze", "app", "audit", "choose_game", "main", "play", "roads",
           "rounds", "serve", "simulate", "verify"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
