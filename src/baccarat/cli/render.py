"""Rich renderings of a round for terminal play: hands, totals, result, settlement, balance, shoe."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from baccarat.cli.records import PlayedRound
from baccarat.core.cards import SUIT_SYMBOLS
from baccarat.core.games import Game
from baccarat.core.money import format_amount
from baccarat.core.roads import ROWS, Roads
from baccarat.core.shoe import Shoe

RED_SUITS = {"h", "d"}


def card_text(card: str) -> Text:
    """``"Th"`` as ``10♥`` in red (hearts, diamonds) or bold (clubs, spades)."""
    rank = "10" if card[0] == "T" else card[0]
    style = "bold red" if card[-1] in RED_SUITS else "bold"
    return Text(f"{rank}{SUIT_SYMBOLS[card[-1]]}", style=style)


def hand_text(cards: list[str], total: int) -> Text:
    """Two cards, then the third card set apart, then the total."""
    text = Text()
    for index, card in enumerate(cards):
        if index == 2:
            text.append("  | ", style="dim")
        elif index:
            text.append(" ")
        text.append_text(card_text(card))
    text.append(f"   = {total}", style="bold cyan")
    return text


def banner(game: Game, record: PlayedRound) -> Text:
    """``BANKER WINS 7 : 5`` (Banker's total first when the Banker wins)."""
    if game.kind == "lucky_draw":
        you, dealer = record["seat_total"], record["dealer_total"]
        words = {"player": f"YOU WIN {you} : {dealer}", "dealer": f"DEALER WINS {dealer} : {you}",
                 "tie": f"TIE {you} : {dealer}"}[record["result"]]
    else:
        p, b = record["player_total"], record["banker_total"]
        words = {"player": f"PLAYER WINS {p} : {b}", "banker": f"BANKER WINS {b} : {p}",
                 "tie": f"TIE {p} : {b}"}[record["result"]]
    notes = [note.upper() for note in record["callouts"]]
    return Text(words + ("   " + " · ".join(notes) if notes else ""), style="bold yellow")


def settlement_table(game: Game, record: PlayedRound) -> RichTable:
    """One row per wager placed: stake, event, net."""
    grid = RichTable(show_edge=False, box=None, padding=(0, 2))
    grid.add_column("Wager")
    grid.add_column("Stake", justify="right")
    grid.add_column("Result")
    grid.add_column("Net", justify="right")
    for wager in game.wagers:
        if wager.code in record["bets"]:
            net = record["net"].get(wager.code, 0)
            style = "green" if net > 0 else "red" if net < 0 else "dim"
            grid.add_row(wager.name, format_amount(record["bets"][wager.code]), record["events"].get(wager.code, ""),
                         Text(f"{'+' if net > 0 else ''}{format_amount(net)}", style=style))
    return grid


def shoe_line(shoe: Shoe | None, shoe_no: int, round_no: int) -> Text:
    """Shoe number, hand number, cards dealt, the cut card, and last-hand / new-shoe notices."""
    if shoe is None:
        return Text(f"Shoe {shoe_no} finished after hand {round_no}: a new shoe is shuffled next", style="magenta")
    total = len(shoe.cards)
    width = 30
    cut = min(width - 1, shoe.cut_index * width // total)
    filled = shoe.dealt * width // total
    bar = "".join("|" if i == cut else ("#" if i < filled else "-") for i in range(width))
    text = Text(f"Shoe {shoe_no} · hand {round_no} · {shoe.dealt}/{total} cards dealt [{bar}] "
                f"cut card {shoe.cut_card} from the end")
    if shoe.last_coup:
        text.append("  · LAST HAND NEXT", style="bold magenta")
    return text


def round_panel(game: Game, record: PlayedRound, shoe: Shoe | None, shoe_no: int) -> Panel:
    """The whole screen for one finished round."""
    if game.kind == "lucky_draw":
        hands = [Text.assemble(("YOU     ", "bold"), hand_text(record["seat_cards"], record["seat_total"])),
                 Text.assemble(("DEALER  ", "bold"), hand_text(record["dealer_cards"], record["dealer_total"]))]
    else:
        hands = [Text.assemble(("PLAYER  ", "bold blue"), hand_text(record["player_cards"], record["player_total"])),
                 Text.assemble(("BANKER  ", "bold red"), hand_text(record["banker_cards"], record["banker_total"]))]
    body: list[RenderableType] = [*hands, Text(), banner(game, record), Text(), settlement_table(game, record),
                                  Text(), Text(f"Balance {format_amount(record['balance'])}", style="bold"),
                                  shoe_line(shoe, shoe_no, record["round"])]
    return Panel(Group(*body), title=f"{game.name} · hand {record['round']}", expand=False)


def decision_panel(
    seat_cards: list[str], seat_total: int, dealer_up: str, *, can_draw: bool,
    block_bonus: tuple[str, int] | None = None,
) -> Panel:
    """Lucky Draw: your two cards, the dealer's up card and the settled Block Bonus, before you act."""
    lines: list[RenderableType] = [
        Text.assemble(("YOU     ", "bold"), hand_text(seat_cards, seat_total)),
        Text.assemble(("DEALER  ", "bold"), card_text(dealer_up), ("  [face down]", "dim")),
    ]
    if block_bonus is not None:
        event, net = block_bonus
        lines.append(Text(f"Block Bonus: {event} {'+' if net > 0 else ''}{format_amount(net)}",
                          style="green" if net > 0 else "red"))
    lines.append(Text("Type 'draw' (Draw wager equal to Enter) or 'stand'." if can_draw
                      else "Your balance is below Enter: you can only 'stand'."))
    return Panel(Group(*lines), title="Your decision", expand=False)


ROAD_STYLES = {"B": "bold white on red", "P": "bold white on blue", "red": "bold red", "blue": "bold blue"}
#: Each derived road's red and blue marks differ in shape as well as colour, as on the browser table:
#: red marks are round (a ring, a disc) and the cockroach pig's red slash leans right (/), blue marks
#: are square and the blue slash leans left (\\), so they read the same without colour (NO_COLOR, a
#: monochrome terminal, a colour-blind player).
MARK_GLYPHS = {"big_eye_boy": {"red": "○", "blue": "□"}, "small_road": {"red": "●", "blue": "■"},
               "cockroach_pig": {"red": "/", "blue": "\\"}}
ROAD_LEGEND = "red ○ ● /   blue □ ■ \\"


def mark(road: str, colour: str) -> Text:
    """One derived-road mark: its shape says its colour too."""
    return Text(MARK_GLYPHS[road][colour], style=ROAD_STYLES[colour])


def _road_grid(cells: dict[tuple[int, int], Text], width: int = 2, last_columns: int = 16) -> Text:
    """Six rows of a road, its newest ``last_columns`` columns (a terminal is narrower than a shoe)."""
    count = max((col for col, _ in cells), default=-1) + 1
    first = max(0, count - last_columns)
    text = Text(no_wrap=True, overflow="crop")
    for row in range(ROWS):
        for col in range(first, count):
            cell = cells.get((col, row), Text("·", style="dim"))
            text.append_text(cell)
            text.append(" " * max(1, width - len(cell.plain)))
        if row < ROWS - 1:
            text.append("\n")
    return text


def roads_panel(board: Roads) -> Panel:
    """Big Road (side letters, tie counts) and the three derived roads side by side, with the asks
    and statistics."""
    big = {(c.col, c.row): Text((c.side or "-") + (str(c.ties) if c.ties else ""),
                                style=ROAD_STYLES.get(c.side or "", "green"))
           for c in board.big_road}
    derived = RichTable.grid(padding=(0, 3))
    titles = ("Big Eye Boy", "Small Road", "Cockroach Pig")
    for title in titles:
        derived.add_column(title, no_wrap=True)
    derived.add_row(*(Text(title, style="bold") for title in titles))
    derived.add_row(*(_road_grid({(m.col, m.row): mark(name, m.colour) for m in getattr(board, name)},
                                 last_columns=10)
                      for name in ("big_eye_boy", "small_road", "cockroach_pig")))
    parts: list[RenderableType] = [Text("Big Road (B Banker, P Player)", style="bold"),
                                   _road_grid(big, width=3, last_columns=20), derived,
                                   Text(f"Derived roads: {ROAD_LEGEND}", style="dim")]
    for side in ("banker", "player"):
        asked = Text(f"{side.title()} ask: ", style="bold")
        for road, colour in board.ask[side].items():
            asked.append_text(mark(road, colour) if colour else Text("-", style="dim"))
            asked.append(f" {colour or '-'}  ")
        parts.append(asked)
    s = board.stats
    parts.append(Text(f"Hands {s['hands']} · Banker {s['banker']} · Player {s['player']} · Tie {s['tie']} · "
                      f"pairs B {s['banker_pairs']} P {s['player_pairs']} · naturals {s['naturals']}", style="dim"))
    return Panel(Group(*parts), title="Scoreboards (this shoe)", expand=False)
