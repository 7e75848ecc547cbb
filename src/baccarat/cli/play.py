"""``baccarat play``: a table in the terminal, or a script of rounds with a JSON transcript."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from baccarat.cli.common import GameArgument, RulesOption, UsageProblem, app, choose_game, handle_errors
from baccarat.core.errors import BaccaratError
from baccarat.core.money import format_amount, parse_amount
from baccarat.core.registry import HELP_LINE
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS

if TYPE_CHECKING:
    from rich.table import Table as RichTable

    from baccarat.cli.records import RoundRecord
    from baccarat.cli.session import Decider, Session
    from baccarat.core.games import Game
    from baccarat.core.lucky import LuckyDrawHand

QUIT_WORDS = {"q", "quit", "exit"}


@app.command()
def play(
    game: GameArgument,
    seed: Annotated[int | None, typer.Option(min=0, help="Seed for a reproducible shoe (default: OS randomness).")]
    = None,
    script: Annotated[Path | None, typer.Option(exists=True, dir_okay=False, readable=True,
                                                help="Play the rounds in this file, one per line.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Write a JSON transcript to stdout; no screen.")] = False,
    bankroll: Annotated[str, typer.Option(help="Starting balance in currency units, e.g. 1000 or 250.50.")]
    = "1000",
    decks: Annotated[int, typer.Option(help="Decks in the shoe.")] = DEFAULT_DECKS,
    cut_card: Annotated[int, typer.Option(help="Cards behind the cut card.")] = DEFAULT_CUT_CARD,
    paytable: Annotated[int | None, typer.Option(help="Lucky Draw DrawWin pay table: 1 or 2.")] = None,
    rules: RulesOption = None,
    client_seed: Annotated[str | None, typer.Option(
        help="Your client seed, mixed into every shoe's shuffle (1 to 64 letters, digits or punctuation).")] = None,
) -> None:
    """Play at a table in the terminal, or run a script of rounds (--script, --json).

    Each line holds bets as WAGER=AMOUNT (amounts in currency units), plus
    'draw' or 'stand' in Lucky Draw.  Type 'help' for the wager codes, 'quit' to leave.
    """
    from baccarat.cli.session import Session  # here, not at the top: see baccarat.cli.app

    with handle_errors():
        chosen = choose_game(game, paytable, rules)
        if chosen.multipliers is not None or any(w.fee for w in chosen.wagers):
            raise UsageProblem(f"{chosen.code} strikes cards or charges fees: the terminal game does not deal them; "
                               "analyse or simulate it, or play it at the table server (baccarat serve)")
        session = Session(chosen, bankroll=parse_amount(bankroll), seed=seed, decks=decks, cut_card=cut_card,
                          client_seed=client_seed)
    with handle_errors():
        lines = _script_lines(script) if script is not None else _stdin_lines()
        if as_json:
            for text in lines:
                _play_line(session, text, None)  # a line without a decision stands
            sys.stdout.write(json.dumps(session.transcript(), indent=2) + "\n")
            return
        _play_on_screen(session, chosen, lines, interactive=script is None and sys.stdin.isatty())


def _script_lines(path: Path) -> Iterator[str]:
    # baccarat.cli.script (and the random, getpass and termios modules it brings) only when playing: every
    # command imports this module, and ``simulate`` and ``analyze`` should start fast.
    from baccarat.cli.script import strip_comment

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageProblem(f"cannot read script {path}: {error}") from error
    yield from (line for line in text.splitlines() if strip_comment(line))


def _stdin_lines(prompt: str = "") -> Iterator[str]:
    from baccarat.cli.script import strip_comment

    while True:
        if prompt and sys.stdin.isatty():
            print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            return
        if strip_comment(line):
            yield line.rstrip("\n")


def _play_line(session: Session, text: str, decide: Decider | None) -> RoundRecord:
    from baccarat.cli.script import parse_line

    try:
        order = parse_line(text)
    except BaccaratError as error:
        return session.reject(str(error), line=text.strip())
    record = session.play(order, decide=decide)
    if "rejected" in record:
        record["line"] = text.strip()
    return record


def _play_on_screen(session: Session, game: Game, lines: Iterator[str], *, interactive: bool) -> None:
    from rich.console import Console

    from baccarat.cli.render import decision_panel, roads_panel, round_panel
    from baccarat.cli.session import SEAT

    console = Console()
    console.print(f"[bold]{game.name}[/] · balance {format_amount(session.balance)} · "
                  f"{session.decks} deck{'s' if session.decks > 1 else ''} · type 'help' for wagers, 'quit' to leave")
    if interactive:
        lines = _stdin_lines(prompt="bets> ")

    def decide(hand: LuckyDrawHand) -> str:
        can_draw = session.table.can_decide(SEAT, "draw")
        block = next((s for s in session.table.settlements if s.seat == SEAT and s.wager == "block_bonus"), None)
        console.print(decision_panel([str(c) for c in hand.seat_cards], hand.seat_total, str(hand.dealer_cards[0]),
                                     can_draw=can_draw,
                                     block_bonus=None if block is None else (block.event, block.net)))
        for answer in _stdin_lines(prompt="draw or stand> "):
            word = answer.strip().lower()
            if word in ("d", "draw") and can_draw:
                return "draw"
            if word in ("s", "stand"):
                return "stand"
            console.print("[red]answer 'draw' or 'stand'[/]" if can_draw else "[red]you can only 'stand'[/]")
        return "stand"

    from baccarat.cli.script import strip_comment

    for text in lines:
        word = strip_comment(text).lower()
        if word in QUIT_WORDS:
            break
        if word == "help":
            console.print(_help_table(game))
            console.print(HELP_LINE)
            continue
        if not interactive:
            console.print(f"[dim]> {text.strip()}[/]")
        record = _play_line(session, text, decide)
        if "rejected" in record:
            console.print(f"[red]Refused:[/] {record['rejected']} Nothing changed.")
            continue
        console.print(round_panel(game, record, session.table.shoe, session.table.shoe_no))
        if game.kind == "punto_banco":
            console.print(roads_panel(session.scoreboard.roads()))
    hands = sum(1 for r in session.rounds if "rejected" not in r)
    console.print(f"Final balance {format_amount(session.balance)} after {hands} hand{'' if hands == 1 else 's'}.")
    console.print(f"[dim]{HELP_LINE}[/]")


def _help_table(game: Game) -> RichTable:
    from rich.table import Table as RichTable

    grid = RichTable(title=f"{game.name}: wagers")
    for column in ("Code", "Wager", "Pays", "Limits"):
        grid.add_column(column)
    limits = game.limits
    for wager in game.wagers:
        pays = ", ".join(f"{event} {odds}" for event, odds in wager.paytable.items() if odds > 0)
        if wager.placed == "decision":
            limit = "equals Enter; type 'draw' or 'stand'"
        else:
            maximum = limits.maximum(wager.code)
            limit = f"{format_amount(limits.minimum)} to {format_amount(maximum) if maximum else 'no maximum'}"
            if wager.requires:
                limit += f"; needs {wager.requires}"
        grid.add_row(wager.code, wager.name, pays, limit)
    return grid
