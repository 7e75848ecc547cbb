"""May these chips go on these spots?  The one stake rule of every table: the core's
:class:`~baccarat.core.table.Table`, the server's bets (REST and sockets, one at a time or a whole group commit)
and the docs follow it.

:func:`check_stakes` is pure: given the game, the table's limits, what the player already has on the layout this
round, the new chips, and (where known) the player's own limits in force and the balance they have been shown, it
returns the player's stakes after the chips go down, or raises the refusal a dealer would give, coded with its
parameters (:mod:`baccarat.core.messages` says it in words).  It checks, in this order, and names the first
problem found:

1. the chips: at least one spot, each a wager of the game placed while betting is open, each amount a whole
   positive number of minor units within bounds;
2. the table's limits on each spot's total (chips on a spot already bet add up to it; over the maximum it
   names the room left on that spot);
3. the prerequisites (a side wager needs its base wager on the layout);
4. the player's own limits (stake and loss limits over a period, counted by the house);
5. the balance shown to the player.

A wager with a fee (a rules file's ``fee``) costs its stake and the fee: the own limits and the balance are
checked against both (:func:`fee_for`).

>>> from baccarat.core.registry import MINI
>>> check_stakes(MINI, MINI.limits, {"banker": 1_000}, {"banker": 500, "tie": 100})
{'banker': 1500, 'tie': 100}
>>> check_stakes(MINI, MINI.limits, {}, {"banker": 500}, balance=300)
Traceback (most recent call last):
...
baccarat.core.errors.InsufficientFundsError: Bets of 5.00 are more than your balance of 3.00: take chips off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from baccarat.core.errors import (
    BetLimitError,
    IllegalActionError,
    InsufficientFundsError,
    ProtectionError,
    WagerPrerequisiteError,
)
from baccarat.core.games import Game, TableLimits, fee_of
from baccarat.core.money import check_amount


@dataclass(frozen=True)
class OwnLimit:
    """One of the player's own limits in force: at most ``amount`` of ``kind`` (``stake``: chips staked;
    ``loss``: net lost) over ``period`` (``day``, ``week``, ``month``), of which ``used`` is already counted."""

    kind: str
    period: str
    amount: int
    used: int


def check_stakes(game: Game, limits: TableLimits, placed: Mapping[str, int], bets: Mapping[str, int], *,
                 own_limits: Sequence[OwnLimit] = (), balance: int | None = None) -> dict[str, int]:
    """The player's stakes on the round once ``bets`` (wager code -> minor units) are added to ``placed`` (the
    player's stakes already on the layout), or the refusal, raised (see the module for the order of the
    checks).  ``balance`` is what the player may stake (the balance shown to them); None checks no balance."""
    if not isinstance(bets, Mapping) or not bets:
        raise IllegalActionError.coded("bet.no_wager")
    combined = dict(placed)
    for code, amount in bets.items():
        wager = game.wager(code)
        if wager.placed != "betting":
            raise IllegalActionError.coded("bet.draw_at_decision", wager=code, names={"wager": wager.name})
        check_amount(amount)
        combined[code] = combined.get(code, 0) + amount
    for code, stake in combined.items():
        _check_limits(game, limits, code, stake, already=placed.get(code, 0) if code in bets else 0)
    for code in combined:
        required = game.wager(code).requires
        if required is not None and required not in combined:
            raise WagerPrerequisiteError.coded("bet.needs_base", wager=code, base=required, names={
                "wager": game.wager(code).name, "base": game.wager(required).name})
    total = sum(bets.values()) + fee_for(game, placed, bets)
    check_own_limits(own_limits, total)
    if balance is not None and total > balance:
        # nothing left: "more than your balance of 0.00" asks for a smaller chip that does not exist
        raise (InsufficientFundsError.coded("bet.balance_used_up", amount=total) if balance <= 0
               else InsufficientFundsError.coded("bet.balance", amount=total, balance=balance))
    return combined


def fee_for(game: Game, placed: Mapping[str, int], bets: Mapping[str, int]) -> int:
    """The fee charged with ``bets`` added to ``placed``: on each spot, the fee of its new total less the fee of
    what was on it (so the fees of a spot always come to the fee of its total, however the chips went down)."""
    total = 0
    for code, amount in bets.items():
        wager = game.wager(code)
        if wager.fee:
            before = placed.get(code, 0)
            total += fee_of(wager, before + amount) - fee_of(wager, before)
    return total


def fees_of(game: Game, stakes: Mapping[str, int]) -> int:
    """The fees paid on ``stakes`` (wager code -> the spot's total)."""
    return sum(fee_of(game.wager(code), amount) for code, amount in stakes.items())


def check_own_limits(own_limits: Sequence[OwnLimit], stake: int) -> None:
    """Refuse a ``stake`` that would pass one of the player's own limits, naming it and what is left (the first
    passed, in the order given)."""
    for limit in own_limits:
        if limit.used + stake > limit.amount:
            left = max(limit.amount - limit.used, 0)
            raise ProtectionError.coded("protection.limit_left" if left else "protection.limit_reached",
                                        stake=stake, kind=limit.kind, limit=limit.amount, period=limit.period,
                                        left=left)


def _check_limits(game: Game, limits: TableLimits, code: str, stake: int, *, already: int) -> None:
    """``stake`` is the wager's total; ``already`` of it was on the layout before (chips add up)."""
    names = {"wager": game.wager(code).name}
    if stake < limits.minimum:
        raise BetLimitError.coded("bet.below_minimum", wager=code, amount=stake, minimum=limits.minimum, names=names)
    maximum = limits.maximum(code)
    if maximum is not None and stake > maximum and already:
        if already >= maximum:
            raise BetLimitError.coded("bet.at_maximum", wager=code, maximum=maximum, names=names)
        raise BetLimitError.coded("bet.room_left", wager=code, amount=maximum - already, maximum=maximum,
                                  names=names)
    if maximum is not None and stake > maximum:
        raise BetLimitError.coded("bet.above_maximum", wager=code, amount=stake, maximum=maximum, names=names)
