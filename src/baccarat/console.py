"""The ``baccarat`` console script.

Before the command line (:mod:`baccarat.cli`: Typer and the command modules, about a third of a
run's start-up) is imported, a plain ``simulate`` run with several workers loads numpy, the kernels
and the tables and forks its workers (:mod:`baccarat.sim.early`), so that they deal while this
process reads the command line; everything else goes straight to :func:`baccarat.cli.main`.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Entry point of the ``baccarat`` console script; returns the exit code."""
    from baccarat.sim import early

    spec = early.read_command_line(sys.argv[1:])
    if spec is not None:
        early.start(spec)
    from baccarat.cli import main as command_line

    return command_line()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
