"""The ``baccarat`` command line (Typer + Rich): :func:`main` runs the command a command line names.

Each command lives in its own module, registered on the app of :mod:`baccarat.cli.common`, and
imports what it needs when it runs, so that a quick command (``analyze``) does not pay for the
others' imports.
"""
from __future__ import annotations

import gc
import sys

import typer
from typer.main import get_command_name

from baccarat.cli import (
    analyze,
    audit,
    backup,
    certify,
    ledger,
    migrate,
    play,
    roads,
    rounds,
    seeds,
    serve,
    simulate,
    verify,
)
from baccarat.cli.common import INVOCATION, QUICK_EXIT, TYPER_SETTINGS, app
from baccarat.cli.exits import EXIT_RUNTIME, end_early_workers, printable_output, quick_exit


def command_name(args: list[str]) -> str | None:
    """The command that ``args`` name (the first word that is not an option), if any."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def _app_for(name: str | None) -> typer.Typer:
    """The app that runs command ``name``: one with that command alone, or every command.

    Why: before it parses anything, Typer builds the Click command of every registered command,
    reading each function's signature and evaluating its annotations, for every command, on every run,
    though a run needs one.  Help (no command named), an
    unknown name and the command groups (``audit``) get the whole app, as before.
    """
    for info in app.registered_commands:
        if info.callback is not None and name == (info.name or get_command_name(info.callback.__name__)):
            alone = typer.Typer(**TYPER_SETTINGS)
            alone.registered_callback = app.registered_callback  # --version, and the same usage line
            alone.registered_commands = [info]
            return alone
    return app


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``baccarat`` console script; returns the exit code.

    Run as the console script (``argv`` None), ``simulate`` and ``analyze`` end the process as soon
    as their output is flushed, without the interpreter's clean-up (freeing every module, numpy's
    included): that clean-up is serial time, which keeps a run with two workers further from twice as
    fast as one.  Their files are closed and
    their worker processes joined before they return.
    """
    args = sys.argv[1:] if argv is None else argv
    name = command_name(args)
    if argv is None:  # this process's own streams (a caller passing argv keeps its own)
        printable_output()
    if argv is None and name in QUICK_EXIT:
        # A short run that ends with os._exit: no cyclic collector.  Its collections walked every
        # object of Typer and numpy again and again while the analysis made its coups, for nothing;
        # what is freed is freed by counting.
        gc.disable()
    INVOCATION[:] = args
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


#: The commands, each registered on :data:`~baccarat.cli.common.app` when its module is imported.
COMMANDS = (analyze, audit, backup, certify, ledger, migrate, play, roads, rounds, seeds, serve, simulate, verify)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
