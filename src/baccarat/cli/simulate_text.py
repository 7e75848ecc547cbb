"""What ``baccarat simulate`` deals and prints, and a plain ``simulate`` line answered without Typer.

:func:`plan_for` and :func:`result_text` are the command's run and output; :mod:`baccarat.cli.simulate`
calls them once Typer has parsed and checked the command line.

Typer and the command modules are a noticeable part of every ``baccarat simulate`` process's start-up,
which should be short.  So the console script (:mod:`baccarat.cli.console`) first gives the command line
to :func:`early_text`: a plain line (:func:`baccarat.cli.early_workers.read_command_line`: a game,
``--shoes``, ``--seed`` and optionally ``--workers``, ``--decks``, ``--cut-card``, ``--json``) of a
punto banco game, with no progress bar to draw (standard error not a terminal), is run here with the
same plan and the same output; the workers :mod:`baccarat.cli.early_workers` forked are claimed as the
command would claim them.  Anything else, and anything refused, goes to Typer as before, so every
refusal is worded and coded in one place.  ``tests/cli/test_cli_startup.py`` compares the two outputs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypedDict

from baccarat.core.errors import ConfigurationError

if TYPE_CHECKING:
    from baccarat.core.games import Game
    from baccarat.sim.run import ChunkResult, Plan


class SimulateLine(TypedDict, total=False):
    """A plain ``simulate`` line's run (:func:`baccarat.cli.early_workers.read_command_line`): always a game,
    ``shoes`` and ``seed``."""

    game: str
    shoes: int
    seed: int
    workers: int
    decks: int
    cut_card: int
    as_json: bool


def plan_for(game: Game, *, shoes: int, seed: int, decks: int, cut_card: int, strategy: str) -> Plan:
    """The run of ``shoes`` shoes of ``game``; Lucky Draw's seats follow ``strategy`` (the command's
    ``--strategy``), which is refused for punto banco games."""
    from baccarat.sim.outcome_tables import strategy_draws
    from baccarat.sim.run import Plan

    draws = None
    if game.kind == "lucky_draw":
        draws = strategy_draws(game, decks, strategy).tobytes()
    elif strategy != "composition":
        raise ConfigurationError("--strategy applies to lucky-draw only")
    return Plan(game.code, shoes, seed, decks=decks, cut_card=cut_card, paytable=game.paytable, draws=draws)


def result_text(game: Game, plan: Plan, totals: ChunkResult, *, as_json: bool) -> str:
    """The run's report (or its JSON): every wager's events, mean, interval and exact value."""
    from baccarat.sim.results import format_result, result_json, summarize

    result = summarize(game, plan, totals)
    if as_json:
        import json

        return json.dumps(result_json(result), indent=2, allow_nan=False) + "\n"
    return format_result(result)


def plain_plan(spec: SimulateLine) -> Plan | None:
    """The plan of the plain line ``spec`` (:func:`baccarat.cli.early_workers.read_command_line`), as the
    command makes it; None for a game that is not punto banco (Lucky Draw's strategy is the command's).
    Raises what :func:`plan_for` raises for a run the command refuses."""
    from baccarat.core.registry import get_game
    from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS

    game = get_game(spec["game"])
    if game.kind != "punto_banco":
        return None
    return plan_for(game, shoes=spec["shoes"], seed=spec["seed"], decks=spec.get("decks", DEFAULT_DECKS),
                    cut_card=spec.get("cut_card", DEFAULT_CUT_CARD), strategy="composition")


def early_text(spec: SimulateLine | None) -> str | None:
    """What the plain ``simulate`` line ``spec`` prints (:func:`baccarat.cli.early_workers.read_command_line`),
    or None when it is left to the command line (a Lucky Draw game, a progress bar to draw, anything
    refused)."""
    if spec is None or sys.stderr is None or sys.stderr.isatty():
        return None  # a progress bar to draw (or no standard error at all): the command line's
    from baccarat.cli.analyze_text import single_threaded_blas

    single_threaded_blas()
    from baccarat.core.registry import get_game
    from baccarat.sim.run import run

    try:
        plan = plain_plan(spec)
    except Exception:  # whatever is wrong, the command line will find it and say so
        return None
    if plan is None:
        return None
    return result_text(get_game(plan.game), plan, run(plan, workers=spec.get("workers", 1)),
                       as_json=spec.get("as_json", False))
