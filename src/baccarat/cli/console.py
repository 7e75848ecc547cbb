"""The ``baccarat`` console script.

Before the command line (:mod:`baccarat.cli.app`: Typer and the command modules, a noticeable part of
every run's start-up) is imported, a plain ``analyze`` or ``simulate`` command line is answered without it
(:mod:`baccarat.cli.analyze_text`, :mod:`baccarat.cli.simulate_text`: the same checks and the same
output, anything else or anything refused left to Typer), and a plain ``simulate`` run with several
workers forks its workers first (:mod:`baccarat.cli.early_workers`), so that they deal while this process
goes on; everything else goes straight to :func:`baccarat.cli.app.main`.
"""

from __future__ import annotations

import errno
import os
import sys

from baccarat.cli.exits import end_early_workers, printable_output, quick_exit, report_error, report_interrupted
from baccarat.core.errors import BaccaratError, ConfigurationError, InvalidAmountError

#: Set by a shell asking Click for completions: Click answers that before any command runs.
_COMPLETION = "_BACCARAT_COMPLETE"


def main() -> int:
    """Entry point of the ``baccarat`` console script; returns the exit code."""
    import gc

    # No cyclic collector while the modules load: its collections walked numpy's and Typer's objects
    # again and again, for nothing.  Turned back on for the commands
    # that do not end as soon as their output is written (baccarat.cli.app.main keeps it off for those).
    gc.disable()
    printable_output()
    try:
        try:
            text = _early(sys.argv[1:])
        except (ConfigurationError, InvalidAmountError):
            # Typer words these as usage errors (exit 2): it reads the line again and says so.  Nothing
            # was printed (a command's output comes at its end) and the early workers are ended first.
            end_early_workers()
            text = None
        except BaccaratError as error:
            return report_error(error)
        if text is not None:
            return _quick_exit(text)
        from baccarat.cli.app import command_name
        from baccarat.cli.app import main as command_line
        from baccarat.cli.common import QUICK_EXIT

        if command_name(sys.argv[1:]) not in QUICK_EXIT:
            gc.enable()
        return command_line()
    except KeyboardInterrupt:  # before a command's own handling (while Typer loads): said as it says it
        return report_interrupted()
    finally:
        end_early_workers()  # workers started early and never taken (whatever ended this), waited for


def _early(args: list[str]) -> str | None:
    """What a plain ``analyze`` or ``simulate`` line prints, answered without Typer; else None (a plain
    multi-worker ``simulate`` that is left to Typer has its workers started, for Typer's run to take)."""
    if _COMPLETION in os.environ:
        return None
    from baccarat.cli.analyze_text import early_text

    text = early_text(args)
    if text is not None or not args or args[0] != "simulate":
        return text
    from baccarat.cli import early_workers as early
    from baccarat.cli import simulate_text as command

    spec = early.read_command_line(args)
    if spec is not None:
        early.start(spec)
    return command.early_text(spec)


def _quick_exit(text: str) -> int:
    """Write ``text`` and end the process without the interpreter's clean-up, as ``cli.main`` does."""
    try:
        sys.stdout.write(text)
    except OSError as error:
        if error.errno != errno.EPIPE:
            raise
        os._exit(1)  # a closed pipe: silently and 1, as Click ends a command whose output fails so
    return quick_exit(0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
