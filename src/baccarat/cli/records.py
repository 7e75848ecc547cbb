"""What a session at the terminal records (:class:`baccarat.cli.session.Session`): each round played or
refused, each shoe's record, and the transcript ``baccarat play --transcript`` writes for ``baccarat
verify``."""

from __future__ import annotations

from typing import NotRequired, TypedDict, final

from baccarat.core.fair import CardProof


@final  # (final: ``"rejected" in record`` tells the two kinds of record apart)
class PlayedRound(TypedDict):
    """A round played: the bets, the hands, the result and each wager's settlement."""

    round: int
    shoe: int
    bets: dict[str, int]
    seat_cards: NotRequired[list[str]]  #: Lucky Draw: the seat's hand
    dealer_cards: NotRequired[list[str]]
    seat_total: NotRequired[int]
    dealer_total: NotRequired[int]
    player_cards: NotRequired[list[str]]  #: punto banco
    banker_cards: NotRequired[list[str]]
    player_total: NotRequired[int]
    banker_total: NotRequired[int]
    result: str  #: player, banker or tie; Lucky Draw: player, dealer or tie
    deal_order: list[str]
    callouts: list[str]  #: Natural, Dragon 7, Panda 8; Lucky Draw's Block Bonus category
    events: dict[str, str]
    net: dict[str, int]
    balance: int


@final
class RefusedRound(TypedDict):
    """An order refused: why, and the balance it left unchanged."""

    rejected: str
    balance: int
    line: NotRequired[str]  #: the script's line, as written


RoundRecord = PlayedRound | RefusedRound


class ShoeRound(TypedDict):
    round: int
    cards: list[str]  #: in deal order
    seats: NotRequired[list[int]]  #: Lucky Draw: the seats dealt to
    drew: NotRequired[list[int]]  #: Lucky Draw: the seats that drew
    proof: list[CardProof]  #: each card's position, salt and Merkle path (algorithm 3)


class ShoeRecord(TypedDict):
    """A shoe's record, its server seed published with it (the session is the house and the player)."""

    shoe: int
    algorithm: str
    game: str
    paytable: NotRequired[int]
    decks: int
    cut_card: int
    commitment: str
    merkle_root: str  #: over the shuffled shoe, published with the commitment
    server_seed: str
    client_seeds: list[str]
    burned: list[str]
    burn_proof: list[CardProof]
    rounds: list[ShoeRound]
    ended: NotRequired[str]  #: last hand, too few cards, or (in a transcript) in play


class Transcript(TypedDict):
    """Every round of a session and the records of its shoes."""

    game: str
    seed: int | None
    decks: int
    paytable: NotRequired[int]
    client_seed: str | None
    bankroll: int
    rounds: list[RoundRecord]
    final_balance: int
    shoes: list[ShoeRecord]
