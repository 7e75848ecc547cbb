"""What the page needs to know of each game: its wagers with their pays and limits, its drawing rules, and the
limits a table keeps (stored with the table, the game's own where it stores none)."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from typing import Any

from baccarat.core.games import Game, TableLimits, Wager
from baccarat.core.registry import EVENT_RULES, all_games, get_game, paytable_name
from baccarat.core.tableau import BANKER_CHART, PLAYER_CHART, PLAYER_STOOD, dealer_draws
from baccarat.server.playing import shapes


@lru_cache(maxsize=256)
def stored_limits(game: str, paytable: int | None, stored: str | None) -> TableLimits:
    if stored is None:
        return get_game(game, paytable=paytable).limits
    data = json.loads(stored)
    return TableLimits(data["minimum"], data["maximums"])


def limits_json(limits: TableLimits) -> shapes.LimitsJson:
    return {"minimum": limits.minimum, "maximums": dict(limits.maximums)}


# --- the games' wagers, as the page needs them -------------------------------------------------------


def odds_label(odds: Fraction) -> str:
    """``1:1``, ``0.95:1``, ``3:2``, ``push``, ``loses``.

    >>> [odds_label(Fraction(n, d)) for n, d in ((19, 20), (3, 2), (40, 1), (0, 1), (-1, 1))]
    ['0.95:1', '3:2', '40:1', 'push', 'loses']
    """
    if odds < 0:
        return "loses"
    if odds == 0:
        return "push"
    if odds.denominator == 1:
        return f"{odds.numerator}:1"
    if 100 % odds.denominator == 0 and odds.denominator not in (2, 4):
        return f"{float(odds):g}:1"
    return f"{odds.numerator}:{odds.denominator}"


def _pay(event: str, odds: Fraction) -> shapes.Pay:
    return {"event": event, "odds": str(odds), "label": odds_label(odds), "rule": EVENT_RULES.get(event)}


def _wager_json(wager: Wager[Any], limits: TableLimits, game: Game) -> shapes.WagerInfo:
    pays: list[shapes.Pay] = [_pay(event, odds) for event, odds in wager.paytable.items()]
    named = paytable_name(game, wager.code)
    best = max(wager.paytable.values())
    winning = [odds_label(odds) for odds in wager.paytable.values() if odds > 0]
    felt: shapes.FeltInfo = {"side": wager.felt.side, "row": wager.felt.row, "order": wager.felt.order}
    return {"code": wager.code, "name": wager.name, "names": dict(wager.names),
            "event_names": {language: dict(words) for language, words in wager.event_names.items()}, "felt": felt,
            "placed": wager.placed, "requires": wager.requires,
            "settles": wager.settles, "maximum": limits.maximum(wager.code), "pays": pays,
            "summary": winning[0] if len(set(winning)) == 1 else f"up to {odds_label(best)}",
            "headline": None if named is None else _pay(*named),
            "fee": None if not wager.fee else f"{wager.fee.numerator}/{wager.fee.denominator}",
            "multiplied": game.multiplies(wager.code)}


@lru_cache(maxsize=64)
def wagers_json(game_code: str, paytable: int | None, stored: str | None) -> tuple[shapes.WagerInfo, ...]:
    game = get_game(game_code, paytable=paytable)
    limits = stored_limits(game_code, paytable, stored)
    return tuple(_wager_json(w, limits, game) for w in game.wagers)


def game_json(game: Game) -> shapes.GameInfo:
    return {"code": game.code, "name": game.name, "names": dict(game.names), "kind": game.kind,
            "paytable": game.paytable,
            "max_seats": game.max_seats, "minimum": game.limits.minimum,
            "wagers": [_wager_json(w, game.limits, game) for w in game.wagers],
            "paytable_name": _paytable_name(game), "dealer_draws": _dealer_draws(game),
            "drawing": _drawing(game)}


def _paytable_name(game: Game) -> str | None:
    """Lucky Draw's DrawWin table as players name it (the registry's headline): never "pay table 1"."""
    named = paytable_name(game, "draw")
    return None if named is None else f"{named[0]} pays {odds_label(named[1])}"


def _dealer_draws(game: Game) -> list[int] | None:
    """Lucky Draw: the dealer's two-card totals that draw (the rules panel says how the dealer draws)."""
    return [total for total in range(10) if dealer_draws(total)] if game.kind == "lucky_draw" else None


def _drawing(game: Game) -> shapes.DrawingRules | None:
    """Punto banco: the drawing rules as the layout's chart prints them, read from the tableau itself
    (the rules panel draws its table from this, so the page never types the rules again)."""
    if game.kind == "lucky_draw":
        return None
    return {"player_draws": [total for total, draws in enumerate(PLAYER_CHART) if draws],
            "banker_draws_player_stood": [total for total, row in BANKER_CHART.items() if row[PLAYER_STOOD]],
            "banker_draws": {str(total): [third for third in range(10) if row[third]]
                             for total, row in BANKER_CHART.items()}}


def games_json() -> list[shapes.GameInfo]:
    """Every game and its wagers with names and pays, from :mod:`baccarat.core.registry` (``GET /api/games``);
    Lucky Draw once per DrawWin pay table."""
    return [game_json(game) for game in all_games()]
