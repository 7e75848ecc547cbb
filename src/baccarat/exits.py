"""How the ``baccarat`` command ends at run time: its messages and exit codes, without Typer.

:mod:`baccarat.cli` maps errors to these (usage errors are Typer's, exit 2), and the console script
(:mod:`baccarat.console`) uses them for a line it answers before Typer is imported, or when Ctrl-C
comes while Typer loads: saying "interrupted" must not need the import that was interrupted.
"""

from __future__ import annotations

import sys

from baccarat.errors import BaccaratError

EXIT_RUNTIME, EXIT_INTERRUPTED = 1, 130  #: a refusal at run time; Ctrl-C (128 + SIGINT, as shells do)


def report_interrupted() -> int:
    """Say that the command was interrupted (Ctrl-C); returns the exit code to end with."""
    print("interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def report_error(error: BaccaratError) -> int:
    """Say what went wrong at run time; returns the exit code to end with."""
    print(f"error: {error}", file=sys.stderr)
    return EXIT_RUNTIME
