"""``baccarat analyze``: exact return tables of every wager for any shoe (``specs/analysis.md``)."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated

import typer

from baccarat.cli import GameCode, UsageProblem, app, handle_errors
from baccarat.presets import get_game
from baccarat.shoe import DEFAULT_DECKS


class StrategyChoice(StrEnum):
    composition = "composition"
    total = "total"


@app.command()
def analyze(
    game: Annotated[GameCode, typer.Argument(help="Which game: mini, ez or lucky-draw.")],
    decks: Annotated[int | None, typer.Option(help=f"Full decks in the shoe (default {DEFAULT_DECKS}).")] = None,
    shoe: Annotated[str | None, typer.Option(
        help="A partly dealt shoe: ten counts A,2,3,4,5,6,7,8,9,T (T = tens and pictures).")] = None,
    paytable: Annotated[int | None, typer.Option(help="Lucky Draw DrawWin pay table: 1 or 2.")] = None,
    strategy: Annotated[StrategyChoice, typer.Option(
        help="Lucky Draw: the Draw decision the Enter table follows.")] = StrategyChoice.composition,
    eor: Annotated[bool, typer.Option("--eor", help="Add the effect of removal of each card value.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Write JSON to stdout instead of tables.")] = False,
) -> None:
    """Exact probabilities, house edge, standard deviation and hit frequency of every wager.

    Counts are six-card-convention combinations (Block Bonus: ordered three-card
    sequences).  Lucky Draw adds the optimal Draw strategy and its strategy card.
    """
    # Imported here: numpy and the analyzer are not needed by the other commands.
    from baccarat.analysis.analyze import analyze as run_analysis
    from baccarat.analysis.composition import Composition
    from baccarat.analysis.report import analysis_json, format_analysis

    with handle_errors():
        if shoe is not None and decks is not None:
            raise UsageProblem("give --decks or --shoe, not both")
        chosen = get_game(game.value, paytable=paytable)
        if strategy is not StrategyChoice.composition and chosen.kind != "lucky_draw":
            raise UsageProblem("--strategy applies to lucky-draw only")
        if shoe is not None:
            composition = Composition.parse(shoe)
        else:
            composition = Composition.full(DEFAULT_DECKS if decks is None else decks)
        result = run_analysis(chosen, composition, strategy=strategy.value, eor=eor)
    if as_json:
        sys.stdout.write(json.dumps(analysis_json(result), indent=2) + "\n")
    else:
        sys.stdout.write(format_analysis(result))
