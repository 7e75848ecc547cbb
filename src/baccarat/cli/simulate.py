"""``baccarat simulate``: full shoes with the casino procedure, and card-counting studies."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from baccarat.cli.analyze_text import single_threaded_blas
from baccarat.cli.common import GameArgument, RulesOption, UsageProblem, app, choose_game, handle_errors
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS
from baccarat.sim.early import MAX_WORKERS, MIN_WORKERS


@contextmanager
def _progress_bar(total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr, gone when the work is done; yields the function that advances it.

    Only on a terminal: elsewhere Rich would draw nothing but blank lines, and importing it slows the
    start-up.
    """
    if sys.stderr is None or not sys.stderr.isatty():  # (None: started with standard error closed)
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _random_seed() -> int:
    import secrets  # here: a run with --seed does not need it

    return secrets.randbits(63)


@app.command()
def simulate(
    game: GameArgument,
    shoes: Annotated[int, typer.Option(min=1, help="Shoes to deal.")] = 10_000,
    seed: Annotated[int | None, typer.Option(min=0, help="Seed (default: a random one, printed with the result).")]
    = None,
    workers: Annotated[int, typer.Option(min=MIN_WORKERS, max=MAX_WORKERS, help="Local worker processes.")] = 1,
    scheduler: Annotated[str | None, typer.Option(help="Address of a Dask scheduler, e.g. tcp://host:8786.")] = None,
    decks: Annotated[int, typer.Option(help="Decks in the shoe.")] = DEFAULT_DECKS,
    cut_card: Annotated[int, typer.Option(help="Cards behind the cut card.")] = DEFAULT_CUT_CARD,
    paytable: Annotated[int | None, typer.Option(help="Lucky Draw DrawWin pay table: 1 or 2.")] = None,
    rules: RulesOption = None,
    strategy: Annotated[str, typer.Option(
        help="Lucky Draw: composition, total (the optimal strategies), never, or seat totals to draw on "
             "such as 0,1,2,3,4,5.")] = "composition",
    count: Annotated[str | None, typer.Option(
        help="Counting study: a preset (dragon-7, panda-8) or tags for A,2,...,9,T.")] = None,
    wager: Annotated[str | None, typer.Option(help="Counting: the wager bet on a good count.")] = None,
    trigger: Annotated[float | None, typer.Option(help="Counting: bet when the count is at least this.")] = None,
    running_count: Annotated[bool, typer.Option("--running-count",
                                                help="Counting: trigger on the running count, not the true count.")]
    = False,
    initial_count: Annotated[int, typer.Option(help="Counting: the running count at the start of a shoe.")] = 0,
    bound_shoes: Annotated[int, typer.Option(
        min=0, help="Counting: shoes for the perfect-information bound (0: none).")] = 20_000,
    as_json: Annotated[bool, typer.Option("--json", help="Write JSON to stdout instead of tables.")] = False,
) -> None:
    """Deal full shoes (burn, cut card, last coup) with one unit on every wager of every coup.

    Reports, per wager, counts per event, the mean net result per unit with its
    standard error and 95% interval, and the exact full-shoe value beside it.
    With --count, a card-counting study of one punto banco wager instead.
    """
    chosen_seed = seed if seed is not None else _random_seed()
    single_threaded_blas()
    with handle_errors():
        chosen = choose_game(game, paytable, rules)
        if count is not None:
            _count_study(chosen.code, count, wager, trigger, running_count, initial_count, bound_shoes, shoes,
                         chosen_seed, decks, cut_card, workers, scheduler, as_json)
            return
        if any(option is not None for option in (wager, trigger)) or running_count or initial_count:
            raise UsageProblem("--wager, --trigger, --running-count and --initial-count need --count")
        from baccarat.cli.simulate_text import plan_for, result_text
        from baccarat.sim.run import run

        plan = plan_for(chosen, shoes=shoes, seed=chosen_seed, decks=decks, cut_card=cut_card, strategy=strategy)
        with _progress_bar(plan.chunks, f"Dealing {shoes:,} shoes") as advance:
            totals = run(plan, workers=workers, scheduler=scheduler, progress=advance)
        text = result_text(chosen, plan, totals, as_json=as_json)
    sys.stdout.write(text)


def _count_study(game: str, count: str, wager: str | None, trigger: float | None, running_count: bool,
                 initial_count: int, bound_shoes: int, shoes: int, seed: int, decks: int, cut_card: int,
                 workers: int, scheduler: str | None, as_json: bool) -> None:
    from baccarat.sim.counting import PRESETS, CountPlan, CountResult, count_json, format_count, parse_tags, run_count

    preset = PRESETS.get(count)
    tags = preset.tags if preset else parse_tags(count)
    chosen_wager = wager or (preset.wager if preset else None)
    chosen_trigger = trigger if trigger is not None else (preset.trigger if preset else None)
    if chosen_wager is None or chosen_trigger is None:
        raise UsageProblem("with custom tags, give --wager and --trigger")
    plan = CountPlan(game, chosen_wager, tags, chosen_trigger, shoes, seed, decks=decks, cut_card=cut_card,
                     true_count=not running_count, initial_count=initial_count)
    def run_with_bar(p: CountPlan, label: str) -> CountResult:
        with _progress_bar(p.chunks, label) as advance:
            return run_count(p, workers=workers, scheduler=scheduler, progress=advance)

    result = run_with_bar(plan, f"Counting {shoes:,} shoes")
    bound = None
    if bound_shoes:
        bound_plan = CountPlan(game, chosen_wager, tags, chosen_trigger, bound_shoes, seed, decks=decks,
                               cut_card=cut_card, perfect=True)
        bound = run_with_bar(bound_plan, f"Perfect information, {bound_shoes:,} shoes")
    if as_json:
        import json

        sys.stdout.write(json.dumps({"game": game, "shoes": shoes, "seed": seed, "decks": decks,
                                     "cut_card": cut_card, "count": count_json(result, bound)}, indent=2,
                                    allow_nan=False) + "\n")
    else:
        sys.stdout.write(format_count(result, bound))
