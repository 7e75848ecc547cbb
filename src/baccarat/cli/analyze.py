"""``baccarat analyze``: exact return tables of every wager for any shoe (``specs/analysis.md``)."""

from __future__ import annotations

import hashlib
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from baccarat.cli import GameArgument, RulesOption, UsageProblem, app, choose_game, handle_errors
from baccarat.shoe import DEFAULT_DECKS

if TYPE_CHECKING:
    from baccarat.analysis.lucky_draw import StrategyKind
    from baccarat.games import Game


def single_threaded_blas() -> None:
    """Ask numpy's OpenBLAS for no thread pool, unless the user chose a size: call before numpy is imported.

    Neither the analyzer nor the simulator uses BLAS, and starting its threads is about a third
    of numpy's import time (0.06 s of a command that should take 0.2 s).
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class StrategyChoice(StrEnum):
    composition = "composition"
    total = "total"


@app.command()
def analyze(
    game: GameArgument,
    decks: Annotated[int | None, typer.Option(help=f"Full decks in the shoe (default {DEFAULT_DECKS}).")] = None,
    shoe: Annotated[str | None, typer.Option(
        help="A partly dealt shoe: ten counts A,2,3,4,5,6,7,8,9,T (T = tens and pictures).")] = None,
    paytable: Annotated[int | None, typer.Option(help="Lucky Draw DrawWin pay table: 1 or 2.")] = None,
    rules: RulesOption = None,
    strategy: Annotated[StrategyChoice, typer.Option(
        help="Lucky Draw: the Draw decision the Enter table follows.")] = StrategyChoice.composition,
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
    from baccarat.analysis import cache as disk  # the standard library only: a cached report needs no numpy

    with handle_errors():
        if shoe is not None and decks is not None:
            raise UsageProblem("give --decks or --shoe, not both")
        chosen = choose_game(game, paytable, rules)
        if strategy is not StrategyChoice.composition and chosen.kind != "lucky_draw":
            raise UsageProblem("--strategy applies to lucky-draw only")
        full_decks = DEFAULT_DECKS if shoe is None and decks is None else decks
        if report is not None:
            if shoe is not None or as_json:
                raise UsageProblem("--report is for full decks (--decks) and writes HTML: leave out --shoe and --json")
            _par_sheet(chosen, full_decks or DEFAULT_DECKS, report, report_shoes, report_count_shoes)
            return
        # The report is a function of these and of the code (the cache's key has a digest of the
        # package's source; this module is added, as the cache leaves the command line out).
        key = {"game": chosen.code, "source": chosen.source, "paytable": chosen.paytable, "decks": full_decks,
               "shoe": None if shoe is None else shoe.replace(" ", ""), "strategy": strategy.value, "eor": eor,
               "json": as_json, "command": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}
        text = disk.text("analyze", key, lambda: _report(chosen, full_decks, shoe, strategy.value, eor, as_json))
    sys.stdout.write(text)


def _par_sheet(game: Game, decks: int, path: Path, shoes: int, count_shoes: int) -> None:
    single_threaded_blas()
    from baccarat.sim.par import build, render

    page = render(build(game, decks=decks, shoes=shoes, count_shoes=count_shoes))
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as error:
        raise UsageProblem(f"cannot write the PAR sheet to {path}: {error.strerror}") from error
    print(f"PAR sheet of {game.name} written to {path}", file=sys.stderr)


def _report(game: Game, decks: int | None, shoe: str | None, strategy: StrategyKind, eor: bool, as_json: bool) -> str:
    """Analyse and format (the work a cached report saves)."""
    single_threaded_blas()  # before numpy is imported
    from baccarat.analysis.analyze import analyze as run_analysis
    from baccarat.analysis.composition import Composition
    from baccarat.analysis.report import analysis_json, format_analysis

    if shoe is not None:
        composition = Composition.parse(shoe)
    else:
        composition = Composition.full(DEFAULT_DECKS if decks is None else decks)
    result = run_analysis(game, composition, strategy=strategy, eor=eor)
    if as_json:
        import json

        return json.dumps(analysis_json(result), indent=2) + "\n"
    return format_analysis(result)
