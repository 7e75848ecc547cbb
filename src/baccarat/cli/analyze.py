"""``baccarat analyze``: exact return tables of every wager for any shoe (``specs/analysis.md``)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from baccarat.cli.analyze_text import STRATEGIES
from baccarat.cli.common import GameArgument, RulesOption, UsageProblem, app, choose_game, handle_errors
from baccarat.core.shoe import DEFAULT_DECKS

if TYPE_CHECKING:
    from baccarat.analysis.lucky_draw import StrategyKind
    from baccarat.core.games import Game


#: ``--strategy``'s choices, from the one list (:data:`baccarat.cli.analyze_text.STRATEGIES`).
StrategyChoice = StrEnum("StrategyChoice", {name: name for name in STRATEGIES})  # type: ignore[misc]
_OPTIMAL = StrategyChoice(STRATEGIES[0])


@app.command()
def analyze(
    game: GameArgument,
    decks: Annotated[int | None, typer.Option(help=f"Full decks in the shoe (default {DEFAULT_DECKS}).")] = None,
    shoe: Annotated[str | None, typer.Option(
        help="A partly dealt shoe: ten counts A,2,3,4,5,6,7,8,9,T (T = tens and pictures).")] = None,
    paytable: Annotated[int | None, typer.Option(help="Lucky Draw DrawWin pay table: 1 or 2.")] = None,
    rules: RulesOption = None,
    strategy: Annotated[StrategyChoice, typer.Option(
        help="Lucky Draw: the Draw decision the Enter table follows.")] = _OPTIMAL,
    eor: Annotated[bool, typer.Option("--eor", help="Add the effect of removal of each card value.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Write JSON to stdout instead of tables.")] = False,
    report: Annotated[Path | None, typer.Option(
        dir_okay=False, help="Write the game's PAR sheet (one self-contained HTML page) to this file.")] = None,
    report_shoes: Annotated[int, typer.Option(min=0, help="PAR sheet: shoes simulated to confirm the edges.")]
    = 20_000,
    report_count_shoes: Annotated[int, typer.Option(
        min=0, help="PAR sheet: shoes per count trigger tried (0: no count study).")] = 5_000,
) -> None:
    """Exact probabilities, house edge, standard deviation and hit frequency of every wager.

    Counts are six-card-convention combinations (Block Bonus: ordered three-card
    sequences).  Lucky Draw adds the optimal Draw strategy and its strategy card.
    """
    from baccarat.cli.analyze_text import report_text  # no numpy: a kept report needs none

    with handle_errors():
        if shoe is not None and decks is not None:
            raise UsageProblem("give --decks or --shoe, not both")
        chosen = choose_game(game, paytable, rules)
        if strategy.value != STRATEGIES[0] and chosen.kind != "lucky_draw":
            raise UsageProblem("--strategy applies to lucky-draw only")
        full_decks = DEFAULT_DECKS if shoe is None and decks is None else decks
        if report is not None:
            if shoe is not None or as_json:
                raise UsageProblem("--report is for full decks (--decks) and writes HTML: leave out --shoe and --json")
            _par_sheet(chosen, full_decks or DEFAULT_DECKS, report, report_shoes, report_count_shoes)
            return
        text = report_text(chosen, decks=full_decks, shoe=shoe, strategy=cast("StrategyKind", strategy.value),
                           eor=eor, as_json=as_json)
    sys.stdout.write(text)


def _par_sheet(game: Game, decks: int, path: Path, shoes: int, count_shoes: int) -> None:
    from baccarat.cli.analyze_text import single_threaded_blas

    single_threaded_blas()
    from baccarat.reports.par_sheet import build, render

    page = render(build(game, decks=decks, shoes=shoes, count_shoes=count_shoes))
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as error:
        raise UsageProblem(f"cannot write the PAR sheet to {path}: {error.strerror}") from error
    print(f"PAR sheet of {game.name} written to {path}", file=sys.stderr)
