"""The ``baccarat`` command line.

:mod:`baccarat.cli.console` is the console script: it answers a plain ``analyze`` or ``simulate``
line before Typer is imported and hands everything else to the Typer app (:mod:`baccarat.cli.app`).
Each command lives in its own module; the terminal session, its rendering and scripted play are
here too, since only the command line uses them.  This package's ``__init__`` imports nothing, so
that the console script's quick paths do not pay for Typer.
"""
