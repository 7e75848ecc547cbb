"""The rule data the kernels run on, built from the rules core and the exact analyzer.

Cards are the 52 kinds of :data:`baccarat.analysis.block.CARD_KINDS` (rank and
suit, so Block Bonus can be settled); their point values, the burn counts, the
tableau's charts and the dealer's rule come from the core, and the pay of each
coup comes from the game's own wager classifiers through the analyzer's coup
table.  A pay-table change reaches the simulator with no edit here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from baccarat.analysis import cache as disk
from baccarat.analysis.block import CARD_KINDS, event_table
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import Game
from baccarat.core.lucky import BLOCK_EVENTS
from baccarat.core.registry import get_game
from baccarat.core.shoe import burn_count
from baccarat.core.tableau import BANKER_CHART, DEALER_CHART, PLAYER_CHART, is_natural

if TYPE_CHECKING:
    from baccarat.analysis import lucky_draw as ld

# The analyzer's modules (coup table, Lucky Draw cells) are imported where a table is computed:
# once the tables are on disk a run does not need them, and they are 15 ms of start-up.

IntArray = npt.NDArray[np.int64]
SmallIntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ShoeTables:
    """The cards of a shoe and the procedure's numbers."""

    deck: SmallIntArray  #: card kinds, ``decks`` of each
    value_of: SmallIntArray  #: point value of each kind
    burn: IntArray  #: cards burned after turning a card of each value

    @property
    def deck_values(self) -> SmallIntArray:
        """The point values of :attr:`deck`, in its order (what punto banco shuffles)."""
        return self.value_of[self.deck]


@cache
def shoe_tables(decks: int) -> ShoeTables:
    """Cards and burn counts for a shoe of ``decks`` decks."""
    from baccarat.analysis.keys import VALUE_CARDS

    # 32-bit cards: half the memory the shuffle moves, and the same random draws.
    value_of = np.array([card.value for card in CARD_KINDS], dtype=np.int32)
    burn = np.array([burn_count(VALUE_CARDS[v]) for v in range(10)], dtype=np.int64)
    return ShoeTables(np.tile(np.arange(52, dtype=np.int32), decks), value_of, burn)


@dataclass(frozen=True)
class PuntoBancoTables:
    """The tableau as arrays, and every wager's pay and event for every coup key (and card pattern)."""

    player_draws: IntArray  #: [player total] -> 1 draws, 0 stands
    banker_draws: IntArray  #: [banker total, player's third card or 10 = stood]; rows 8-9 unused
    natural: IntArray  #: [two-card total] -> 1 for a natural
    pays: FloatArray  #: [wager, bin]; a bin is a coup key, or ``key * patterns + pattern``
    pays_by_key: FloatArray  #: [bin, wager], contiguous per bin, for the kernels
    events: IntArray  #: [wager, bin] -> the event's position in the wager's pay table
    patterns: int = 1  #: card patterns per key: 1 when every wager reads point values only
    pattern_index: IntArray | None = None  #: pattern bits (see kernels.punto_banco_cards_chunk) -> pattern
    #: A wager reads the cards themselves: a bin is ``key * patterns + combination``, the combination of the events
    #: of the wagers that read cards (:func:`card_bins`), computed from each coup's cards outside the kernel.
    cards: bool = False


def needs_cards(game: Game) -> bool:
    """Whether a wager of ``game`` reads ranks or suits (the simulation then deals real cards)."""
    return any(w.depends != "values" for w in game.wagers)


def _punto_banco_arrays(game: Game) -> dict[str, npt.NDArray[np.generic]]:
    from baccarat.analysis import patterns as pt
    from baccarat.analysis.keys import coup_table
    from baccarat.analysis.punto import unpriceable

    for wager in game.wagers:
        why = unpriceable(wager, game=game)
        if why is not None:
            raise ConfigurationError(f"{wager.name} cannot be simulated: {why}")
    if any(w.depends == "cards" for w in game.wagers):
        return _card_arrays(game)
    banker = np.zeros((10, 11), dtype=bool)
    for total, row in BANKER_CHART.items():
        banker[total] = row
    table = coup_table()
    keys = table.index.ravel()
    cards = needs_cards(game)
    count = len(pt.PATTERNS) if cards else 1
    pays_rows, event_rows = [], []
    for wager in game.wagers:
        odds = np.array([float(p) for p in wager.paytable.values()])
        events = list(wager.paytable)
        if wager.rule is not None:
            by_coup = pt.coup_events(wager.rule, events)  # [coup, pattern]
            by_coup = by_coup if cards else by_coup[:, pt.NO_PATTERN:pt.NO_PATTERN + 1]
        else:
            by_coup = np.repeat(np.array([events.index(wager.event(c)) for c in table.coups])[:, None], count, axis=1)
        by_bin = by_coup[keys].reshape(-1)  # [key * patterns + pattern]
        event_rows.append(by_bin)
        pays_rows.append(odds[by_bin])
    natural = np.array([is_natural(total) for total in range(10)], dtype=np.int64)
    bits = np.zeros(32, dtype=np.int64)
    for index, p in enumerate(pt.PATTERNS):
        bits[p.player_pair * 16 + p.banker_pair * 8 + p.twin * 4 + p.player_suited * 2 + p.banker_suited] = index
    # 0/1 integers rather than booleans: the kernels compute with them (see kernels.punto_banco_coup).
    return {"player_draws": np.array(PLAYER_CHART, dtype=np.int64), "banker_draws": banker.astype(np.int64),
            "natural": natural, "pays": np.ascontiguousarray(np.array(pays_rows)),
            "events": np.array(event_rows, dtype=np.int64), "patterns": np.array([count]), "pattern_index": bits}


#: The most combinations of events of the wagers that read cards (the bins per coup key).
MAX_COMBINATIONS = 1024


def _combined(game: Game) -> list[tuple[int, int]]:
    """(position among the game's wagers, stride) of each wager that reads cards, in a game with a wager on the
    cards themselves: its event is one digit of a coup's combination."""
    stride, found = 1, []
    for i, wager in enumerate(game.wagers):
        if wager.depends != "values":
            found.append((i, stride))
            stride *= len(wager.paytable)
    if stride > MAX_COMBINATIONS:
        raise ConfigurationError(f"{game.name} cannot be simulated: its wagers on the cards have {stride:,} "
                                 f"combinations of events, more than the {MAX_COMBINATIONS:,} the simulator counts")
    return found


def _card_arrays(game: Game) -> dict[str, npt.NDArray[np.generic]]:
    """The kernel tables of a game with a wager on the cards: bins ``key * combinations + combination``."""
    from baccarat.analysis.keys import coup_table

    combined = dict(_combined(game))
    count = int(np.prod([len(game.wagers[i].paytable) for i in combined], dtype=np.int64))
    table = coup_table()
    combination = np.tile(np.arange(count), 10_000)
    pays_rows, event_rows = [], []
    for i, wager in enumerate(game.wagers):
        odds = np.array([float(p) for p in wager.paytable.values()])
        if i in combined:
            by_bin = combination // combined[i] % len(wager.paytable)
        else:
            by_coup = np.array([list(wager.paytable).index(wager.event(c)) for c in table.coups])
            by_bin = np.repeat(by_coup[table.index.ravel()], count)
        event_rows.append(by_bin)
        pays_rows.append(odds[by_bin])
    banker = np.zeros((10, 11), dtype=bool)
    for total, row in BANKER_CHART.items():
        banker[total] = row
    natural = np.array([is_natural(total) for total in range(10)], dtype=np.int64)
    return {"player_draws": np.array(PLAYER_CHART, dtype=np.int64), "banker_draws": banker.astype(np.int64),
            "natural": natural, "pays": np.ascontiguousarray(np.array(pays_rows)),
            "events": np.array(event_rows, dtype=np.int64), "patterns": np.array([count]),
            "pattern_index": np.zeros(1, dtype=np.int64), "cards": np.array([1])}


def card_bins(game: Game, keys: IntArray, dealt: IntArray) -> IntArray:
    """The bin of each coup of a game with a wager on the cards, from its key and its cards by hand position (card
    kinds, -1 where not dealt): the events of the wagers that read cards, by the analysis's interpreter of the facts
    (:mod:`baccarat.analysis.cards`)."""
    from baccarat.analysis import cards as engine

    rank_of, suit_of = card_kinds()
    held = np.maximum(dealt, 0)
    rank = np.where(dealt >= 0, rank_of[held], -1).astype(np.int64)
    suit = np.where(dealt >= 0, suit_of[held], -1).astype(np.int64)
    combined = _combined(game)
    declared = [game.wagers[i].declared for i, _ in combined]
    value_names = sorted({n for d in declared if d for n in engine.read_facts(d)[0]})
    card_names = sorted({n for d in declared if d for n in engine.read_facts(d)[1]})
    facts = {**engine.value_facts(value_names, keys), **engine.compute(engine.Cards(rank, suit), card_names)}
    combination = np.zeros(len(keys), dtype=np.int64)
    for (i, stride), rules in zip(combined, declared, strict=True):
        assert rules is not None  # a wager on the cards is declared (a rules file)
        order = np.array([list(game.wagers[i].paytable).index(event) for event, _ in rules], dtype=np.int64)
        combination += order[engine.events_of(rules, facts, len(keys))] * stride
    count = int(np.prod([len(game.wagers[i].paytable) for i, _ in combined], dtype=np.int64))
    return keys * count + combination


@cache
def punto_banco_tables(code: str) -> PuntoBancoTables:
    """Kernel tables for a punto banco game (by code, so worker processes can rebuild them).

    Kept on disk (:mod:`baccarat.analysis.cache`): asking the engine about every coup and
    every wager takes about 50 ms, a fifth of a run's start-up.  A rules file's game is kept
    under its file's digest too.
    """
    game = get_game(code)
    a = disk.arrays("punto-banco-tables", {"game": code, "source": game.source},
                    lambda: _punto_banco_arrays(game))
    return PuntoBancoTables(a["player_draws"], a["banker_draws"], a["natural"], a["pays"],
                            np.ascontiguousarray(a["pays"].T), a["events"], int(a["patterns"][0]),
                            a["pattern_index"], bool(a["cards"][0]) if "cards" in a else False)


@cache
def card_kinds() -> tuple[SmallIntArray, SmallIntArray]:
    """The rank (0-12) and suit (0-3) of each of the 52 card kinds."""
    from baccarat.core.cards import RANKS, SUITS

    return (np.array([RANKS.index(c.rank) for c in CARD_KINDS], dtype=np.int32),
            np.array([SUITS.index(c.suit) for c in CARD_KINDS], dtype=np.int32))


@dataclass(frozen=True)
class LuckyDrawTables:
    """The dealer's rule, the pays of standing and drawing, and Block Bonus by card kinds."""

    dealer_draws: IntArray  #: [two-card total] -> 1 draws, 0 stands
    stand: ld.Outcomes
    draw: ld.Outcomes
    stand_pay: FloatArray  #: [seat total, dealer total], per unit of Enter
    draw_pay: FloatArray  #: the same with the Draw wager added
    block_event: npt.NDArray[np.int8]  #: [first, second, up] card kinds -> index in BLOCK_EVENTS
    block_pay: FloatArray  #: [event]

    @property
    def enter_pay(self) -> FloatArray:
        """The pay of every Enter histogram bin of the kernel: ``drew * 100 + seat * 10 + dealer``."""
        return np.concatenate([self.stand_pay.ravel(), self.draw_pay.ravel()])


@cache
def lucky_draw_tables(paytable: int) -> LuckyDrawTables:
    """Kernel tables for Lucky Draw with DrawWin pay table ``paytable``."""
    from baccarat.analysis import lucky_draw as ld

    game = get_game("lucky-draw", paytable=paytable)
    stand, draw = ld.outcomes(game, drew=False), ld.outcomes(game, drew=True)
    stand_pay = np.array([float(p) for p in stand.pays])[stand.table]
    draw_pay = np.array([float(p) for p in draw.pays])[draw.table]
    block = game.wager("block_bonus")
    block_pay = np.array([float(block.paytable[event]) for event in BLOCK_EVENTS])
    # One byte per triple (140,608 of them) keeps the table in the processor's cache; kept on disk
    # because the engine is asked about some eleven thousand triples to build it (about 30 ms).
    block_event = disk.arrays("block-events", {}, lambda: {"event": event_table().astype(np.int8)})["event"]
    return LuckyDrawTables(np.array(DEALER_CHART, dtype=np.int64), stand, draw, stand_pay, draw_pay, block_event,
                           block_pay)


def strategy_draws(game: Game, decks: int, strategy: str) -> BoolArray:
    """The seat's decision per cell ``[s1, up, s2]``.

    ``composition`` / ``total``: the analysis's optimal strategies for a full
    shoe of ``decks`` decks; otherwise a list of seat totals to draw on, such as
    ``"0,1,2,3,4,5"`` (any up card), or ``"never"``.
    """
    from baccarat.analysis import lucky_draw as ld
    from baccarat.analysis.composition import Composition

    if strategy in ld.STRATEGIES:
        # Kept on disk: the exact analysis behind it takes about 0.1 s.
        key = {"game": game.code, "paytable": game.paytable, "decks": decks, "strategy": strategy}
        stored = disk.arrays("lucky-draw-strategy", key, lambda: {
            "draws": ld.strategy_draws(ld.cells(game, Composition.full(decks)), strategy)})
        return stored["draws"]
    return ld.draws_from_card(np.repeat(totals_card(strategy)[:, None], 10, axis=1))


def totals_card(text: str) -> BoolArray:
    """Parse ``"0,1,2"`` (or ``"never"``) into a draw flag per seat total."""
    card = np.zeros(10, dtype=bool)
    if text.strip().lower() == "never":
        return card
    for part in text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit() and int(part) <= 9):
            raise ConfigurationError(
                f"--strategy is composition, total, never, or seat totals to draw on such as 0,1,2,3,4,5; got {text!r}"
            )
        card[int(part)] = True
    return card
