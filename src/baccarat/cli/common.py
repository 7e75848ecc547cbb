"""What every command shares: the Typer app they register on, the game argument and ``--rules``
option, and the one place where errors of the :class:`~baccarat.core.errors.BaccaratError` family
become messages and exit codes (:func:`handle_errors`, with :mod:`baccarat.cli.exits`, which the
console script also uses for a line it answers before Typer loads).

Exit codes: 0 success, 1 runtime error, 2 usage error, 3 verification mismatch (``verify``),
4 unavailable (``serve`` cannot open its database or data directory, or cannot listen),
130 interrupted.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypedDict

import typer

from baccarat import __version__
from baccarat.cli.exits import (
    report_error,
    report_interrupted,
)
from baccarat.core.errors import BaccaratError, ConfigurationError, InvalidAmountError

if TYPE_CHECKING:
    from baccarat.core.games import Game

class TyperSettings(TypedDict):
    """The settings of the Typer app (and of a command's own app, see :mod:`baccarat.cli.app`)."""

    help: str
    no_args_is_help: bool
    add_completion: bool
    pretty_exceptions_enable: bool


TYPER_SETTINGS: TyperSettings = {
    "help": "Casino-grade baccarat: mini-baccarat with Dragon Bonus, EZ Baccarat, Lucky Draw Baccarat, and games "
            "from rules files.",
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
}
app = typer.Typer(**TYPER_SETTINGS)
#: The arguments of the command being run (after ``baccarat``), for reports that state their command line.
INVOCATION: list[str] = []

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
