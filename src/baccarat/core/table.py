"""The table: seats and wallets, limits, the round state machine, and its event log.

Round flow: ``open_betting`` -> ``place_bets``/``remove_bet`` -> ``close_betting``
-> ``deal`` (punto banco: the whole coup and its settlement; Lucky Draw: the
first deal and Block Bonus) -> Lucky Draw only: ``decide`` for each seat in
order (``timeout`` stands) -> the dealer completes and every wager settles.

Every action comes as a triad: ``verify_x()`` raises a specific
:class:`~baccarat.core.errors.BaccaratError` saying what is wrong, ``can_x()``
answers, ``x()`` acts and returns the events it appended to :attr:`Table.events`.
State changes only in :meth:`Table._apply`, so a refused action changes
nothing and :meth:`Table.replay` rebuilds a table from its events.

>>> from baccarat.core.registry import EZ
>>> from baccarat.core.shoe import seeded_rng
>>> table = Table(EZ, rng=seeded_rng(1))
>>> _ = table.sit(1, "ann", 10_000)
>>> _ = table.open_betting()
>>> _ = table.place_bets(1, {"banker": 2_500})
>>> _ = table.close_betting()
>>> _ = table.deal()
>>> table.phase.value, table.seats[1].balance in (7_500, 10_000, 12_500)
('idle', True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from baccarat.core.cards import Card, hand_total
from baccarat.core.coup import MAX_COUP_CARDS, deal_coup
from baccarat.core.errors import (
    BaccaratError,
    IllegalActionError,
    InsufficientFundsError,
    ReplayError,
    ShoeError,
    UnknownSeatError,
    WagerPrerequisiteError,
)
from baccarat.core.events import (
    BetPlaced,
    BetRemoved,
    BetSettled,
    BettingClosed,
    BettingOpened,
    CardDealt,
    CoupResolved,
    DealerResolved,
    DealStarted,
    DecisionMade,
    Event,
    RoundEnded,
    SeatLeft,
    SeatTaken,
    ShoeEnded,
    ShoeStarted,
)
from baccarat.core.games import Game, TableLimits, settle
from baccarat.core.lucky import LuckyDrawHand
from baccarat.core.money import check_amount
from baccarat.core.shoe import (
    DEFAULT_CUT_CARD,
    DEFAULT_DECKS,
    RandomSource,
    Shoe,
    check_cut_card,
    check_decks,
    live_rng,
)
from baccarat.core.stakes import check_stakes
from baccarat.core.tableau import dealer_draws

ShoeFactory = Callable[[], Shoe]


class Phase(StrEnum):
    """Where the table is in its round."""

    IDLE = "idle"  #: between rounds
    BETTING = "betting"
    CLOSED = "closed"  #: no more bets; cards not yet dealt
    DEALING = "dealing"  #: transient while a punto banco coup is dealt
    DECISION = "decision"  #: Lucky Draw seats are acting


@dataclass(slots=True)
class SeatState:
    """A seated player and their wallet balance (minor units)."""

    player: str
    balance: int


class Table:
    """One table of one game: the state machine every front end drives."""

    def __init__(
        self,
        game: Game,
        *,
        limits: TableLimits | None = None,
        shoe_factory: ShoeFactory | None = None,
        rng: RandomSource | None = None,
        decks: int = DEFAULT_DECKS,
        cut_card: int = DEFAULT_CUT_CARD,
    ):
        self.game = game
        self.limits = limits or game.limits
        if shoe_factory is None:
            source = rng if rng is not None else live_rng()
            check_cut_card(cut_card, 52 * check_decks(decks))  # refuse bad settings now, not at the first deal

            def shoe_factory() -> Shoe:
                return Shoe.shuffled(decks=decks, rng=source, cut_card=cut_card)
        self._new_shoe = shoe_factory
        self.events: list[Event] = []
        self.seats: dict[int, SeatState] = {}
        self.phase = Phase.IDLE
        self.round_no = 0
        self.shoe_no = 0
        self.shoe: Shoe | None = None
        self.house = 0  #: the house's net win over all settled wagers, minor units
        self._reset_round()

    def _reset_round(self) -> None:
        self.bets: dict[int, dict[str, int]] = {}
        self.hands: dict[str, list[Card]] = {}
        self.decisions: dict[int, str] = {}
        self.settlements: list[BetSettled] = []
        self._coup_started = False

    # --- the only place where state changes ------------------------------------

    def _apply(self, event: Event) -> None:
        match event:
            case SeatTaken(seat=seat, player=player, balance=balance):
                self.seats[seat] = SeatState(player, balance)
            case SeatLeft(seat=seat):
                del self.seats[seat]
            case ShoeStarted(shoe_no=number, cards=cards, cut_card=cut, burn=burn, burned=burned):
                shoe = Shoe(cards, cut_card=cut, burn=burn)
                if len(shoe.burned) != burned:
                    raise ReplayError(f"shoe {number}: the burn took {len(shoe.burned)} cards, not {burned}")
                self.shoe, self.shoe_no = shoe, number
            case ShoeEnded():
                self.shoe = None
            case BettingOpened(round_no=number):
                self.round_no, self.phase = number, Phase.BETTING
                self._reset_round()
            case BetPlaced(seat=seat, wager=code, amount=amount):
                self.seats[seat].balance -= amount
                stakes = self.bets.setdefault(seat, {})
                stakes[code] = stakes.get(code, 0) + amount
            case BetRemoved(seat=seat, wager=code, amount=amount):
                self.seats[seat].balance += amount
                del self.bets[seat][code]
                if not self.bets[seat]:
                    del self.bets[seat]
            case BettingClosed():
                self.phase = Phase.CLOSED
            case DealStarted(cards_needed=needed):
                self._require_shoe().start_coup(needed)
                self._coup_started = True
                self.phase = Phase.DECISION if self.game.kind == "lucky_draw" else Phase.DEALING
            case CardDealt(to=to, card=card):
                dealt = self._require_shoe().draw()
                if dealt != card:
                    raise ReplayError(f"the shoe holds {dealt} where the event says {card}")
                self.hands.setdefault(to, []).append(card)
            case DecisionMade(seat=seat, action=action, draw_stake=stake):
                self.decisions[seat] = action
                if stake:
                    self.seats[seat].balance -= stake
                    self.bets[seat]["draw"] = stake
            case CoupResolved(coup=coup):
                if list(coup.player_cards) != self.hands.get("player") or list(coup.banker_cards) != self.hands.get(
                    "banker"
                ):
                    raise ReplayError("the resolved coup does not match the cards dealt")
            case DealerResolved(dealer_cards=cards):
                if list(cards) != self.hands.get("dealer"):
                    raise ReplayError("the dealer's hand does not match the cards dealt")
            case BetSettled(seat=seat, stake=stake, net=net):
                self.seats[seat].balance += stake + net
                self.house -= net
                self.settlements.append(event)
            case RoundEnded():
                if self._coup_started:
                    self._require_shoe().end_coup()
                self.phase = Phase.IDLE
            case _:
                raise ReplayError(f"unknown event {event!r}")

    def _emit(self, *events: Event) -> list[Event]:
        for event in events:
            self._apply(event)
            self.events.append(event)
        return list(events)

    def _require_shoe(self) -> Shoe:
        if self.shoe is None:
            raise ShoeError("no shoe is in play")
        return self.shoe

    # --- seats ------------------------------------------------------------------

    def verify_sit(self, seat: int, player: str, balance: int) -> None:
        """Raise unless ``player`` may take the free ``seat`` with ``balance`` minor units."""
        self._check_seat_number(seat)
        if seat in self.seats:
            raise IllegalActionError.coded("seat.taken_by", seat=seat, player=self.seats[seat].player)
        if not isinstance(player, str) or not player.strip():
            raise IllegalActionError.coded("seat.needs_name")
        check_amount(balance)

    def can_sit(self, seat: int, player: str, balance: int) -> bool:
        return _can(self.verify_sit, seat, player, balance)

    def sit(self, seat: int, player: str, balance: int) -> list[Event]:
        """Seat ``player`` with a bankroll of ``balance`` minor units."""
        self.verify_sit(seat, player, balance)
        return self._emit(SeatTaken(self.round_no, seat=seat, player=player.strip(), balance=balance))

    def verify_leave(self, seat: int) -> None:
        self._check_seated(seat)
        if self.phase is not Phase.IDLE and seat in self.bets:
            raise IllegalActionError.coded("seat.has_bets", seat=seat)

    def can_leave(self, seat: int) -> bool:
        return _can(self.verify_leave, seat)

    def leave(self, seat: int) -> list[Event]:
        """The player leaves with their balance."""
        self.verify_leave(seat)
        return self._emit(SeatLeft(self.round_no, seat=seat, balance=self.seats[seat].balance))

    def _check_seat_number(self, seat: object) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= self.game.max_seats:
            raise UnknownSeatError.coded("seat.not_a_seat", seats=self.game.max_seats, seat=seat)

    def _check_seated(self, seat: object) -> None:
        self._check_seat_number(seat)
        if seat not in self.seats:
            raise UnknownSeatError.coded("seat.empty", seat=seat)

    # --- betting ----------------------------------------------------------------

    def verify_open_betting(self) -> None:
        if self.phase is not Phase.IDLE:
            raise IllegalActionError.coded("round.in_progress", phase=self.phase.value)

    def can_open_betting(self) -> bool:
        return _can(self.verify_open_betting)

    def open_betting(self) -> list[Event]:
        """Start the next round (and a new shoe when none is in play)."""
        self.verify_open_betting()
        events = [] if self.shoe is not None else self._start_shoe()
        return events + self._emit(BettingOpened(self.round_no + 1, shoe_no=self.shoe_no))

    def verify_place_bets(self, seat: int, bets: Mapping[str, int]) -> None:
        """Raise unless all of ``bets`` (wager code -> minor units) can be added to ``seat``'s bets: betting is
        open, the seat taken, and the stake rule (:func:`baccarat.core.stakes.check_stakes`) lets them in
        against the seat's balance."""
        if self.phase is not Phase.BETTING:
            raise IllegalActionError.coded("bet.betting_over" if self.phase is not Phase.IDLE
                                           else "bet.betting_not_opened")
        self._check_seated(seat)
        check_stakes(self.game, self.limits, self.bets.get(seat, {}), bets, balance=self.seats[seat].balance)

    def can_place_bets(self, seat: int, bets: Mapping[str, int]) -> bool:
        return _can(self.verify_place_bets, seat, bets)

    def place_bets(self, seat: int, bets: Mapping[str, int]) -> list[Event]:
        """Place several bets at once: all are accepted or none is."""
        self.verify_place_bets(seat, bets)
        return self._emit(*(BetPlaced(self.round_no, seat=seat, wager=c, amount=a) for c, a in bets.items()))

    def place_bet(self, seat: int, wager: str, amount: int) -> list[Event]:
        """Place (or add to) one bet."""
        return self.place_bets(seat, {wager: amount})

    def verify_remove_bet(self, seat: int, wager: str) -> None:
        if self.phase is not Phase.BETTING:
            raise IllegalActionError.coded("bet.take_back_closed")
        self._check_seated(seat)
        if wager not in self.bets.get(seat, {}):
            self.game.wager(wager)  # unknown codes get their own error
            raise IllegalActionError.coded("bet.nothing_to_take_back", seat=seat, wager=wager)
        for code in self.bets[seat]:
            if self.game.wager(code).requires == wager:
                raise WagerPrerequisiteError.coded("bet.take_back_side_first", wager=code,
                                                   names={"wager": self.game.wager(code).name})

    def can_remove_bet(self, seat: int, wager: str) -> bool:
        return _can(self.verify_remove_bet, seat, wager)

    def remove_bet(self, seat: int, wager: str) -> list[Event]:
        """Take a bet back while betting is open (Undo / Clear)."""
        self.verify_remove_bet(seat, wager)
        return self._emit(BetRemoved(self.round_no, seat=seat, wager=wager, amount=self.bets[seat][wager]))

    def verify_close_betting(self) -> None:
        if self.phase is not Phase.BETTING:
            raise IllegalActionError.coded("round.betting_not_open")

    def can_close_betting(self) -> bool:
        return _can(self.verify_close_betting)

    def close_betting(self) -> list[Event]:
        """No more bets."""
        self.verify_close_betting()
        return self._emit(BettingClosed(self.round_no))

    # --- dealing ----------------------------------------------------------------

    def verify_deal(self) -> None:
        if self.phase is not Phase.CLOSED:
            if self.phase is Phase.BETTING:
                raise IllegalActionError.coded("round.deal_after_betting")
            raise IllegalActionError.coded("round.cannot_deal", phase=self.phase.value)

    def can_deal(self) -> bool:
        return _can(self.verify_deal)

    def deal(self) -> list[Event]:
        """Deal the coup (punto banco, settled at once) or Lucky Draw's first deal."""
        self.verify_deal()
        if self.game.kind == "lucky_draw":
            return self._deal_lucky()
        events = self._ensure_cards(MAX_COUP_CARDS)
        shoe = self._require_shoe()
        upcoming = _upcoming(shoe)
        coup = deal_coup(lambda: next(upcoming))
        reasons = ["first card", "first card", "second card", "second card", coup.player_reason, coup.banker_reason]
        if len(coup.deal_order) == 5 and len(coup.player_cards) == 2:
            reasons[4] = coup.banker_reason  # only the Banker drew
        events += self._emit(DealStarted(self.round_no, cards_needed=MAX_COUP_CARDS))
        events += self._emit(*(CardDealt(self.round_no, to=side, card=card, reason=reason)
                               for (side, card), reason in zip(coup.deal_order, reasons, strict=False)))
        events += self._emit(CoupResolved(self.round_no, coup=coup))
        events += self._settle_all(lambda seat: coup, stage="coup")
        return events + self._end_round()

    def _deal_lucky(self) -> list[Event]:
        seats = self.seats_in_play()
        if not seats:
            return self._end_round()
        needed = 3 * len(seats) + 3
        events = self._ensure_cards(needed)
        shoe = self._require_shoe()
        events += self._emit(DealStarted(self.round_no, cards_needed=needed))
        order = [(f"seat:{s}", "first card") for s in seats] + [("dealer", "dealer's up card")]
        order += [(f"seat:{s}", "second card") for s in seats]
        events += self._emit(*(CardDealt(self.round_no, to=to, card=shoe.peek(i), reason=why)
                               for i, (to, why) in enumerate(order)))
        # Block Bonus needs only the first two cards and the up card: settled right away.
        return events + self._settle_all(self.lucky_hand, stage="first_deal")

    def seats_in_play(self) -> list[int]:
        """Lucky Draw: seats with an Enter wager this round, in dealing order."""
        return sorted(seat for seat, stakes in self.bets.items() if "enter" in stakes)

    def lucky_hand(self, seat: int) -> LuckyDrawHand:
        """A Lucky Draw seat's hand against the dealer's, as dealt so far."""
        return LuckyDrawHand(tuple(self.hands.get(f"seat:{seat}", ())), tuple(self.hands.get("dealer", ())))

    @property
    def seat_to_act(self) -> int | None:
        """Lucky Draw: the seat whose decision is awaited, or None."""
        if self.phase is not Phase.DECISION:
            return None
        return next((s for s in self.seats_in_play() if s not in self.decisions), None)

    def verify_decide(self, seat: int, action: str) -> None:
        """Raise unless ``seat`` may now ``"draw"`` or ``"stand"``."""
        if self.phase is not Phase.DECISION:
            raise IllegalActionError.coded("decision.none_awaited")
        self._check_seated(seat)
        if action not in ("draw", "stand"):
            raise IllegalActionError.coded("decision.unknown_action", action=action)
        if seat != self.seat_to_act:
            raise IllegalActionError.coded("decision.not_your_turn", turn=self.seat_to_act, seat=seat)
        enter = self.bets[seat]["enter"]
        if action == "draw" and enter > self.seats[seat].balance:
            raise InsufficientFundsError.coded("decision.draw_balance", enter=enter,
                                               balance=self.seats[seat].balance)

    def can_decide(self, seat: int, action: str) -> bool:
        return _can(self.verify_decide, seat, action)

    def decide(self, seat: int, action: str, *, timed_out: bool = False) -> list[Event]:
        """Lucky Draw: the seat to act stands or draws one card (placing Draw equal to Enter)."""
        self.verify_decide(seat, action)
        stake = self.bets[seat]["enter"] if action == "draw" else 0
        events = self._emit(DecisionMade(self.round_no, seat=seat, action="draw" if stake else "stand",
                                         draw_stake=stake, timed_out=timed_out))
        if stake:
            card = self._require_shoe().peek()
            events += self._emit(CardDealt(self.round_no, to=f"seat:{seat}", card=card, reason="Draw wager"))
        if self.seat_to_act is None:
            events += self._finish_lucky()
        return events

    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: it stands."""
        seat = self.seat_to_act
        if seat is None:
            raise IllegalActionError.coded("decision.none_awaited")
        return self.decide(seat, "stand", timed_out=True)

    def _finish_lucky(self) -> list[Event]:
        shoe = self._require_shoe()
        events = self._emit(CardDealt(self.round_no, to="dealer", card=shoe.peek(), reason="dealer's second card"))
        total = hand_total(self.hands["dealer"])
        if dealer_draws(total):
            reason = f"dealer draws on {total} (0-4 draws)"
            events += self._emit(CardDealt(self.round_no, to="dealer", card=shoe.peek(), reason=reason))
        dealer = tuple(self.hands["dealer"])
        events += self._emit(DealerResolved(self.round_no, dealer_cards=dealer, dealer_total=hand_total(dealer)))
        events += self._settle_all(self.lucky_hand, stage="coup")
        return events + self._end_round()

    def _settle_all(self, result_of: Callable[[int], Any], *, stage: str) -> list[Event]:
        settled = []
        for seat in sorted(self.bets):
            for wager in self.game.wagers:
                stake = self.bets[seat].get(wager.code)
                if stake and wager.settles == stage:
                    s = settle(wager, result_of(seat), stake)
                    settled.append(BetSettled(self.round_no, seat=seat, wager=s.wager, stake=stake,
                                              event=s.event, odds=s.odds, net=s.net))
        return self._emit(*settled)

    def _end_round(self) -> list[Event]:
        events = self._emit(RoundEnded(self.round_no))
        if self.shoe is not None and self.shoe.finished:
            events += self._end_shoe()
        return events

    def _ensure_cards(self, needed: int) -> list[Event]:
        """A coup is never split: end a shoe that cannot cover it and start another."""
        events: list[Event] = []
        if self.shoe is not None and not self.shoe.can_start_coup(needed):
            events += self._end_shoe()
        if self.shoe is None:
            events += self._start_shoe()
            if not self._require_shoe().can_start_coup(needed):
                raise ShoeError(f"a new shoe cannot cover a coup of {needed} cards")
        return events

    def _start_shoe(self) -> list[Event]:
        shoe = self._new_shoe()
        return self._emit(ShoeStarted(self.round_no, shoe_no=self.shoe_no + 1, cards=shoe.cards,
                                      cut_card=shoe.cut_card, burn=bool(shoe.burned), burned=len(shoe.burned)))

    def _end_shoe(self) -> list[Event]:
        shoe = self._require_shoe()
        return self._emit(ShoeEnded(self.round_no, shoe_no=self.shoe_no, cards_dealt=shoe.dealt,
                                    cards_left=shoe.remaining))

    # --- replay and inspection --------------------------------------------------

    @classmethod
    def replay(cls, game: Game, events: Iterable[Event], *, limits: TableLimits | None = None) -> Table:
        """Rebuild a table by applying a recorded event log (no shoe is ever shuffled)."""

        def no_new_shoe() -> Shoe:
            raise ReplayError("a replayed table cannot shuffle: new shoes come from ShoeStarted events")

        table = cls(game, limits=limits, shoe_factory=no_new_shoe)
        table._emit(*events)
        return table

    def snapshot(self) -> dict[str, Any]:
        """The whole observable state as plain data (used to compare live and replayed tables)."""
        shoe = self.shoe
        return {
            "phase": self.phase.value,
            "round_no": self.round_no,
            "shoe_no": self.shoe_no,
            "shoe": None if shoe is None else (shoe.cards, shoe.position, shoe.last_coup, shoe.finished),
            "seats": {seat: (s.player, s.balance) for seat, s in sorted(self.seats.items())},
            "bets": {seat: dict(stakes) for seat, stakes in sorted(self.bets.items())},
            "hands": {to: [str(c) for c in cards] for to, cards in sorted(self.hands.items())},
            "decisions": dict(self.decisions),
            "settlements": list(self.settlements),
            "house": self.house,
        }


def _upcoming(shoe: Shoe) -> Iterator[Card]:
    for offset in range(shoe.remaining):
        yield shoe.peek(offset)


def _can(verify: Callable[..., None], *args: Any) -> bool:
    try:
        verify(*args)
    except BaccaratError:
        return False
    return True


__all__: Sequence[str] = ("Phase", "SeatState", "ShoeFactory", "Table")
