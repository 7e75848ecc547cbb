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

from baccarat.cli.common import INVOCATION, RulesOption, UsageProblem, app, choose_game, handle_errors
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS

if TYPE_CHECKING:
    from baccarat.reports.certify import Certification

#: The battery failed: the shuffle did not pass (the same code as ``verify``'s mismatch and ``audit``'s break).
EXIT_FAILED = 3


@app.command()
def certify(
    shoes: Annotated[int, typer.Option(min=2, help="Shoes to deal and test (the default catches every defect of "
                                                   "the power table).")] = 100_000,
    game: Annotated[str, typer.Option(help="The table's game (a punto banco game: its results are tested).")]
    = "mini",
    decks: Annotated[int, typer.Option(min=1, help="Decks in the shoe.")] = DEFAULT_DECKS,
    cut_card: Annotated[int, typer.Option(min=1, help="Cards behind the cut card.")] = DEFAULT_CUT_CARD,
    seed: Annotated[int | None, typer.Option(
        min=0, help="Derive every server seed from this (a run that can be repeated); default: the operating "
                    "system's generator, as the server.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: one per CPU core).")]
    = None,
    nist_sequences: Annotated[int, typer.Option(
        min=0, help="NIST SP 800-22 sequences of 10^6 bits of the server's stream to test (0: none).")] = 100,
    dieharder: Annotated[str | None, typer.Option(
        help="Also run Dieharder on the stream: 'all' (its default battery, hours) or test numbers such as "
             "0,1,2 (Debian's dieharder must be installed).")] = None,
    stream: Annotated[Path | None, typer.Option(
        help="Write the server's stream to this file ('-': standard output) instead of certifying: the words "
             "the shuffle reads, shoe after shoe.")] = None,
    stream_bytes: Annotated[int | None, typer.Option(
        "--bytes", min=1, help="With --stream: how many bytes (default: until the reader closes the pipe).")]
    = None,
    raw: Annotated[bool, typer.Option(help="With --stream: the HMAC-SHA256 blocks behind the words, whole.")]
    = False,
    rules: RulesOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Write JSON to stdout instead of a table.")] = False,
    report: Annotated[Path | None, typer.Option(
        dir_okay=False, help="Also write the report (self-contained HTML, with every game's PAR sheet).")] = None,
) -> None:
    """The certification battery of the server's shuffle and its random stream, at 99% confidence.

    Deals SHOES shoes exactly as the table server shuffles them and tests the cards, the permutation,
    shoe-to-shoe dependence, repeated shoes, the card stream (gap, poker, coupon collector) and the
    results against their exact probabilities; runs NIST SP 800-22 (and Dieharder if asked) on the
    stream.  Exit code 3 when the verdict (Holm, 1% family-wise) fails.
    """
    with handle_errors():
        if stream is not None:
            _write_stream(stream, stream_bytes, seed=seed, decks=decks, raw=raw)
            return
        if stream_bytes is not None or raw:
            raise UsageProblem("--bytes and --raw go with --stream")
        chosen = choose_game(game, None, rules)
        if chosen.kind != "punto_banco":
            raise UsageProblem(f"--game: the battery tests Banker/Player results, so it deals a punto banco "
                               f"game; {chosen.code} is not one (every game's shoes are shuffled alike)")
        from baccarat.reports.certify import certify as run_battery
        from baccarat.reports.provenance import provenance

        made = provenance(["baccarat", *INVOCATION])
        with _progress_bar(shoes, f"Certifying {shoes:,} shoes") as progress:
            result = run_battery(shoes, game=chosen.code, decks=decks, cut_card=cut_card, seed=seed,
                                 workers=workers, nist_sequences=nist_sequences, dieharder=dieharder,
                                 provenance=made, progress=progress)
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


def _write_stream(path: Path, count: int | None, *, seed: int | None, decks: int, raw: bool) -> None:
    from baccarat.reports.stream import write_stream

    if str(path) == "-":
        written = write_stream(sys.stdout.buffer, count, seed=seed, decks=decks, raw=raw)
    else:
        if count is None:
            raise UsageProblem("--stream to a file needs --bytes (how much to write)")
        try:
            with path.open("wb") as out:
                written = write_stream(out, count, seed=seed, decks=decks, raw=raw)
        except OSError as error:
            raise UsageProblem(f"cannot write the stream to {path}: {error.strerror}") from error
    print(f"{written:,} bytes of the server's stream written", file=sys.stderr)


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

    from baccarat.reports.battery import ALPHA
    table = Table(title=f"{result.shoes:,} shoes of {result.decks} decks, {result.coups:,} coups ({result.game})")
    for heading in ("Test", "Statistic", "p-value", "Holm", f"p ≥ {ALPHA:g}"):
        table.add_column(heading)
    for t in result.tests:
        statistic = f"{t.statistic_name} = {t.statistic:,.3f}" + ("" if t.df is None else f" ({t.df:,} df)")
        table.add_row(t.name, statistic, f"{t.p_value:.3g}", f"{t.adjusted_p:.3g}", "pass" if t.passed else "FAIL")
    console = Console()
    console.print(table)
    seeds = "the operating system's generator" if result.seed is None else f"seed {result.seed}"
    if result.provenance is not None:
        console.print(f"{result.provenance.software}, package SHA-256 {result.provenance.package_sha256}")
    console.print(f"Server seeds: {seeds}.  Verdict (Holm, {ALPHA:.0%} family-wise): "
                  + ("[bold green]PASS[/]" if result.passed else "[bold red]FAIL[/]"))
