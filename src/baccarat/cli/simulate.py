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
        if chosen.multipliers is not None:
            if workers != 1 or scheduler is not None:
                raise UsageProblem("a game with struck cards is simulated in one process: leave out --workers and "
                                   "--scheduler")
            sys.stdout.write(_strike_study(chosen.code, shoes, chosen_seed, decks, cut_card, as_json))
            return
        from baccarat.cli.simulate_text import plan_for, result_text
        from baccarat.sim.run import run

        plan = plan_for(chosen, shoes=shoes, seed=chosen_seed, decks=decks, cut_card=cut_card, strategy=strategy)
        with _progress_bar(plan.chunks, f"Dealing {shoes:,} shoes") as advance:
            totals = run(plan, workers=workers, scheduler=scheduler, progress=advance)
        text = result_text(chosen, plan, totals, as_json=as_json)
    sys.stdout.write(text)


def _strike_study(game: str, shoes: int, seed: int, decks: int, cut_card: int, as_json: bool) -> str:
    """Whole shoes with their strikes drawn (:mod:`baccarat.sim.strikes`), each multiplied wager's mean beside its
    exact value."""
    from baccarat.analysis.multipliers import multiplied_returns
    from baccarat.core.registry import get_game
    from baccarat.sim.strikes import simulate as simulate_strikes

    with _progress_bar(shoes, f"Dealing {shoes:,} shoes with struck cards") as advance:
        measured = simulate_strikes(game, shoes, decks=decks, cut_card=cut_card, seed=seed, progress=advance)
    exact = multiplied_returns(get_game(game), decks)
    rows = {code: {"coups": m.coups, "mean": m.mean, "standard_error": m.standard_error,
                   "return_to_player": m.return_to_player, "exact_mean": float(exact[code].expected_value),
                   "exact_return_to_player": float(exact[code].return_to_player), "fee": m.fee}
            for code, m in measured.items()}
    if as_json:
        import json

        return json.dumps({"game": game, "shoes": shoes, "seed": seed, "decks": decks, "cut_card": cut_card,
                           "wagers": rows}, indent=2, allow_nan=False) + "\n"
    lines = [f"{game}: {shoes:,} shoes, seed {seed}, {decks} decks, cut card {cut_card} (struck cards drawn)"]
    for code, row in rows.items():
        lines.append(f"{code:<12} mean {row['mean']:+.5f} per unit staked (SE {row['standard_error']:.5f}), exact "
                     f"{row['exact_mean']:+.5f}; return to player with the {row['fee']:.0%} fee "
                     f"{row['return_to_player']:.4%}, exact {row['exact_return_to_player']:.4%}")
    return "\n".join(lines) + "\n"


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
