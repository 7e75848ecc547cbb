"""A one-player session at a table: plays round orders and records each round for the transcript.

Terminal play, scripted play and their tests all go through :class:`Session`,
so a script and a keyboard produce the same rounds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import cast

from baccarat.cli.records import PlayedRound, RefusedRound, RoundRecord, ShoeRecord, ShoeRound, Transcript
from baccarat.cli.script import RoundOrder
from baccarat.core.errors import BaccaratError, ConfigurationError, IllegalActionError, InsufficientFundsError
from baccarat.core.events import BetSettled, CardDealt, CoupResolved, Event
from baccarat.core.fair import ALGORITHM, ShoeTree, check_client_seed, commitment, fair_cards, new_server_seed, shoe_key
from baccarat.core.games import Game
from baccarat.core.lucky import LuckyDrawHand
from baccarat.core.money import format_amount
from baccarat.core.registry import is_dragon_7, is_panda_8
from baccarat.core.roads import Scoreboard, hand_of
from baccarat.core.shoe import DEFAULT_CUT_CARD, DEFAULT_DECKS, Shoe, check_cut_card, check_decks
from baccarat.core.table import Phase, Table

SEAT = 1
Decider = Callable[[LuckyDrawHand], str]


class Session:
    """One player, seat 1, at a fresh table of ``game``.

    Every shoe is provably fair (:mod:`baccarat.core.fair`): its server seed comes
    from the operating system, or, with ``seed``, from the session seed and the
    shoe number (reproducible); the player's ``client_seed``, when given, is
    mixed into every shoe's shuffle.  The transcript publishes each shoe's
    record, seed included, for ``baccarat verify``.
    """

    def __init__(
        self,
        game: Game,
        *,
        bankroll: int,
        seed: int | None = None,
        decks: int = DEFAULT_DECKS,
        cut_card: int = DEFAULT_CUT_CARD,
        player: str = "player",
        client_seed: str | None = None,
    ):
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise ConfigurationError(f"seed must be a non-negative integer, got {seed!r}")
        self.game, self.seed, self.decks = game, seed, check_decks(decks)
        check_cut_card(cut_card, 52 * decks)  # refuse bad settings now, not at the first deal
        self.client_seed = None if client_seed is None else check_client_seed(client_seed)
        client_seeds = [] if client_seed is None else [client_seed]
        #: One record per shoe: commitment, seeds, burned cards and each round's cards in deal order.
        self.shoes: list[ShoeRecord] = []
        #: Shoe number -> its Merkle tree, for each round's proofs.
        self._trees: dict[int, ShoeTree] = {}

        def new_shoe() -> Shoe:
            number = len(self.shoes) + 1
            if self.shoes:  # the shoe before was finished at its last hand, or could not cover a coup
                self.shoes[-1].setdefault("ended", "too few cards")
            server_seed = new_server_seed() if seed is None else _derived_seed(seed, number)
            cards = fair_cards(shoe_key(ALGORITHM, server_seed, client_seeds), decks)
            shoe = Shoe(list(cards), cut_card=cut_card, burn=True)
            tree = self._trees[number] = ShoeTree(server_seed, cards)
            record: dict[str, object] = {"shoe": number, "algorithm": ALGORITHM, "game": game.code}
            if game.paytable is not None:
                record["paytable"] = game.paytable
            record.update(decks=decks, cut_card=cut_card, commitment=commitment(server_seed),
                          merkle_root=tree.root, server_seed=server_seed.hex(), client_seeds=client_seeds,
                          burned=[str(c) for c in shoe.burned], burn_proof=tree.proofs(0, len(shoe.burned)),
                          rounds=[])
            self.shoes.append(cast(ShoeRecord, record))  # built key by key, in the transcript's order
            return shoe

        self.table = Table(game, shoe_factory=new_shoe, decks=decks, cut_card=cut_card)
        self.table.sit(SEAT, player, bankroll)
        self.bankroll = bankroll
        self.rounds: list[RoundRecord] = []
        #: The scoreboards of the shoe in play (punto banco); they start again with each shoe.
        self.scoreboard = Scoreboard()
        self._scoreboard_shoe = 1

    @property
    def balance(self) -> int:
        return self.table.seats[SEAT].balance

    def play(self, order: RoundOrder, *, decide: Decider | None = None) -> RoundRecord:
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

    def reject(self, reason: str, *, line: str | None = None) -> RefusedRound:
        """Record a refused order: the reason and the unchanged balance."""
        record: RefusedRound = {"rejected": reason, "balance": self.balance}
        if line is not None:
            record["line"] = line
        self.rounds.append(record)
        return record

    def _check_order(self, order: RoundOrder) -> None:
        if self.game.kind != "lucky_draw":
            if order.decision is not None:
                raise IllegalActionError(f"'{order.decision}' is a Lucky Draw decision: {self.game.name} has none.")
            return
        if order.decision == "draw":
            enter = order.bets.get("enter", 0)
            needed = sum(order.bets.values()) + enter
            if needed > self.balance:
                raise InsufficientFundsError(
                    f"Bets plus the Draw wager ({format_amount(needed)}) are more than your balance of "
                    f"{format_amount(self.balance)}: take chips off or stand."
                )

    def _record(self, first_event: int) -> PlayedRound:
        table = self.table
        events = table.events[first_event:]
        record: dict[str, object] = {"round": table.round_no, "shoe": table.shoe_no}  # in the transcript's order
        record["bets"] = bets = dict(table.bets.get(SEAT, {}))
        if self.game.kind == "lucky_draw":
            hand = table.lucky_hand(SEAT)
            record["seat_cards"] = [str(c) for c in hand.seat_cards]
            record["dealer_cards"] = [str(c) for c in hand.dealer_cards]
            record["seat_total"], record["dealer_total"] = hand.seat_total, hand.dealer_total
            record["result"] = hand.winner
        else:
            coup = next(e.coup for e in events if isinstance(e, CoupResolved))
            if table.shoe_no != self._scoreboard_shoe:
                self.scoreboard, self._scoreboard_shoe = Scoreboard(), table.shoe_no
            self.scoreboard.add(hand_of(coup))
            record["player_cards"] = [str(c) for c in coup.player_cards]
            record["banker_cards"] = [str(c) for c in coup.banker_cards]
            record["player_total"], record["banker_total"] = coup.player_total, coup.banker_total
            record["result"] = coup.winner
        record["deal_order"] = deal_order = [str(e.card) for e in events if isinstance(e, CardDealt)]
        shoe_record = next(r for r in reversed(self.shoes) if r["shoe"] == table.shoe_no)
        # the round's cards lie after the burn and every card of the rounds before it
        start = len(shoe_record["burned"]) + sum(len(r["cards"]) for r in shoe_record["rounds"])
        shoe_round: ShoeRound = {"round": table.round_no, "cards": deal_order,
                                 "proof": self._trees[table.shoe_no].proofs(start, len(deal_order))}
        if self.game.kind == "lucky_draw":  # the seats dealt to, and which drew: they decide who gets which card
            shoe_round.update({"seats": [SEAT], "drew": [SEAT] if "draw" in bets else []})
        shoe_record["rounds"].append(shoe_round)
        if table.shoe is None:  # the shoe ended with this round: its last hand
            shoe_record["ended"] = "last hand"
        settled = [e for e in events if isinstance(e, BetSettled) and e.seat == SEAT]
        record["callouts"] = self._callouts(events, settled)
        record["events"] = {e.wager: e.event for e in settled}
        record["net"] = {e.wager: e.net for e in settled}
        record["balance"] = self.balance
        return cast(PlayedRound, record)

    def _callouts(self, events: list[Event], settled: list[BetSettled]) -> list[str]:
        """What the dealer announces: Natural, Dragon 7, Panda 8 (EZ), the Block Bonus category."""
        if self.game.kind == "lucky_draw":
            return [s.event for s in settled if s.wager == "block_bonus" and s.net > 0]
        coup = next(e.coup for e in events if isinstance(e, CoupResolved))
        codes = {wager.code for wager in self.game.wagers}
        announced = [("Natural", coup.natural), ("Dragon 7", "dragon_7" in codes and is_dragon_7(coup)),
                     ("Panda 8", "panda_8" in codes and is_panda_8(coup))]
        return [name for name, happened in announced if happened]

    def transcript(self) -> Transcript:
        """The JSON transcript of every round played so far."""
        doc: dict[str, object] = {"game": self.game.code, "seed": self.seed, "decks": self.decks}
        if self.game.paytable is not None:
            doc["paytable"] = self.game.paytable
        doc["client_seed"] = self.client_seed
        doc["bankroll"] = self.bankroll
        doc["rounds"] = self.rounds
        doc["final_balance"] = self.balance
        # the session is over for this transcript: every seed is revealed, the last shoe as it stands
        doc["shoes"] = [{**shoe, "ended": shoe.get("ended", "in play")} for shoe in self.shoes]
        return cast(Transcript, doc)  # built key by key, in the transcript's order


def _derived_seed(seed: int, shoe: int) -> bytes:
    """A reproducible server seed for shoe ``shoe`` of a seeded session."""
    return hashlib.sha256(f"baccarat session {seed} shoe {shoe}".encode()).digest()
