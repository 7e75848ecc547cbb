"""The ``baccarat`` console script.

Before the command line (:mod:`baccarat.cli`: Typer and the command modules, about a third of a
run's start-up) is imported, a plain ``analyze`` or ``simulate`` command line is answered without it
(:mod:`baccarat.analysis.command`, :mod:`baccarat.sim.command`: the same checks and the same
output, anything else or anything refused left to Typer), and a plain ``simulate`` run with several
workers forks its workers first (:mod:`baccarat.sim.early`), so that they deal while this process
goes on; everything else goes straight to :func:`baccarat.cli.main`.
"""

from __future__ import annotations

import sys

from baccarat.errors import BaccaratError


def main() -> int:
    """Entry point of the ``baccarat`` console script; returns the exit code."""
    import gc

    # No cyclic collector while the modules load: its collections walked numpy's and Typer's objects
    # again and again (about 3% of a fresh ``baccarat analyze``).  Turned back on for the commands
    # that do not end as soon as their output is written (baccarat.cli.main keeps it off for those).
    gc.disable()
    try:
        text = _early(sys.argv[1:])
    except (KeyboardInterrupt, BaccaratError) as error:  # said as the command line says it
        early = sys.modules.get("baccarat.sim.early")  # workers started and not yet taken, if any
        if early is not None:
            early.release()
        from baccarat.cli import report_error, report_interrupted

        return report_error(error) if isinstance(error, BaccaratError) else report_interrupted()
    if text is not None:
        return _quick_exit(text)
    from baccarat.cli import QUICK_EXIT, command_name
    from baccarat.cli import main as command_line

    if command_name(sys.argv[1:]) not in QUICK_EXIT:
        gc.enable()
    return command_line()


def _early(args: list[str]) -> str | None:
    """What a plain ``analyze`` or ``simulate`` line prints, answered without Typer; else None (a plain
    multi-worker ``simulate`` that is left to Typer has its workers started, for Typer's run to take)."""
    from baccarat.analysis.command import early_text

    text = early_text(args)
    if text is not None or not args or args[0] != "simulate":
        return text
    from baccarat.sim import command, early

    spec = early.read_command_line(args)
    if spec is not None:
        early.start(spec)
    return command.early_text(spec)


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
