"""The games of the four rule cards, as data, and the registry of every game (these and rules files').

Default limits (minor units; every one is table configuration):

=============  ===============  =====================================================
game           table minimum    maximum per wager
=============  ===============  =====================================================
mini           1.00             Player / Banker 5,000; Tie 500; each Dragon Bonus 500
ez             1.00             25 on every wager (the EZ Baccarat card's $25 maximum)
lucky-draw     1.00             Enter 500; Block Bonus 100; Draw always equals Enter
=============  ===============  =====================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from baccarat.core.coup import Coup, Side
from baccarat.core.errors import ConfigurationError
from baccarat.core.games import LOSE, PUSH, Felt, Game, TableLimits, Wager
from baccarat.core.lucky import BLOCK_EVENTS, LuckyDrawHand

F = Fraction

#: The foot of the Hollywood Casino rule card (mini-baccarat-and-dragon-bonus.txt): shown on the
#: table page, in the player's protection panel and by ``baccarat play``.
HELP_LINE = "Gambling problem? Getting Help is your Best Bet. 800.522.4700 ksgamblinghelp.com"
HELP_PHONE = "800.522.4700"
HELP_SITE = "ksgamblinghelp.com"

# --- punto banco events ------------------------------------------------------------


def _side_event(coup: Coup) -> str:
    return {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[coup.winner]


def is_dragon_7(coup: Coup) -> bool:
    """EZ Baccarat's Dragon 7: the Banker wins with a three-card 7."""
    return coup.winner == "banker" and len(coup.banker_cards) == 3 and coup.banker_total == 7


def is_panda_8(coup: Coup) -> bool:
    """EZ Baccarat's Panda 8: the Player wins with a three-card 8."""
    return coup.winner == "player" and len(coup.player_cards) == 3 and coup.player_total == 8


def _ez_banker_event(coup: Coup) -> str:
    return "Dragon 7 (Banker pushes)" if is_dragon_7(coup) else _side_event(coup)


def _dragon_bonus(side: Side) -> Callable[[Coup], str]:
    def classify(coup: Coup) -> str:
        if coup.winner == "tie":
            return "Natural tie" if coup.natural else "Tie without natural"
        if coup.winner != side:
            return "Hand loses"
        if coup.is_natural(side):
            return "Natural win"
        return f"Win by {coup.margin}" if coup.margin >= 4 else "Win by 1-3"

    return classify


_DRAGON_BONUS_PAYS = {
    "Natural win": F(1),
    "Win by 9": F(30),
    "Win by 8": F(10),
    "Win by 7": F(6),
    "Win by 6": F(4),
    "Win by 5": F(2),
    "Win by 4": F(1),
    "Natural tie": PUSH,
    "Win by 1-3": LOSE,
    "Tie without natural": LOSE,
    "Hand loses": LOSE,
}


# --- the built-in games' names in the page's other language, and where their spots sit ---------------------

#: The events' words in Simplified Chinese (each wager takes those of its own events).
_ZH_EVENTS = {
    "Player wins": "闲赢", "Banker wins": "庄赢", "Tie": "和局", "Dealer wins": "荷官赢", "Natural win": "例牌赢",
    "Win by 9": "赢 9 点", "Win by 8": "赢 8 点", "Win by 7": "赢 7 点", "Win by 6": "赢 6 点", "Win by 5": "赢 5 点",
    "Win by 4": "赢 4 点", "Win by 1-3": "赢 1 至 3 点", "Natural tie": "例牌和局", "Tie without natural": "非例牌和局",
    "Hand loses": "该方输", "Dragon 7 (Banker pushes)": "龙7（庄退回本金）", "Dragon 7": "龙7",
    "No Dragon 7": "没有龙7", "Panda 8": "熊猫8", "No Panda 8": "没有熊猫8",
    "Lucky 9 (3-card 9)": "幸运9（三张牌 9 点）", "Lucky 8 (3-card 8)": "幸运8（三张牌 8 点）",
    "Lucky 7 (3-card 7)": "幸运7（三张牌 7 点）",
    "Win with 6 or less": "以 6 点或以下赢", **{event: word for event, word in zip(
        BLOCK_EVENTS, ("至尊封牌", "对子封牌", "同花封牌", "普通封牌", "无封牌"), strict=True)},
}
#: The same words in Traditional Chinese (zh-Hant: Hong Kong's, Macau's and Taiwan's players), by their
#: Simplified words: every built-in game's and wager's name and event in both Chinese scripts.
_HANT = {
    "以 6 点或以下赢": "以 6 點或以下贏", "例牌和局": "例牌和局", "例牌赢": "例牌贏", "免佣百家乐": "免佣百家樂",
    "入局注": "入局注", "同花封牌": "同花封牌", "和": "和", "和局": "和局", "对子封牌": "對子封牌",
    "封牌奖": "封牌獎", "幸运7（三张牌 7 点）": "幸運7（三張牌 7 點）",
    "幸运8（三张牌 8 点）": "幸運8（三張牌 8 點）", "幸运9（三张牌 9 点）": "幸運9（三張牌 9 點）",
    "幸运补牌百家乐": "幸運補牌百家樂", "庄": "莊", "庄赢": "莊贏", "庄龙宝": "莊龍寶", "您的牌赢": "您的牌贏",
    "无封牌": "無封牌", "普通封牌": "普通封牌", "没有熊猫8": "沒有熊貓8", "没有龙7": "沒有龍7", "熊猫8": "熊貓8",
    "至尊封牌": "至尊封牌", "荷官赢": "荷官贏", "补牌注": "補牌注", "该方输": "該方輸",
    "赢 1 至 3 点": "贏 1 至 3 點", "赢 4 点": "贏 4 點", "赢 5 点": "贏 5 點", "赢 6 点": "贏 6 點",
    "赢 7 点": "贏 7 點", "赢 8 点": "贏 8 點", "赢 9 点": "贏 9 點", "迷你百家乐": "迷你百家樂", "闲": "閒",
    "闲赢": "閒贏", "闲龙宝": "閒龍寶", "非例牌和局": "非例牌和局", "龙7": "龍7",
    "龙7（庄退回本金）": "龍7（莊退回本金）",
}


def _zh(simplified: str) -> dict[str, str]:
    """A name in both Chinese scripts."""
    return {"zh-CN": simplified, "zh-Hant": _HANT[simplified]}


#: English words of events where the page says more than the event's name.
_EN_EVENTS = {"Win by 1-3": "Win by 1 to 3", "Tie without natural": "Tie without a natural"}


def _named(wager: Wager[Any], zh: str, felt: Felt, *, en_events: dict[str, str] | None = None,
           zh_events: dict[str, str] | None = None) -> Wager[Any]:
    """A built-in wager with its Chinese name (``zh``, Simplified; Traditional from :data:`_HANT`), its events'
    words and its place on the felt."""
    english = {e: w for e, w in {**_EN_EVENTS, **(en_events or {})}.items() if e in wager.paytable}
    chinese = {e: w for e, w in {**_ZH_EVENTS, **(zh_events or {})}.items() if e in wager.paytable}
    traditional = {e: _HANT[w] for e, w in chinese.items()}
    return replace(wager, names=_zh(zh), felt=felt,
                   event_names={**({"en": english} if english else {}), "zh-CN": chinese, "zh-Hant": traditional})


def _punto_banco_wagers(banker_win: Fraction) -> list[Wager[Coup]]:
    return [
        _named(Wager("player", "Player", _side_event, {"Player wins": F(1), "Tie": PUSH, "Banker wins": LOSE}),
               "闲", Felt("player", 0, 1)),
        _named(Wager("banker", "Banker", _side_event, {"Banker wins": banker_win, "Tie": PUSH, "Player wins": LOSE}),
               "庄", Felt("banker", 0, 3)),
        _named(Wager("tie", "Tie", _side_event, {"Tie": F(8), "Player wins": LOSE, "Banker wins": LOSE}),
               "和", Felt("centre", 0, 2)),
    ]


MINI = Game(
    code="mini",
    name="Mini-Baccarat",
    kind="punto_banco",
    wagers=(
        *_punto_banco_wagers(F(19, 20)),  # 1 to 1 less 5% commission
        _named(Wager("dragon_bonus_player", "Dragon Bonus on Player", _dragon_bonus("player"), _DRAGON_BONUS_PAYS,
                     requires="player"), "闲龙宝", Felt("player", 0, 0)),
        _named(Wager("dragon_bonus_banker", "Dragon Bonus on Banker", _dragon_bonus("banker"), _DRAGON_BONUS_PAYS,
                     requires="banker"), "庄龙宝", Felt("banker", 0, 4)),
    ),
    names=_zh("迷你百家乐"),
    limits=TableLimits(
        100,
        {"player": 500_000, "banker": 500_000, "tie": 50_000,
         "dragon_bonus_player": 50_000, "dragon_bonus_banker": 50_000},
    ),
)

EZ = Game(
    code="ez",
    name="EZ Baccarat",
    kind="punto_banco",
    wagers=(
        _named(Wager("player", "Player", _side_event, {"Player wins": F(1), "Tie": PUSH, "Banker wins": LOSE}),
               "闲", Felt("player", 0, 1)),
        _named(Wager(
            "banker",
            "Banker",
            _ez_banker_event,
            {"Banker wins": F(1), "Dragon 7 (Banker pushes)": PUSH, "Tie": PUSH, "Player wins": LOSE},
        ), "庄", Felt("banker", 0, 3)),
        _named(Wager("tie", "Tie", _side_event, {"Tie": F(8), "Player wins": LOSE, "Banker wins": LOSE}),
               "和", Felt("centre", 0, 2)),
        _named(Wager("dragon_7", "Dragon 7", lambda c: "Dragon 7" if is_dragon_7(c) else "No Dragon 7",
                     {"Dragon 7": F(40), "No Dragon 7": LOSE}), "龙7", Felt("banker", 0, 4)),
        _named(Wager("panda_8", "Panda 8", lambda c: "Panda 8" if is_panda_8(c) else "No Panda 8",
                     {"Panda 8": F(25), "No Panda 8": LOSE}), "熊猫8", Felt("player", 0, 0)),
    ),
    names=_zh("免佣百家乐"),
    limits=TableLimits(100, {code: 2_500 for code in ("player", "banker", "tie", "dragon_7", "panda_8")}),
)

# --- Lucky Draw ---------------------------------------------------------------------

#: DrawWin pay tables: the odds on a Lucky 7 differ (2 to 1 in table 1, 3 to 2 in table 2).
DRAWWIN_LUCKY_7 = {1: F(2), 2: F(3, 2)}


def _enter_event(hand: LuckyDrawHand) -> str:
    return {"player": "Player wins", "tie": "Tie", "dealer": "Dealer wins"}[hand.winner]


def _draw_event(hand: LuckyDrawHand) -> str:
    if hand.winner != "player":
        return _enter_event(hand)
    return {9: "Lucky 9 (3-card 9)", 8: "Lucky 8 (3-card 8)", 7: "Lucky 7 (3-card 7)"}.get(
        hand.seat_total, "Win with 6 or less"
    )


#: At Lucky Draw the Player is the seat's own hand.
_YOUR_HAND = {"Player wins": "Your hand wins"}
_ZH_YOUR_HAND = {"Player wins": "您的牌赢"}


def lucky_draw(paytable: int = 1) -> Game:
    """Lucky Draw Baccarat with DrawWin pay table 1 or 2."""
    if paytable not in DRAWWIN_LUCKY_7:
        raise ConfigurationError.coded("game.paytable", paytable=paytable)
    block_pays = dict(zip(BLOCK_EVENTS, (F(35), F(10), F(5), F(2), LOSE), strict=True))
    return Game(
        code="lucky-draw",
        name=f"Lucky Draw Baccarat (DrawWin pay table {paytable})",
        kind="lucky_draw",
        paytable=paytable,
        wagers=(
            _named(Wager("enter", "Enter", _enter_event, {"Player wins": F(1), "Tie": PUSH, "Dealer wins": LOSE}),
                   "入局注", Felt("centre", 0, 0), en_events=_YOUR_HAND, zh_events=_ZH_YOUR_HAND),
            _named(Wager(
                "draw",
                "Draw",
                _draw_event,
                {
                    "Lucky 9 (3-card 9)": F(3),
                    "Lucky 8 (3-card 8)": F(2),
                    "Lucky 7 (3-card 7)": DRAWWIN_LUCKY_7[paytable],
                    "Win with 6 or less": F(1),
                    "Tie": PUSH,
                    "Dealer wins": LOSE,
                },
                requires="enter",
                placed="decision",
            ), "补牌注", Felt("centre", 0, 1), en_events=_YOUR_HAND, zh_events=_ZH_YOUR_HAND),
            _named(Wager("block_bonus", "Block Bonus", lambda hand: hand.block_bonus, block_pays,
                         requires="enter", settles="first_deal"), "封牌奖", Felt("centre", 0, 2)),
        ),
        names={"en": "Lucky Draw Baccarat", **_zh("幸运补牌百家乐")},
        limits=TableLimits(100, {"enter": 50_000, "block_bonus": 10_000}),
    )


LUCKY_DRAW = lucky_draw(1)
LUCKY_DRAW_2 = lucky_draw(2)

# --- the registry -------------------------------------------------------------------
#
# Every game is registered here once; the command line's choices, the server's validation, the
# counting studies' eligibility and ``GET /api/games`` all read this registry.  Rules files
# (:mod:`baccarat.core.rulesfile`) add games to it.

#: code -> the game, for a DrawWin pay table (None: the game's own) -> Game
_REGISTRY: dict[str, Callable[[int | None], Game]] = {}
_BUILT_IN: set[str] = set()


def _fixed(game: Game) -> Callable[[int | None], Game]:
    def chosen(paytable: int | None) -> Game:
        if paytable is not None and paytable != game.paytable:
            raise ConfigurationError(f"--paytable applies to Lucky Draw games only, not {game.code}")
        return game

    return chosen


def register(game: Game | Callable[[int | None], Game], code: str | None = None, *, replace: bool = False) -> None:
    """Add a game to the registry: a :class:`Game`, or a factory taking a DrawWin pay table (with ``code``).

    A code already registered is refused unless ``replace`` (a rules file read again).
    """
    if isinstance(game, Game):
        code, factory = game.code, _fixed(game)
    else:
        if code is None:
            raise ConfigurationError("a game factory needs its code")
        factory = game
    if code in _BUILT_IN:
        raise ConfigurationError(f"{code!r} is a built-in game; give the game in the rules file another code")
    if code in _REGISTRY and not replace:
        raise ConfigurationError(f"there is already a game called {code!r}")
    _REGISTRY[code] = factory


def unregister(code: str) -> None:
    """Remove a game added by a rules file (tests; built-in games stay)."""
    if code in _BUILT_IN:
        raise ConfigurationError(f"{code!r} is a built-in game")
    _REGISTRY.pop(code, None)


def built_in(code: str) -> bool:
    """Whether ``code`` is one of the built-in games (not from a rules file)."""
    return code in _BUILT_IN


def game_codes() -> tuple[str, ...]:
    """The codes of every registered game, built-in ones first."""
    return tuple(_REGISTRY)


def get_game(code: str, *, paytable: int | None = None) -> Game:
    """The registered game ``code``; ``paytable`` only for Lucky Draw games."""
    factory = _REGISTRY.get(code)
    if factory is None:
        raise ConfigurationError.coded("game.unknown", game=code, games=list(_REGISTRY))
    return factory(paytable)


def all_games() -> tuple[Game, ...]:
    """Every registered game as served: a Lucky Draw game once per DrawWin pay table it offers."""
    out: list[Game] = []
    for code in _REGISTRY:
        game = get_game(code)
        if game.kind != "lucky_draw":
            out.append(game)
            continue
        for paytable in sorted(DRAWWIN_LUCKY_7):
            try:
                out.append(get_game(code, paytable=paytable))
            except ConfigurationError:  # a rules file's Lucky Draw game offers one pay table
                continue
    return tuple(out)


def _lucky_draw_factory(paytable: int | None) -> Game:
    return lucky_draw(1 if paytable is None else paytable)


register(MINI)
register(EZ)
register(_lucky_draw_factory, "lucky-draw")
_BUILT_IN.update(_REGISTRY)
#: The built-in games (the registry may hold more: :func:`game_codes`).
GAME_CODES = tuple(_REGISTRY)


#: The event each Lucky Draw pay table is known by at the table: DrawWin's two tables differ only in
#: what a Lucky 7 pays; the Block Bonus is sold on its top prize.  (A player picks "Lucky 7 pays 2:1",
#: never "pay table 1".)
PAYTABLE_HEADLINES = {"draw": "Lucky 7 (3-card 7)", "block_bonus": "Ultimate Block"}


#: What each Block Bonus result means, in the rule card's words (the page's rules panel; each
#: language's catalogue words them as ``rule.<event>``, these are the English).
EVENT_RULES = {
    "Ultimate Block": "a pair, both cards in the dealer's first card's suit, higher than it",
    "Pair Block": "a pair, one card in the dealer's first card's suit and higher than it",
    "Flush Block": "two cards of the dealer's first card's suit, not a pair, at least one higher than it",
    "Normal Block": "one card in the dealer's first card's suit and higher than it",
    "No Block": "neither card is in the dealer's first card's suit and higher than it",
}


def paytable_name(game: Game, wager_code: str) -> tuple[str, Fraction] | None:
    """The event a wager's pay table is named by at the table and what it pays (None: a wager whose pay
    table needs no name, or a game without that event), read from the game's own pays, so a rules file's
    Lucky Draw game is named by what it pays.

    >>> event, odds = paytable_name(LUCKY_DRAW_2, "draw")
    >>> event, str(odds)
    ('Lucky 7 (3-card 7)', '3/2')
    >>> paytable_name(MINI, "player") is None
    True
    """
    event = PAYTABLE_HEADLINES.get(wager_code)
    if event is None or game.kind != "lucky_draw" or wager_code not in wager_codes(game):
        return None
    odds = game.wager(wager_code).paytable.get(event)
    return None if odds is None or odds <= 0 else (event, odds)


def wager_codes(game: Game) -> tuple[str, ...]:
    """All wager codes of a game in layout order (including Lucky Draw's Draw)."""
    return tuple(w.code for w in game.wagers)
