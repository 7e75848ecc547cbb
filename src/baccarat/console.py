"""The ``baccarat`` console script.

Before the command line (:mod:`baccarat.cli`: Typer and the command modules, about a third of a
run's start-up) is imported, a plain ``analyze`` command line is answered without it
(:mod:`baccarat.analysis.command`: the same checks and the same output, anything else or anything
refused left to Typer), and a plain ``simulate`` run with several workers loads numpy, the kernels
and the tables and forks its workers (:mod:`baccarat.sim.early`), so that they deal while this
process reads the command line; everything else goes straight to :func:`baccarat.cli.main`.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Entry point of the ``baccarat`` console script; returns the exit code."""
    import gc

    # No cyclic collector while the modules load: its collections walked numpy's and Typer's objects
    # again and again (about 3% of a fresh ``baccarat analyze``).  Turned back on for the commands
    # that do not end as soon as their output is written (baccarat.cli.main keeps it off for those).
    gc.disable()
    from baccarat.analysis.command import early_text

    try:
        text = early_text(sys.argv[1:])
    except KeyboardInterrupt:  # said as the command line says it (and only then is it imported)
        from baccarat.cli import report_interrupted

        return report_interrupted()
    if text is not None:
        return _quick_exit(text)
    from baccarat.sim import early

    spec = early.read_command_line(sys.argv[1:])
    if spec is not None:
        early.start(spec)
    from baccarat.cli import QUICK_EXIT, command_name
    from baccarat.cli import main as command_line

    if command_name(sys.argv[1:]) not in QUICK_EXIT:
        gc.enable()
    return command_line()


def _quick_exit(text: str) -> int:
    """Write ``text`` and end the process without the interpreter's clean-up, as ``cli.main`` does."""
    import os

    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError:  # a closed pipe: let the interpreter report it as usual
        return 0
    os._exit(0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
