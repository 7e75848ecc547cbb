"""The verifier's own statement of the rules: how a round is dealt and how every wager is paid.

Written from the rule cards and the documentation, not from the house's code (an import contract keeps
it that way), so that a mistake in the house's rules shows up as a mismatch instead of being
repeated here.  A contract test in ``tests/`` compares this statement with the house's.

Cards are text: rank ``A23456789TJQK`` then suit ``cdhs`` (``"Td"`` is the ten of diamonds).

>>> deal_punto_banco(["2h", "3c", "2d", "Kc", "5s", "7h"]).hands
{'player': ['2h', '2d', '5s'], 'banker': ['3c', 'Kc', '7h']}
>>> settle("mini", "banker", 1250, deal_punto_banco(["2h", "6c", "3d", "Kc", "Ks", "As"]))
('Banker wins', 1187)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

RANKS = "A23456789TJQK"
SUITS = "cdhs"
#: Block Bonus compares ranks with the Ace high: 2 < 3 < ... < 10 < J < Q < K < A.
ACE_HIGH = "23456789TJQKA"

LOSE = Fraction(-1)
PUSH = Fraction(0)


def is_card(text: object) -> bool:
    """Whether ``text`` is a card as records write them (``"9h"``, ``"Td"``)."""
    return isinstance(text, str) and len(text) == 2 and text[0] in RANKS and text[1] in SUITS


def points(card: str) -> int:
    """A card's baccarat points: Ace 1, 2-9 their face, tens and pictures nothing."""
    value = RANKS.index(card[0]) + 1
    return value if value <= 9 else 0


def total(cards: Sequence[str]) -> int:
    """A hand's total: the last digit of the sum of its points."""
    return sum(points(card) for card in cards) % 10


def burn_count(first: str) -> int:
    """Cards burned at the start of a shoe: the turned card and as many more as it counts (tens ten)."""
    return 1 + (points(first) or 10)


# --- punto banco: the tableau in the rule card's words --------------------------------------


def player_draws(player: int) -> bool:
    """The Player draws on 0-5 and stands on 6-7 (8-9 are naturals)."""
    return player <= 5


def banker_draws(banker: int, player_third: int | None) -> bool:
    """The Banker's rule: on 0-5 when the Player stood; else by the Player's third card."""
    if player_third is None:
        return banker <= 5
    if banker <= 2:
        return True
    if banker == 3:
        return player_third != 8
    if banker == 4:
        return 2 <= player_third <= 7
    if banker == 5:
        return 4 <= player_third <= 7
    if banker == 6:
        return player_third in (6, 7)
    return False


@dataclass(frozen=True)
class Dealt:
    """One round as the seed deals it: every card in order, and each hand's cards."""

    cards: list[str]
    hands: dict[str, list[str]]  #: "player" and "banker", or "seat:N" and "dealer"

    @property
    def natural(self) -> bool:
        """Punto banco: either hand has 8 or 9 in two cards."""
        return any(len(self.hands[h]) == 2 and total(self.hands[h]) >= 8 for h in ("player", "banker"))

    def winner(self) -> str:
        """Punto banco: ``player``, ``banker`` or ``tie``."""
        player, banker = total(self.hands["player"]), total(self.hands["banker"])
        return "player" if player > banker else "banker" if banker > player else "tie"

    def seat_result(self, seat: str) -> str:
        """Lucky Draw: ``player`` (the seat), ``dealer`` or ``tie``."""
        mine, dealer = total(self.hands[seat]), total(self.hands["dealer"])
        return "player" if mine > dealer else "dealer" if dealer > mine else "tie"


def deal_punto_banco(cards: Sequence[str]) -> Dealt:
    """A coup from the cards coming out of the shoe: Player, Banker, Player, Banker, then the thirds."""
    player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
    taken = 4
    if total(player) < 8 and total(banker) < 8:
        third: int | None = None
        if player_draws(total(player)):
            player.append(cards[taken])
            third = points(cards[taken])
            taken += 1
        if banker_draws(total(banker), third):
            banker.append(cards[taken])
            taken += 1
    return Dealt(list(cards[:taken]), {"player": player, "banker": banker})


def deal_lucky_draw(cards: Sequence[str], seats: Sequence[int], drew: Sequence[int], *, complete: bool = True
                    ) -> Dealt:
    """A Lucky Draw round: one card to each seat, the dealer's up card, a second card to each seat;
    then each seat that drew takes one card, in seat order; then the dealer's second card and a
    third on 0-4.  ``complete=False`` stops after the first deal (a round voided at its decisions)."""
    hands: dict[str, list[str]] = {f"seat:{seat}": [] for seat in seats}
    hands["dealer"] = []
    order = [f"seat:{s}" for s in seats] + ["dealer"] + [f"seat:{s}" for s in seats]
    if complete:
        order += [f"seat:{s}" for s in seats if s in drew] + ["dealer"]
    for who, card in zip(order, cards, strict=False):
        hands[who].append(card)
    taken = len(order)
    if complete and total(hands["dealer"]) <= 4:
        hands["dealer"].append(cards[taken])
        taken += 1
    return Dealt(list(cards[:taken]), hands)


# --- every wager's event and pay table --------------------------------------------------------


def _side(dealt: Dealt) -> str:
    return {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}[dealt.winner()]


def _three_card(dealt: Dealt, hand: str, winner: str, points_: int) -> bool:
    cards = dealt.hands[hand]
    return dealt.winner() == winner and len(cards) == 3 and total(cards) == points_


def _dragon_bonus(side: str) -> Callable[[Dealt, str], str]:
    def event(dealt: Dealt, _seat: str) -> str:
        winner = dealt.winner()
        if winner == "tie":
            return "Natural tie" if dealt.natural else "Tie without natural"
        if winner != side:
            return "Hand loses"
        if len(dealt.hands[side]) == 2 and total(dealt.hands[side]) >= 8:
            return "Natural win"
        margin = abs(total(dealt.hands["player"]) - total(dealt.hands["banker"]))
        return f"Win by {margin}" if margin >= 4 else "Win by 1-3"

    return event


def _enter(dealt: Dealt, seat: str) -> str:
    return {"player": "Player wins", "dealer": "Dealer wins", "tie": "Tie"}[dealt.seat_result(seat)]


def _draw(dealt: Dealt, seat: str) -> str:
    if dealt.seat_result(seat) != "player":
        return _enter(dealt, seat)
    lucky = {9: "Lucky 9 (3-card 9)", 8: "Lucky 8 (3-card 8)", 7: "Lucky 7 (3-card 7)"}
    return lucky.get(total(dealt.hands[seat]), "Win with 6 or less")


def _block_bonus(dealt: Dealt, seat: str) -> str:
    first, second = dealt.hands[seat][:2]
    up = dealt.hands["dealer"][0]
    higher = [c for c in (first, second) if c[1] == up[1] and ACE_HIGH.index(c[0]) > ACE_HIGH.index(up[0])]
    if not higher:
        return "No Block"
    if first[0] == second[0]:
        return "Ultimate Block" if first[1] == second[1] == up[1] else "Pair Block"
    return "Flush Block" if first[1] == second[1] else "Normal Block"


F = Fraction
_PLAYER = {"Player wins": F(1), "Tie": PUSH, "Banker wins": LOSE}
_TIE = {"Tie": F(8), "Player wins": LOSE, "Banker wins": LOSE}
_DRAGON_BONUS = {"Natural win": F(1), "Win by 9": F(30), "Win by 8": F(10), "Win by 7": F(6), "Win by 6": F(4),
                 "Win by 5": F(2), "Win by 4": F(1), "Natural tie": PUSH, "Win by 1-3": LOSE,
                 "Tie without natural": LOSE, "Hand loses": LOSE}
_BLOCK = {"Ultimate Block": F(35), "Pair Block": F(10), "Flush Block": F(5), "Normal Block": F(2),
          "No Block": LOSE}


def _draw_pays(lucky_7: Fraction) -> dict[str, Fraction]:
    return {"Lucky 9 (3-card 9)": F(3), "Lucky 8 (3-card 8)": F(2), "Lucky 7 (3-card 7)": lucky_7,
            "Win with 6 or less": F(1), "Tie": PUSH, "Dealer wins": LOSE}


Event = Callable[[Dealt, str], str]

#: Each game's wagers: code -> (how the round names its event, the pay table: event -> net odds).
#: Mini: Banker pays 19 to 20 (1 to 1 less 5%).  EZ: no commission, a Banker win with a three-card
#: 7 pushes.  Lucky Draw: the Draw wager's Lucky 7 pays 2 to 1 (pay table 1) or 3 to 2 (pay table 2).
WAGERS: dict[str, dict[str, tuple[Event, dict[str, Fraction]]]] = {
    "mini": {
        "player": (lambda d, s: _side(d), _PLAYER),
        "banker": (lambda d, s: _side(d), {"Banker wins": F(19, 20), "Tie": PUSH, "Player wins": LOSE}),
        "tie": (lambda d, s: _side(d), _TIE),
        "dragon_bonus_player": (_dragon_bonus("player"), _DRAGON_BONUS),
        "dragon_bonus_banker": (_dragon_bonus("banker"), _DRAGON_BONUS),
    },
    "ez": {
        "player": (lambda d, s: _side(d), _PLAYER),
        "banker": (lambda d, s: "Dragon 7 (Banker pushes)" if _three_card(d, "banker", "banker", 7) else _side(d),
                   {"Banker wins": F(1), "Dragon 7 (Banker pushes)": PUSH, "Tie": PUSH, "Player wins": LOSE}),
        "tie": (lambda d, s: _side(d), _TIE),
        "dragon_7": (lambda d, s: "Dragon 7" if _three_card(d, "banker", "banker", 7) else "No Dragon 7",
                     {"Dragon 7": F(40), "No Dragon 7": LOSE}),
        "panda_8": (lambda d, s: "Panda 8" if _three_card(d, "player", "player", 8) else "No Panda 8",
                    {"Panda 8": F(25), "No Panda 8": LOSE}),
    },
    "lucky-draw/1": {
        "enter": (_enter, {"Player wins": F(1), "Tie": PUSH, "Dealer wins": LOSE}),
        "draw": (_draw, _draw_pays(F(2))),
        "block_bonus": (_block_bonus, _BLOCK),
    },
    "lucky-draw/2": {
        "enter": (_enter, {"Player wins": F(1), "Tie": PUSH, "Dealer wins": LOSE}),
        "draw": (_draw, _draw_pays(F(3, 2))),
        "block_bonus": (_block_bonus, _BLOCK),
    },
}
#: Lucky Draw's Block Bonus is settled after the first deal: it stands when the round is voided later.
FIRST_DEAL_WAGERS = ("block_bonus",)
#: The event of a stake handed back when its round was voided.
VOID = "Void"


#: The games from rules files read in this run (:mod:`baccarat.verify.definitions`): a definition's digest ->
#: its key in :data:`WAGERS`.
DEFINED: dict[str, str] = {}
#: The fees of those games' wagers (a fraction of the stake, paid with it): key -> wager code -> fee.
FEES: dict[str, dict[str, Fraction]] = {}


def fee(game: str, wager: str, stake: int) -> int:
    """The fee paid with ``stake`` on ``wager``: its fraction of the stake, rounded up to the cent."""
    part = FEES.get(game, {}).get(wager, Fraction(0))
    return -((-stake * part.numerator) // part.denominator)


def game_key(game: object, paytable: object, definition: object = None) -> str | None:
    """The key of :data:`WAGERS` for a record's game and pay table (or the rules file it names by its digest,
    ``definition``), or None when unknown."""
    if definition is not None:
        return DEFINED.get(str(definition))
    key = f"lucky-draw/{1 if paytable is None else paytable}" if game == "lucky-draw" else str(game)
    return key if key in WAGERS else None


def unknown_game(game: object, paytable: object) -> str:
    """Why a record of ``game`` cannot be verified: the verifier states the built-in games' rules itself."""
    known = sorted({key.split("/")[0] for key in WAGERS if "@" not in key})  # the built-in games
    tables = " or ".join(key.split("/")[1] for key in sorted(WAGERS) if key.startswith("lucky-draw/"))
    return (f"the verifier knows the rules of {', '.join(known)} (lucky-draw with pay table {tables}) and states "
            f"them itself; {game!r}" + (f" with pay table {paytable!r}" if paytable is not None else "")
            + " is not among them, and no rules file of it is in the file (an export of the table server carries "
              "the definition of each game from a rules file)")


def winnings(stake: int, odds: Fraction) -> int:
    """The rounding rule: a win that is not a whole number of cents is rounded down to the cent
    (the fraction stays with the house: 12.50 on Banker at 19 to 20 wins 11.87)."""
    return stake * odds.numerator // odds.denominator


def settle(game: str, wager: str, stake: int, dealt: Dealt, seat: str = "") -> tuple[str, int]:
    """The event and net result (cents won, 0 on a push, minus the stake on a loss) of one wager."""
    classify, pays = WAGERS[game][wager]
    event = classify(dealt, seat)
    odds = pays[event]
    return event, (-stake if odds == LOSE else winnings(stake, odds))


def callouts(game: str, dealt: Dealt, block_bonus: str | None = None) -> list[str]:
    """What the dealer announces: Natural, Dragon 7 and Panda 8 (EZ), a winning Block Bonus."""
    if game.startswith("lucky-draw"):
        return [block_bonus] if block_bonus not in (None, "No Block") else []
    said = [("Natural", dealt.natural),
            ("Dragon 7", game == "ez" and _three_card(dealt, "banker", "banker", 7)),
            ("Panda 8", game == "ez" and _three_card(dealt, "player", "player", 8))]
    return [name for name, happened in said if happened]
