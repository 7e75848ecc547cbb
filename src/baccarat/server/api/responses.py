"""Answers: the shape of every route's reply, so ``/openapi.json`` documents each one.

Amounts are integers of minor units (cents); times are ISO 8601 strings in UTC, as the views write
them (declared as strings so they reach the client exactly as written).  Views may add fields
before this file names them: an answer keeps fields it does not declare (``extra="allow"``) rather
than dropping them silently, and ``tests/test_server_openapi.py`` checks every route has a model.
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


class WagerInfo(Answer):
    code: str
    name: str
    placed: str = Field(description="betting (before the deal) or decision (Lucky Draw's Draw)")
    requires: str | None = Field(description="the wager that must be staked with it, if any")
    settles: str = Field(description="coup, or first_deal (Lucky Draw's Block Bonus)")
    maximum: int | None = Field(description="minor units; none for a wager that must equal another")
    pays: list[Pay]
    summary: str


class GameInfo(Answer):
    code: str
    name: str
    kind: str = Field(description="the procedure: punto_banco or lucky_draw")
    paytable: int | None
    max_seats: int
    minimum: int = Field(description="the default table minimum, minor units")
    wagers: list[WagerInfo]


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


class SeatedPlayer(Answer):
    name: str
    away: bool
    bets: dict[str, int]
    results: dict[str, dict[str, Any]] | None = Field(description="wager -> {event, net} once shown")


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
    client_seeds: list[Any] | None


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
    pending_limits: dict[str, Any] | None = Field(description="limits that apply from the next round")
    server_time: Time
    phase: str
    phase_started_at: Time | None
    phase_ends_at: Time | None
    round_number: int | None
    round: RoundWindow | None = Field(description="the round taking bets")
    next_round: dict[str, Any] | None
    cards: list[dict[str, Any]] = Field(description="the cards shown so far, in deal order")
    hands: dict[str, Any]
    result: dict[str, Any] | None = Field(description="the result once it is due, in a player's words")
    seats: dict[str, str] = Field(description="seat number -> player name")
    players: dict[str, SeatedPlayer]
    spots: dict[str, Spot]
    announcements: list[Announcement]
    shoe: ShoeInPlay | None
    last_result: dict[str, Any] | None
    decision: dict[str, Any] | None = Field(description="Lucky Draw: the decisions awaited")
    wagers: list[WagerInfo]


class YourState(Answer):
    seat: int | None
    name: str | None
    balance: int
    round: int | None
    bets: dict[str, int]
    settlement: dict[str, Any] | None
    decision: str | None


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


class Roads(Answer):
    shoe: int | None
    bead_plate: list[Any]
    big_road: list[Any]
    big_eye_boy: list[Any]
    small_road: list[Any]
    cockroach_pig: list[Any]
    ask: dict[str, dict[str, Any]]
    stats: dict[str, Any]


class Strategy(Answer):
    basis: str
    draw: dict[str, list[int]] = Field(description="seat total -> up-card values (0 = ten or face) to draw on")


class ShoeRecord(Answer):
    """A finished shoe's record for ``baccarat verify``: its server seed revealed, its client seeds,
    and every round dealt from it with its cards in deal order."""

    shoe: int
    table: str
    table_id: int
    algorithm: str
    game: str
    paytable: int | None = None
    decks: int
    cut_card: int
    commitment: str
    server_seed: str
    client_seeds: list[Any] | None = None
    burned: list[str]
    ended: str | None = None
    rounds: list[dict[str, Any]]


class VoidedRound(Answer):
    """The round voided and what was refunded."""

    table: int
    round: int
    status: str
    refunded: int = Field(description="minor units refunded in all")
    bets_refunded: int


# --- history and fairness -------------------------------------------------------------------------------


class RoundRecall(Answer):
    table: str
    table_id: int
    round: int
    status: str
    shoe: int | None
    time: Time | None
    detail: dict[str, Any]
    cards: list[str]
    cards_named: list[str]
    winner: str | None
    result_message: str | None
    bets: dict[str, dict[str, Any]]
    balance_before: int | None
    balance_after: int | None


class HistoryExport(Answer):
    format: str
    account: str
    balance: int
    rounds: list[dict[str, Any]]
    movements: list[dict[str, Any]]
    shoes: list[dict[str, Any]]


class ClientSeedSet(Answer):
    client_seed: str


class ClientSeed(Answer):
    client_seed: str | None = Field(description="none until you set one")
    algorithm: str = Field(description="the shuffling algorithm your seed feeds")
