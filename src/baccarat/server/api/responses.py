"""Answers: the shape of every route's reply, so ``/openapi.json`` documents each one.

Amounts are integers of minor units (cents); times are ISO 8601 strings in UTC, as the views write
them (declared as strings so they reach the client exactly as written).  Views may add fields
before this file names them: an answer keeps fields it does not declare (``extra="allow"``) rather
than dropping them silently, and ``tests/server/api/test_openapi.py`` checks every route has a model.
Refusals share one shape, :class:`Refusal`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: A time as the server writes it: ISO 8601 in UTC.
Time = str


class Answer(BaseModel):
    """An answer's fields as documented; any field a view adds is passed on, not dropped."""

    model_config = ConfigDict(extra="allow")


class Refusal(BaseModel):
    """Every refusal: ``code`` and ``params`` for a client to word it in its own language, ``message``
    one sentence in English."""

    error: str = Field(description="the kind of error, e.g. BetLimitError, InvalidRequest, Unavailable")
    code: str = Field(description="a stable code, area.what, e.g. bet.above_maximum (the catalogue in docs/api.md)")
    params: dict[str, Any] = Field(description="the code's parameters as machine values: amounts in minor units, "
                                               "wager codes, seconds, ISO 8601 times")
    detail: Any = Field(description="the reason in English, or a 422's list of {field, problem}")
    message: str = Field(description="one sentence in English: what is wrong and what to do")


# --- accounts -----------------------------------------------------------------------------------------


class Health(Answer):
    status: str


class AccountCreated(Answer):
    id: int
    username: str
    balance: int = Field(description="minor units: the new account's grant")


class SessionToken(Answer):
    token: str = Field(description="send as `Authorization: Bearer <token>`")


class Me(Answer):
    id: int
    username: str
    role: str = Field(description="player or operator")
    balance: int = Field(description="minor units, never ahead of a result still on show")


class WalletBalance(Answer):
    account_id: int
    balance: int


# --- games and their wagers -----------------------------------------------------------------------------


class Pay(Answer):
    event: str = Field(description="the outcome in the rule card's words")
    odds: str = Field(description="net odds as an exact fraction: 19/20, 8, 0 (push), -1 (loses)")
    label: str = Field(description="as a player reads it: 0.95:1, 8:1, push, loses")
    rule: str | None = Field(description="what the event means (Block Bonus), from the registry")


class WagerInfo(Answer):
    code: str
    name: str
    placed: str = Field(description="betting (before the deal) or decision (Lucky Draw's Draw)")
    requires: str | None = Field(description="the wager that must be staked with it, if any")
    settles: str = Field(description="coup, or first_deal (Lucky Draw's Block Bonus)")
    maximum: int | None = Field(description="minor units; none for a wager that must equal another")
    pays: list[Pay]
    summary: str
    headline: Pay | None = Field(description="the event its pay table is named by at the table and "
                                                            "its pay (Lucky Draw's Draw and Block Bonus)")


class DrawingRules(Answer):
    player_draws: list[int] = Field(description="the Player's two-card totals that draw a third card")
    banker_draws_player_stood: list[int] = Field(description="the Banker's two-card totals that draw when "
                                                             "the Player stood")
    banker_draws: dict[str, list[int]] = Field(description="Banker two-card total (0-7) -> the values of the "
                                                           "Player's third card (0 = ten or picture) it draws on")


class GameInfo(Answer):
    code: str
    name: str
    kind: str = Field(description="the procedure: punto_banco or lucky_draw")
    paytable: int | None
    max_seats: int
    minimum: int = Field(description="the default table minimum, minor units")
    wagers: list[WagerInfo]
    paytable_name: str | None = Field(description="Lucky Draw: the DrawWin table as players name it, "
                                                                 "e.g. 'Lucky 7 (3-card 7) pays 2:1'")
    dealer_draws: list[int] | None = Field(description="Lucky Draw: the dealer's two-card totals that "
                                                                      "draw a third card")
    drawing: DrawingRules | None = Field(description="punto banco: when each hand draws (a natural 8 or 9 "
                                                     "on either hand: neither draws)")


# --- tables ---------------------------------------------------------------------------------------------


class Limits(Answer):
    minimum: int
    maximums: dict[str, int] = Field(description="wager code -> maximum, minor units")


class PaceInfo(Answer):
    no_more_bets: float
    card: float
    results: float


class RoundWindow(Answer):
    number: int
    opens_at: Time | None
    closes_at: Time


class Spot(Answer):
    total: int = Field(description="minor units staked on the spot")
    players: int = Field(description="how many players staked it")


class BetOutcome(Answer):
    event: str = Field(description="the pay table's event")
    net: int = Field(description="minor units won (or lost, negative)")


class SeatedPlayer(Answer):
    name: str
    away: bool
    bets: dict[str, int]
    results: dict[str, BetOutcome] | None = Field(description="wager -> its settlement once shown")


class Announcement(Answer):
    at: Time
    kind: str
    seat: int | None
    name: str | None
    text: str = Field(description="the news in English")
    code: str = Field(description="news.<kind> (news.other for news stored before params were)")
    params: dict[str, Any] = Field(description="the code's parameters: name, seat, shoe, seconds, rounds")


class ShoeInPlay(Answer):
    number: int
    algorithm: str
    commitment: str = Field(description="SHA-256 of the server seed, published before the first deal")
    cards_dealt: int
    cards: int
    cut_card: int
    last_hand: bool
    taking_client_seeds: bool
    client_seeds: list[str] | None
    merkle_root: str | None = Field(description="algorithm 3: the root of the Merkle tree over the "
                                    "shuffled shoe, published at its first deal, before any card is shown")


class NextRound(Answer):
    number: int
    opens_at: Time | None = Field(description="shown with the result, not before")


class ShownCard(Answer):
    index: int = Field(description="its place in the deal")
    to: str = Field(description="player, banker, dealer or seat:N")
    card: str = Field(description="rank and suit: Kh, Td")
    rank: str
    suit: str
    label: str = Field(description="as printed: K♥, 10♦")
    name: str = Field(description="in words: King of hearts")
    value: int
    hand_index: int = Field(description="its place in its hand")
    reason: str
    at: Time


class HandCards(Answer):
    cards: list[str]
    total: int


class VoidResult(Answer):
    round: int
    void: str = Field(description="why the round was voided")
    at: Time | None
    message: str


class CoupResult(Answer):
    """Punto banco's result."""

    round: int
    winner: str = Field(description="player, banker or tie")
    player_total: int
    banker_total: int
    natural: bool
    callouts: list[str] = Field(description="Natural, Dragon 7, Panda 8")
    message: str
    winning_spots: list[str]
    pushed_spots: list[str]
    at: Time | None


class SeatResult(Answer):
    name: str
    total: int
    winner: str = Field(description="player, dealer or tie")
    message: str


class SeatsResult(Answer):
    """Lucky Draw's result: each seat's hand against the dealer's."""

    round: int
    dealer_total: int
    seats: dict[str, SeatResult]
    at: Time | None
    message: str


class LastResult(Answer):
    """The last round whose result is shown: its number, then its result as stored, less what is private:
    ``cards`` (in deal order) and, punto banco, ``player_cards``, ``banker_cards``, ``player_total``,
    ``banker_total``, ``winner``, ``reasons`` (and their codes), ``hand``; Lucky Draw, ``hands`` and
    ``decisions_at``; a voided round, ``void``.  Those are passed on as they are (``extra="allow"``)."""

    round: int


class DecisionWindow(Answer):
    round: int
    opens_at: Time | None
    decides_at: Time
    first_deal: dict[str, list[str]] = Field(description="seat:N and dealer -> the face-up cards")
    decided: list[str] = Field(description="the seats that have decided")


class FaceDown(Answer):
    """A card face down at a squeeze table: being squeezed (``turns_at``: when the dealer turns it) or waiting."""

    index: int
    to: str
    by: str | None = Field(description="its squeezer's name; None: the dealer turns it")
    down_at: Time
    turns_at: Time | None
    squeezed_from: Time | None = Field(description="when its squeezer may start peeling it")
    lift: float = Field(description="how far its corner is lifted, 0 to 1")


class SqueezeView(Answer):
    seconds: float = Field(description="the squeeze time per card")
    squeezers: dict[str, str | None] = Field(description="player, banker -> the squeezer's name (None: the dealer)")
    cards: list[FaceDown]


class TableView(Answer):
    """A table at one moment: what every player at it sees (docs/api.md describes the phases)."""

    id: int
    name: str
    game: str
    game_name: str
    status: str = Field(description="open, closing or closed")
    paytable: int | None
    betting_seconds: float
    decision_seconds: float
    pace: PaceInfo
    limits: Limits
    pending_limits: Limits | None = Field(description="limits that apply from the next round")
    server_time: Time
    phase: str
    phase_started_at: Time | None
    phase_ends_at: Time | None
    round_number: int | None
    round: RoundWindow | None = Field(description="the round taking bets")
    next_round: NextRound | None
    cards: list[ShownCard] = Field(description="the cards shown so far, in deal order")
    hands: dict[str, HandCards]
    result: VoidResult | CoupResult | SeatsResult | None = Field(
        description="the result once it is due, in a player's words")
    seats: dict[str, str] = Field(description="seat number -> player name")
    players: dict[str, SeatedPlayer]
    spots: dict[str, Spot]
    announcements: list[Announcement]
    shoe: ShoeInPlay | None
    last_result: LastResult | None
    decision: DecisionWindow | None = Field(description="Lucky Draw: the decisions awaited")
    wagers: list[WagerInfo]
    bettors: int = Field(description="players with bets on the round on show, seated or not")
    squeeze: SqueezeView | None = Field(description=(
        "a squeeze table's squeeze: who squeezes each side and the cards face down (never a face); None elsewhere"))


class SettledBet(Answer):
    amount: int
    event: str
    net: int


class YourSettlement(Answer):
    bets: dict[str, SettledBet]
    net: int = Field(description="minor units, all the round's bets together")


class SeatNotice(Answer):
    """Why the player's seat at this table was taken from them."""

    code: str = Field(description="notice.stood_up (no bet in N rounds in a row), notice.seat_freed (away past "
                                  "the grace period) or notice.operator_stood (stood up by the house)")
    params: dict[str, Any] = Field(description="the code's parameters: seat, and rounds or seconds")
    at: Time


class YourState(Answer):
    seat: int | None
    name: str | None
    balance: int
    round: int | None
    bets: dict[str, int]
    settlement: YourSettlement | None = Field(description="once the round's result is shown")
    decision: str | None
    notice: SeatNotice | None = Field(description="while not seated: why the seat last held here was freed "
                                                  "(for as long as the table shows its news), else null")


class Seated(Answer):
    seat: int


class BetsPlaced(Answer):
    table: int
    round: int
    seat: int | None
    bets: dict[str, int] = Field(description="your stakes on the round after this request")
    added: dict[str, int] = Field(description="what this request added")
    balance: int


class Decided(Answer):
    """Lucky Draw: the decision taken (a draw stakes the Draw wager, equal to Enter)."""

    table: int
    round: int
    action: str = Field(description="draw or stand")
    balance: int


class BeadCell(Answer):
    col: int
    row: int
    outcome: str = Field(description="B, P or T")
    banker_pair: bool
    player_pair: bool


class BigRoadCell(Answer):
    col: int
    row: int
    side: str | None = Field(description="B or P (none only for the cell of an all-tie history)")
    ties: int
    banker_pair: bool
    player_pair: bool


class RoadMark(Answer):
    col: int
    row: int
    colour: str = Field(description="red or blue")


class RoadStats(Answer):
    hands: int
    banker: int
    player: int
    tie: int
    banker_pct: float
    player_pct: float
    tie_pct: float
    banker_pairs: int
    player_pairs: int
    naturals: int
    dragon_7: int
    panda_8: int


class Roads(Answer):
    shoe: int | None
    bead_plate: list[BeadCell]
    big_road: list[BigRoadCell]
    big_eye_boy: list[RoadMark]
    small_road: list[RoadMark]
    cockroach_pig: list[RoadMark]
    ask: dict[str, dict[str, str | None]] = Field(
        description="banker/player -> derived road -> the colour a hand of that side would add (none: none)")
    stats: RoadStats


class Strategy(Answer):
    basis: str
    draw: dict[str, list[int]] = Field(description="seat total -> up-card values (0 = ten or face) to draw on")
    returns: dict[str, list[list[float]]] = Field(
        description="seat total -> per up-card value 0..9, [standing, drawing]: the expected result per unit of "
                    "Enter that the card compares (the hint's reason)")


class CardProof(Answer):
    position: int = Field(description="in the shuffled shoe, 0 for its first card (the burn included)")
    salt: str = Field(description="HMAC-SHA256(server seed, 'salt' + position as 2 bytes), hex")
    path: list[str] = Field(description="the RFC 6962 audit path from the card's leaf to the Merkle root, hex")


class ShoeRound(Answer):
    round: int
    cards: list[str] = Field(description="in deal order")
    seats: list[int] | None = Field(default=None, description="Lucky Draw: the seats dealt to, in deal order")
    drew: list[int] | None = Field(default=None, description="Lucky Draw: the seats that drew")
    void: str | None = Field(default=None, description="a round voided after its first deal: why")
    proof: list[CardProof] | None = Field(default=None, description="algorithm 3: each card's proof, in deal order")


class ShoeRecord(Answer):
    """A shoe's record for ``baccarat verify``: its server seed revealed, its client seeds, and every
    round dealt from it with its cards in deal order (algorithm 3: and each card's Merkle proof; in
    the history export, a shoe still in play has no seed yet and its rounds shown so far)."""

    shoe: int
    table: str
    table_id: int
    algorithm: str
    game: str
    paytable: int | None = None
    decks: int
    cut_card: int
    commitment: str
    merkle_root: str | None = Field(default=None, description="algorithm 3: published at the shoe's first deal")
    server_seed: str | None = Field(default=None, description="revealed when the shoe ends")
    client_seeds: list[str] | None = None
    burned: list[str] | None = Field(default=None, description="once the shoe is over (the burn is face down)")
    burn_proof: list[CardProof] | None = Field(default=None, description="algorithm 3: the burned cards' proofs")
    turned: str | None = Field(default=None, description="a shoe in play: the burn's first card, turned face up")
    turned_proof: CardProof | None = None
    ended: str | None = None
    rounds: list[ShoeRound]


class StoodUp(Answer):
    """The seat an operator freed and who sat there."""

    table: int
    seat: int
    account_id: int
    name: str


class VoidedRound(Answer):
    """The round voided and what was refunded."""

    table: int
    round: int
    status: str
    refunded: int = Field(description="minor units refunded in all")
    bets_refunded: int


# --- history and fairness -------------------------------------------------------------------------------


class RoundDetail(Answer):
    """A round's stored result less its cards and winner, each key only where the round has it."""

    player_cards: list[str] | None = None
    banker_cards: list[str] | None = None
    player_total: int | None = None
    banker_total: int | None = None
    reasons: dict[str, str] | None = Field(default=None, description="player/banker -> why it drew or stood")
    reason_codes: dict[str, dict[str, Any]] | None = Field(
        default=None, description="player/banker -> the reason as {code, params}")
    hand: dict[str, str | bool] | None = Field(default=None, description="the scoreboards' entry")
    hands: dict[str, list[str]] | None = Field(default=None, description="Lucky Draw: seat:N and dealer -> cards")
    decisions_at: Time | None = None
    void: str | None = None


class YourRoundBet(Answer):
    amount: int
    event: str
    net: int
    name: str = Field(description="the wager's name")


class RoundRecall(Answer):
    table: str
    table_id: int
    round: int
    status: str
    shoe: int | None
    time: Time | None
    detail: RoundDetail
    cards: list[str]
    cards_named: list[str]
    winner: str | None
    result_message: str | None
    bets: dict[str, YourRoundBet]
    balance_before: int | None
    balance_after: int | None
    seat: str | None = Field(default=None, description="Lucky Draw: seat:N, the hand that was yours")


class ExportedRound(Answer):
    """A round as ``baccarat verify`` reads it, each optional key only where the round has it."""

    table: str
    table_id: int
    game: str
    paytable: int | None
    round: int
    shoe: int
    status: str
    time: Time
    bets: dict[str, int]
    events: dict[str, str]
    net: dict[str, int]
    cards: list[str]
    void: str | None = None
    player_cards: list[str] | None = None
    banker_cards: list[str] | None = None
    player_total: int | None = None
    banker_total: int | None = None
    seat: str | None = Field(default=None, description="Lucky Draw: seat:N, your hand")
    seat_cards: list[str] | None = None
    dealer_cards: list[str] | None = None
    seat_total: int | None = None
    dealer_total: int | None = None
    result: str | None = Field(default=None, description="player, banker or tie; Lucky Draw: player, dealer or tie")


class WalletMovement(Answer):
    id: int
    kind: str
    amount: int
    balance: int = Field(description="the wallet's balance after it")
    memo: str
    table_id: int | None = None
    round: int | None = None


class ExportedShoe(ShoeRecord):
    your_client_seed: str | None = Field(description="the client seed you brought to the shoe")


class HistoryExport(Answer):
    format: str
    account: str
    balance: int
    rounds: list[ExportedRound]
    movements: list[WalletMovement]
    shoes: list[ExportedShoe]


class ClientSeedSet(Answer):
    client_seed: str


class ClientSeed(Answer):
    client_seed: str | None = Field(description="none until you set one")
    algorithm: str = Field(description="the shuffling algorithm your seed feeds")
