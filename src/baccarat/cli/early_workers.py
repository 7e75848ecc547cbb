"""Workers started before the command line is read: ``baccarat simulate ... --workers K`` deals sooner.

A run with K workers cannot be faster than its serial start plus its dealing over K, and that start
(Python, Typer and the command modules, numpy, the kernels and tables) is a large part of a short run.
Typer and the command modules, a good part of it, are needed by this process only.  So the console
script (:mod:`baccarat.cli.console`) reads a plain ``simulate`` command line itself, before importing
them; when it names everything a run needs (the game, ``--shoes``, ``--seed``, optionally ``--workers``,
``--decks``, ``--cut-card`` and ``--json``) and two workers or more, it loads numpy, the kernels and the
tables and forks the workers as :func:`baccarat.sim.run._local` would, and they deal while this process
goes on: it answers the line itself when it can (:func:`baccarat.cli.simulate_text.early_text`), else it
imports Typer and parses the command line as always.

Nothing depends on that first reading being right.  When the run starts,
:func:`baccarat.sim.early.claim` compares the
parsed :class:`~baccarat.sim.run.Plan` and worker count with the workers': the same, their results
are taken (the same chunks, added up in chunk order: the same result to the bit); otherwise, or if
the command never gets that far (a usage error, help), the workers are ended
(:func:`baccarat.sim.early.release`) and
the run goes on as before.  Whatever the early start cannot do (a Lucky Draw game, which needs its
strategy; a game from a rules file; another option), it leaves to the command line.
"""

from __future__ import annotations

from typing import cast

from baccarat.cli.analyze_text import read_plain_line
from baccarat.cli.simulate_text import SimulateLine, plain_plan
from baccarat.sim import early
from baccarat.sim.early import MAX_WORKERS, MIN_WORKERS

#: Options read here: name -> plan field; their values are whole numbers.
_NUMBERS = {"--shoes": "shoes", "--seed": "seed", "--workers": "workers", "--decks": "decks",
            "--cut-card": "cut_card"}
_FLAGS = {"--json": "as_json"}
_REQUIRED = ("game", "shoes", "seed")
#: Longer numbers are left to Typer: none of these options takes one (a seed has 63 bits).
MAX_DIGITS = 19

def read_command_line(args: list[str]) -> SimulateLine | None:
    """The run a plain ``simulate`` command line names, or None (anything else is Typer's to read).

    >>> read_command_line(["simulate", "ez", "--shoes", "600000", "--seed=1", "--workers", "2", "--json"])
    {'game': 'ez', 'shoes': 600000, 'seed': 1, 'workers': 2, 'as_json': True}
    >>> read_command_line(["simulate", "ez", "--shoes", "600000"]) is None  # a random seed: Typer's
    True
    >>> read_command_line(["simulate", "ez", "--shoes", "9", "--seed", "1", "--workers", "2", "--count", "x"])
    """
    plain = read_plain_line(args, "simulate", numbers=_NUMBERS, flags=_FLAGS, max_digits=MAX_DIGITS,
                            repeated_flags=True)  # (Typer takes --json twice)
    if plain is None:
        return None
    spec = cast(SimulateLine, plain)  # the fields _NUMBERS and _FLAGS name, and the game
    if any(name not in spec for name in _REQUIRED) or not MIN_WORKERS <= spec.get("workers", 1) <= MAX_WORKERS:
        return None  # nothing forked for a worker count Typer refuses
    return spec


def start(spec: SimulateLine) -> None:
    """Load what the workers need and fork them for the run ``spec`` names, if it is one they can deal
    (held by :mod:`baccarat.sim.early` until the run claims them)."""
    if spec.get("workers", 1) < 2:
        return
    from baccarat.cli.analyze_text import single_threaded_blas

    single_threaded_blas()  # before numpy, as the command does
    from baccarat.sim import run

    try:
        plan = plain_plan(spec)  # the command's own plan: what claim compares it with
        if plan is None or plan.chunks < 2:
            return
        started = run.start_workers(plan, spec["workers"], run.run_chunk)
        early.hold(plan, spec["workers"], started, chunk=run.run_chunk, stop=run.stop_workers)
    except Exception:  # whatever is wrong, the command line will find it and say so
        return
