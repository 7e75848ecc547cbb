"""How the ``baccarat`` command ends: its run-time messages and exit codes, the quick exit, the
early workers ended; without Typer.

:mod:`baccarat.cli.app` maps errors to these (usage errors are Typer's, exit 2), and the console script
(:mod:`baccarat.cli.console`) uses them for a line it answers before Typer is imported, or when Ctrl-C
comes while Typer loads: saying "interrupted" must not need the import that was interrupted.
"""

from __future__ import annotations

import os
import sys

from baccarat.core.errors import BaccaratError

EXIT_RUNTIME, EXIT_INTERRUPTED = 1, 130  #: a refusal at run time; Ctrl-C (128 + SIGINT, as shells do)


def report_interrupted() -> int:
    """Say that the command was interrupted (Ctrl-C); returns the exit code to end with."""
    print("interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def report_error(error: BaccaratError) -> int:
    """Say what went wrong at run time; returns the exit code to end with."""
    print(f"error: {error}", file=sys.stderr)
    return EXIT_RUNTIME


def printable_output() -> None:
    """Let standard output and error write what their encoding lacks (a suit or a dash to a cp1252 or
    ASCII console, a byte the terminal sent that is not UTF-8) as ``?``: Python's default stops the
    command with an encoding error in the middle of its output."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # (None: started with the stream closed)
        if reconfigure is not None:
            reconfigure(errors="replace")


def quick_exit(code: int) -> int:
    """End the process with ``code`` once its output is flushed, without the interpreter's clean-up
    (freeing every module, numpy's included, one by one); returns ``code`` only when the flush failed
    (a pipe closed meanwhile), leaving the interpreter to report that as usual."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # (None: the process was started with it closed)
                stream.flush()
    except OSError:
        return code
    os._exit(code)


def end_early_workers() -> None:
    """End and wait for the workers the console script started early that no run took
    (:mod:`baccarat.cli.early_workers`; nothing is imported when it was never loaded)."""
    early = sys.modules.get("baccarat.sim.early")
    if early is not None:
        early.release()
