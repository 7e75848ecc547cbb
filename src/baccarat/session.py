"""A one-player session at a table: plays round orders and records each round for the transcript.

Terminal play, scripted play and their tests all go through :class:`Session`,
so a script and a keyboard produce the same rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baccarat.errors import BaccaratError, IllegalActionError, InsufficientFundsError
from baccarat.events import BetSettled, CoupResolved, Event
from baccarat.games import Game
from baccarat.lucky import LuckyDrawHand
from baccarat.money import format_amount
from baccarat.presets import is_dragon_7, is_panda_8
from baccarat.script import RoundOrder
from baccarat.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS, live_rng, seeded_rng
from baccarat.table import Phase, Table

SEAT = 1
Decider = Callable[[LuckyDrawHand], str]


class Session:
    """One player, seat 1, at a fresh table of ``game``."""

    def __init__(
        self,
        game: Game,
        *,
        bankroll: int,
        seed: int | None = None,
        decks: int = DEFAULT_DECKS,
        cut_card: int = DEFAULT_CUT_CARD,
        player: str = "player",
    ):
        rng = seeded_rng(seed) if seed is not None else live_rng()
        self.game, self.seed, self.decks = game, seed, decks
        self.table = Table(game, rng=rng, decks=decks, cut_card=cut_card)
        self.table.sit(SEAT, player, bankroll)
        self.rounds: list[dict[str, Any]] = []

    @property
    def balance(self) -> int:
        return self.table.seats[SEAT].balance

    def play(self, order: RoundOrder, *, decide: Decider | None = None) -> dict[str, Any]:
        """Play one round; a refused order is recorded with ``"rejected"`` and changes nothing.

        In Lucky Draw the order's own decision is used; without one, ``decide``
        is asked after the first deal, and with neither the seat stands.
        """
        table = self.table
        if table.phase is Phase.IDLE:
            table.open_betting()
        try:
            self._check_order(order)
            table.place_bets(SEAT, order.bets)
        except BaccaratError as error:
            return self.reject(str(error))
        first_event = len(table.events)
        table.close_betting()
        table.deal()
        if table.phase is Phase.DECISION:
            choice = order.decision or (decide(table.lucky_hand(SEAT)) if decide else "stand")
            table.decide(SEAT, choice)
        record = self._record(first_event)
        self.rounds.append(record)
        return record

    def reject(self, reason: str, *, line: str | None = None) -> dict[str, Any]:
        """Record a refused order: the reason and the unchanged balance."""
        record: dict[str, Any] = {"rejected": reason, "balance": self.balance}
        if line is not None:
            record["line"] = line
        self.rounds.append(record)
        return record

    def _check_order(self, order: RoundOrder) -> None:
        if self.game.kind != "lucky_draw":
            if order.decision is not None:
                raise IllegalActionError(f"'{order.decision}' is a Lucky Draw decision; {self.game.name} has none")
            return
        if order.decision == "draw":
            enter = order.bets.get("enter", 0)
            needed = sum(order.bets.values()) + enter
            if needed > self.balance:
                raise InsufficientFundsError(
                    f"bets plus the Draw wager ({format_amount(needed)}) exceed the balance of "
                    f"{format_amount(self.balance)}"
                )

    def _record(self, first_event: int) -> dict[str, Any]:
        table = self.table
        events = table.events[first_event:]
        record: dict[str, Any] = {"round": table.round_no, "shoe": table.shoe_no}
        record["bets"] = dict(table.bets.get(SEAT, {}))
        if self.game.kind == "lucky_draw":
            hand = table.lucky_hand(SEAT)
            record["seat_cards"] = [str(c) for c in hand.seat_cards]
            record["dealer_cards"] = [str(c) for c in hand.dealer_cards]
            record["seat_total"], record["dealer_total"] = hand.seat_total, hand.dealer_total
            record["result"] = hand.winner
        else:
            coup = next(e.coup for e in events if isinstance(e, CoupResolved))
            record["player_cards"] = [str(c) for c in coup.player_cards]
            record["banker_cards"] = [str(c) for c in coup.banker_cards]
            record["player_total"], record["banker_total"] = coup.player_total, coup.banker_total
            record["result"] = coup.winner
        settled = [e for e in events if isinstance(e, BetSettled) and e.seat == SEAT]
        record["callouts"] = self._callouts(events, settled)
        record["events"] = {e.wager: e.event for e in settled}
        record["net"] = {e.wager: e.net for e in settled}
        record["balance"] = self.balance
        return record

    def _callouts(self, events: list[Event], settled: list[BetSettled]) -> list[str]:
        """What the dealer announces: Natural, Dragon 7, Panda 8 (EZ), the Block Bonus category."""
        if self.game.kind == "lucky_draw":
            return [s.event for s in settled if s.wager == "block_bonus" and s.net > 0]
        coup = next(e.coup for e in events if isinstance(e, CoupResolved))
        codes = {wager.code for wager in self.game.wagers}
        announced = [("Natural", coup.natural), ("Dragon 7", "dragon_7" in codes and is_dragon_7(coup)),
                     ("Panda 8", "panda_8" in codes and is_panda_8(coup))]
        return [name for name, happened in announced if happened]

    def transcript(self) -> dict[str, Any]:
        """The JSON transcript of every round played so far."""
        doc: dict[str, Any] = {"game": self.game.code, "seed": self.seed, "decks": self.decks}
        if self.game.paytable is not None:
            doc["paytable"] = self.game.paytable
        doc["rounds"] = self.rounds
        doc["final_balance"] = self.balance
        return doc
