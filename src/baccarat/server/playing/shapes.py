"""The shapes of what the table shows: the table view and its parts (cards, hands, results, seats,
spots, the shoe), a player's own state, the scoreboards, the recall of played rounds and the games'
wagers; and the round's result as stored with it.

These are the JSON objects :mod:`baccarat.server.playing.views` builds and the REST API and the
WebSocket send as they are.  The answers of :mod:`baccarat.server.api.responses` describe the same
shapes for ``/openapi.json`` (``tests/server/playing/test_shapes.py`` checks that the two agree).  Times are
ISO 8601 strings in UTC, amounts integers of minor units.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

# --- a round's cards and result as stored with it (``Round.result``) ------------------------------------


class DealtCard(TypedDict):
    """A card as stored with its round, in deal order: to whom, why, and the moment it is shown."""

    to: str  #: player, banker, dealer or seat:N
    card: str  #: ``Kh``
    reason: str
    at: str
    #: at a squeeze table (:mod:`baccarat.server.playing.squeeze`): when it is put down face down, and its
    #: squeezer's name (None: the dealer turns it)
    down: NotRequired[str]
    by: NotRequired[str | None]


class SpotOutcome(TypedDict):
    """How a punto banco wager's spot came out: the pay table's event and its net odds (``19/20``)."""

    event: str
    odds: str


class RoundDetail(TypedDict, total=False):
    """What a round's stored result shows once it is due, less its cards and winner (the recall's
    ``detail``): the coup's hands, totals and reasons; Lucky Draw's hands; a void's reason."""

    player_cards: list[str]
    banker_cards: list[str]
    player_total: int
    banker_total: int
    reasons: dict[str, str]  #: player/banker -> why the hand drew or stood
    reason_codes: dict[str, dict[str, object]]  #: player/banker -> the same as {code, params}
    hand: dict[str, str | bool]  #: the scoreboards' entry (:func:`baccarat.core.roads.hand_json`)
    hands: dict[str, list[str]]  #: Lucky Draw: seat:N and dealer -> cards
    decisions_at: str  #: Lucky Draw: when the decisions opened
    void: str  #: the reason a voided round was voided


class ShownResult(RoundDetail, total=False):
    """The public part of a stored result (``last_result`` shows it)."""

    cards: list[str]  #: every card in deal order
    winner: str  #: punto banco: player, banker or tie


class StoredResult(ShownResult, total=False):
    """``Round.result``: written by :mod:`baccarat.server.playing.dealing` as the round is dealt,
    settled or voided; read by every view (which shows each part only once it is due)."""

    deal: list[DealtCard]
    first_deal: dict[str, list[str]]  #: Lucky Draw, until the round is finished: the first deal's face-up cards
    spots: dict[str, SpotOutcome]  #: wager code -> how it came out (punto banco)
    names: dict[str, str]  #: Lucky Draw: seat:N -> the name of the player whose hand it is
    balances: dict[str, int]  #: account id -> balance after the round (private)


# --- the table view's parts ------------------------------------------------------------------------------


class ShownCard(TypedDict):
    """A card shown at the table (:func:`baccarat.server.playing.timeline.card_view`)."""

    index: int  #: its place in the deal
    to: str
    card: str
    rank: str
    suit: str
    label: str  #: ``K♥``
    name: str  #: ``King of hearts``
    value: int
    hand_index: int  #: its place in its hand
    reason: str
    at: str


class Hand(TypedDict):
    cards: list[str]
    total: int


class Pay(TypedDict):
    event: str  #: the outcome in the rule card's words
    odds: str  #: net odds as an exact fraction: 19/20, 8, 0 (push), -1 (loses)
    label: str  #: as a player reads it: 0.95:1, 8:1, push, loses
    rule: str | None  #: what the event means (Block Bonus), from the registry


class WagerInfo(TypedDict):
    code: str
    name: str
    placed: str  #: betting, or decision (Lucky Draw's Draw)
    requires: str | None
    settles: str  #: coup, or first_deal (Lucky Draw's Block Bonus)
    maximum: int | None
    pays: list[Pay]
    summary: str
    headline: Pay | None  #: the event its pay table is named by and its pay ("Lucky 7 pays 2:1"), if named


class DrawingRules(TypedDict):
    """Punto banco's drawing rules (no natural on either hand), from :mod:`baccarat.core.tableau`."""

    player_draws: list[int]  #: the Player's two-card totals that draw
    banker_draws_player_stood: list[int]  #: the Banker's two-card totals that draw when the Player stood
    banker_draws: dict[str, list[int]]  #: Banker two-card total -> the Player's third-card values it draws on


class GameInfo(TypedDict):
    """A game and its wagers (``GET /api/games``)."""

    code: str
    name: str
    kind: str
    paytable: int | None
    max_seats: int
    minimum: int
    wagers: list[WagerInfo]
    paytable_name: str | None  #: Lucky Draw: the DrawWin table as players name it ("Lucky 7 (3-card 7) pays 2:1")
    dealer_draws: list[int] | None  #: Lucky Draw: the dealer's two-card totals that draw a third card
    drawing: DrawingRules | None  #: punto banco: when each hand draws a third card


class LimitsJson(TypedDict):
    minimum: int
    maximums: dict[str, int]


class TablePace(TypedDict):
    no_more_bets: float
    card: float
    results: float


class RoundWindow(TypedDict):
    """The round taking bets."""

    number: int
    opens_at: str | None
    closes_at: str


class NextRound(TypedDict):
    number: int
    opens_at: str | None  #: shown with the result, not before


class SpotTotal(TypedDict):
    total: int
    players: int


class BetOutcome(TypedDict):
    event: str
    net: int


class SeatedPlayer(TypedDict):
    name: str
    away: bool
    bets: dict[str, int]
    results: dict[str, BetOutcome] | None  #: wager -> its settlement, once shown


class Announcement(TypedDict):
    at: str
    kind: str
    seat: int | None
    name: str | None
    text: str  #: the English words
    code: str  #: ``news.<kind>`` (``news.other`` for news stored before params were)
    params: dict[str, object]  #: the code's params (:mod:`baccarat.core.messages`)


class ShoeInPlay(TypedDict):
    number: int
    algorithm: str
    commitment: str
    cards_dealt: int
    cards: int
    cut_card: int
    last_hand: bool
    taking_client_seeds: bool
    client_seeds: list[str] | None
    merkle_root: str | None  #: algorithm 3, once its client seeds are fixed (its first deal)


class DecisionWindow(TypedDict):
    """Lucky Draw: the decisions awaited."""

    round: int
    opens_at: str | None
    decides_at: str
    first_deal: dict[str, list[str]]
    decided: list[str]  #: the seats that have decided


class VoidResult(TypedDict):
    round: int
    void: str
    at: str | None
    message: str


class CoupResult(TypedDict):
    """Punto banco's result in a player's words."""

    round: int
    winner: str
    player_total: int
    banker_total: int
    natural: bool
    callouts: list[str]
    message: str
    winning_spots: list[str]
    pushed_spots: list[str]
    at: str | None


class SeatResult(TypedDict):
    name: str
    total: int
    winner: str  #: player, dealer or tie
    message: str


class SeatsResult(TypedDict):
    """Lucky Draw's result: each seat's hand against the dealer's."""

    round: int
    dealer_total: int
    seats: dict[str, SeatResult]
    at: str | None
    message: str


RoundResult = VoidResult | CoupResult | SeatsResult


class LastResult(ShownResult):
    """The last round whose result is shown: its number and the public part of its stored result."""

    round: int


class FaceDown(TypedDict):
    """A card on the table face down, being squeezed or waiting to be: never its face."""

    index: int  #: in deal order
    to: str  #: player or banker
    by: str | None  #: its squeezer's name; None: the dealer turns it
    down_at: str
    turns_at: str | None  #: the card being squeezed: when the dealer turns it; None for a card waiting its turn
    squeezed_from: str | None  #: the card being squeezed: when its squeezer may start peeling it (None: the dealer's)
    lift: float  #: how far its corner is lifted (0 to 1)


class SqueezeView(TypedDict):
    """At a squeeze table: the squeeze time, who squeezes each side (from the deal on) and the cards face down."""

    seconds: float
    squeezers: dict[str, str | None]  #: player, banker -> name (None: the dealer)
    cards: list[FaceDown]


class TableView(TypedDict):
    """A table at one moment: what every player at it sees (see the timeline in ``docs/api.md``)."""

    id: int
    name: str
    game: str
    game_name: str
    status: str  #: open, closing or closed
    paytable: int | None
    betting_seconds: float
    decision_seconds: float
    pace: TablePace
    limits: LimitsJson
    pending_limits: LimitsJson | None  #: limits that apply from the next round
    server_time: str
    phase: str
    phase_started_at: str | None
    phase_ends_at: str | None
    round_number: int | None
    round: RoundWindow | None
    next_round: NextRound | None
    cards: list[ShownCard]
    hands: dict[str, Hand]
    result: RoundResult | None
    seats: dict[str, str]  #: seat number -> player name
    players: dict[str, SeatedPlayer]
    bettors: int  #: players with bets on the round on show, seated or not
    #: a squeeze table's squeeze (None elsewhere): :class:`SqueezeView`
    squeeze: SqueezeView | None
    spots: dict[str, SpotTotal]
    announcements: list[Announcement]
    shoe: ShoeInPlay | None
    last_result: LastResult | None
    decision: DecisionWindow | None
    wagers: list[WagerInfo]


# --- a player's own state, the scoreboards, the recall ---------------------------------------------------


class SettledBet(TypedDict):
    amount: int
    event: str
    net: int


class YourSettlement(TypedDict):
    bets: dict[str, SettledBet]
    net: int


class SeatNotice(TypedDict):
    """Why a player's seat was freed (not by leaving): ``notice.<kind>`` of the table news that said so."""

    code: str
    params: dict[str, object]  #: the news' params less the player's name
    at: str


class YourState(TypedDict):
    """One player's own state at a table (``GET /api/tables/{id}/you``, the WebSocket's ``you``)."""

    seat: int | None
    name: str | None
    balance: int | None  #: shown balance (None only for an account without a wallet)
    round: int | None
    bets: dict[str, int]
    settlement: YourSettlement | None
    decision: str | None
    notice: SeatNotice | None  #: while not seated: why the seat last held here was freed


class BeadCell(TypedDict):
    col: int
    row: int
    outcome: str
    banker_pair: bool
    player_pair: bool


class BigRoadCell(TypedDict):
    col: int
    row: int
    side: str | None
    ties: int
    banker_pair: bool
    player_pair: bool


class RoadMark(TypedDict):
    col: int
    row: int
    colour: str


class RoadStats(TypedDict):
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


class TableRoads(TypedDict):
    """The scoreboards of the shoe on show (:meth:`baccarat.core.roads.Roads.to_json`)."""

    shoe: int | None
    bead_plate: list[BeadCell]
    big_road: list[BigRoadCell]
    big_eye_boy: list[RoadMark]
    small_road: list[RoadMark]
    cockroach_pig: list[RoadMark]
    ask: dict[str, dict[str, str | None]]  #: banker/player -> derived road -> the colour it would add
    stats: RoadStats


class RecalledBet(TypedDict):
    amount: int
    event: str
    net: int
    name: str


class RecallEntry(TypedDict):
    """One of the player's last rounds (``GET /api/history``)."""

    table: str
    table_id: int
    round: int
    status: str
    shoe: int
    time: str
    detail: RoundDetail
    cards: list[str]
    cards_named: list[str]
    winner: str | None
    result_message: str | None
    bets: dict[str, RecalledBet]
    balance_before: int | None
    balance_after: int | None
    seat: NotRequired[str]  #: Lucky Draw: ``seat:N``, the hand that was theirs
