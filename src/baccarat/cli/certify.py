"""``baccarat certify``: the statistical battery a test lab runs on the server's shuffle (docs/certification.md).

Exit codes: 0 the battery passed; 3 it failed (a test rejected at 1% family-wise); 2 a usage error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from baccarat.cli.common import RulesOption, UsageProblem, app, choose_game, handle_errors
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS

if TYPE_CHECKING:
    from baccarat.reports.certify import Certification

#: The battery failed: the shuffle did not pass (the same code as ``verify``'s mismatch and ``audit``'s break).
EXIT_FAILED = 3


@app.command()
def certify(
    shoes: Annotated[int, typer.Option(min=2, help="Shoes to deal and test.")] = 10_000,
    game: Annotated[str, typer.Option(help="The table's game (a punto banco game: its results are tested).")]
    = "mini",
    decks: Annotated[int, typer.Option(min=1, help="Decks in the shoe.")] = DEFAULT_DECKS,
    cut_card: Annotated[int, typer.Option(min=1, help="Cards behind the cut card.")] = DEFAULT_CUT_CARD,
    seed: Annotated[int | None, typer.Option(
        min=0, help="Derive every server seed from this (a run that can be repeated); default: the operating "
                    "system's generator, as the server.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: one per CPU core).")]
    = None,
    rules: RulesOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Write JSON to stdout instead of a table.")] = False,
    report: Annotated[Path | None, typer.Option(
        dir_okay=False, help="Also write the report (self-contained HTML, with every game's PAR sheet).")] = None,
) -> None:
    """Chi-square, runs and serial-correlation tests of the server's shuffle at 99% confidence.

    Deals SHOES shoes exactly as the table server shuffles them and tests the card at each position,
    the permutation, the runs and serial correlation of results and the result frequencies against the
    exact probabilities.  Exit code 3 when the verdict (Holm, 1% family-wise) fails.
    """
    with handle_errors():
        chosen = choose_game(game, None, rules)
        if chosen.kind != "punto_banco":
            raise UsageProblem(f"--game: the battery tests Banker/Player results, so it deals a punto banco "
                               f"game; {chosen.code} is not one (every game's shoes are shuffled alike)")
        from baccarat.reports.certify import certify as run_battery

        with _progress_bar(shoes, f"Certifying {shoes:,} shoes") as progress:
            result = run_battery(shoes, game=chosen.code, decks=decks, cut_card=cut_card, seed=seed,
                                 workers=workers, progress=progress)
        if report is not None:
            from baccarat.reports.certify_page import render

            try:
                report.write_text(render(result), encoding="utf-8")
            except OSError as error:
                raise UsageProblem(f"cannot write the report to {report}: {error.strerror}") from error
            print(f"certification report written to {report}", file=sys.stderr)
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        _print_table(result)
    if not result.passed:
        raise typer.Exit(EXIT_FAILED)


@contextmanager
def _progress_bar(total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr while the shoes are dealt (only on a terminal, as ``simulate``'s); yields
    the function that sets how many are done."""
    if sys.stderr is None or not sys.stderr.isatty():
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.update(task, completed=n)


def _print_table(result: Certification) -> None:
    from rich.console import Console
    from rich.table import Table

    from baccarat.reports.certify import ALPHA
    table = Table(title=f"{result.shoes:,} shoes of {result.decks} decks, {result.coups:,} coups ({result.game})")
    for heading in ("Test", "Statistic", "p-value", "Holm", f"p ≥ {ALPHA:g}"):
        table.add_column(heading)
    for t in result.tests:
        statistic = f"{t.statistic_name} = {t.statistic:,.3f}" + ("" if t.df is None else f" ({t.df:,} df)")
        table.add_row(t.name, statistic, f"{t.p_value:.3g}", f"{t.adjusted_p:.3g}", "pass" if t.passed else "FAIL")
    console = Console()
    console.print(table)
    seeds = "the operating system's generator" if result.seed is None else f"seed {result.seed}"
    console.print(f"Server seeds: {seeds}.  Verdict (Holm, {ALPHA:.0%} family-wise): "
                  + ("[bold green]PASS[/]" if result.passed else "[bold red]FAIL[/]"))
