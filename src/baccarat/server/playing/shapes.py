"""The shapes of what the table shows: the table view and its parts (cards, hands, results, seats,
spots, the shoe), a player's own state, the scoreboards, the recall of played rounds and the games'
wagers; and the round's result as stored with it.

These are the JSON objects :mod:`baccarat.server.playing.views` builds and the REST API and the
WebSocket send as they are; they are also the REST API's response models, so their docstrings are what
``/openapi.json`` says of each answer and field (:mod:`baccarat.server.api.responses`).  They are
``typing_extensions.TypedDict`` because pydantic reads no ``typing.TypedDict`` on Python 3.11.  Times are
ISO 8601 strings in UTC, amounts integers of minor units.
"""

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

# --- a round's cards and result as stored with it (``Round.result``) ------------------------------------


class DealtCard(TypedDict):
    """A card as stored with its round, in deal order: to whom, why, and the moment it is shown."""

    to: str
    """player, banker, dealer or seat:N"""
    card: str
    """``Kh``"""
    reason: str
    at: str
    down: NotRequired[str]
    """at a squeeze table (:mod:`baccarat.server.playing.squeeze`): when it is put down face down"""
    by: NotRequired[str | None]
    """at a squeeze table: its squeezer's name (None: the dealer turns it)"""


class SpotOutcome(TypedDict):
    """How a punto banco wager's spot came out: the pay table's event and its net odds (``19/20``)."""

    event: str
    odds: str


class StruckCard(TypedDict):
    """A card struck for the coup (a game with multipliers, docs/rules-files.md): a winning pay is multiplied by
    each struck card in the winning hand."""

    card: str
    """rank and suit: 7h, Ks"""
    multiplier: int


class RoundDetail(TypedDict, total=False):
    """What a round's stored result shows once it is due, less its cards and winner (the recall's
    ``detail``), each key only where the round has it: the coup's hands, totals and reasons; Lucky Draw's
    hands; a void's reason."""

    player_cards: list[str]
    banker_cards: list[str]
    player_total: int
    banker_total: int
    reasons: dict[str, str]
    """player/banker -> why the hand drew or stood"""
    reason_codes: dict[str, dict[str, object]]
    """player/banker -> the same reason as {code, params}"""
    hand: dict[str, str | bool]
    """the scoreboards' entry (:func:`baccarat.core.roads.hand_json`)"""
    hands: dict[str, list[str]]
    """Lucky Draw: seat:N and dealer -> cards"""
    decisions_at: str
    """Lucky Draw: when the decisions opened"""
    void: str
    """the reason a voided round was voided"""
    strike: list[StruckCard]
    """a game with multipliers: the coup's struck cards, drawn from the shoe's stream (docs/fairness.md, step 9)"""
    factor: int
    """a game with multipliers: what the struck cards in the winning hand multiply a winning pay by (1: none)"""


class ShownResult(RoundDetail, total=False):
    """The public part of a stored result (``last_result`` shows it)."""

    cards: list[str]
    """every card in deal order"""
    winner: str
    """punto banco: player, banker or tie"""


class StoredResult(ShownResult, total=False):
    """``Round.result``: written by :mod:`baccarat.server.playing.dealing` as the round is dealt,
    settled or voided; read by every view (which shows each part only once it is due)."""

    deal: list[DealtCard]
    first_deal: dict[str, list[str]]
    """Lucky Draw, until the round is finished: the first deal's face-up cards"""
    spots: dict[str, SpotOutcome]
    """wager code -> how it came out (punto banco)"""
    names: dict[str, str]
    """Lucky Draw: seat:N -> the name of the player whose hand it is"""
    balances: dict[str, int]
    """account id -> balance after the round (private)"""


# --- the table view's parts ------------------------------------------------------------------------------


class ShownCard(TypedDict):
    """A card shown at the table (:func:`baccarat.server.playing.timeline.card_view`)."""

    index: int
    """its place in the deal"""
    to: str
    """player, banker, dealer or seat:N"""
    card: str
    """rank and suit: Kh, Td"""
    rank: str
    suit: str
    label: str
    """as printed: K♥, 10♦"""
    name: str
    """in words: King of hearts"""
    value: int
    hand_index: int
    """its place in its hand"""
    reason: str
    at: str


class Hand(TypedDict):
    cards: list[str]
    total: int


class Pay(TypedDict):
    event: str
    """the outcome in the rule card's words"""
    odds: str
    """net odds as an exact fraction: 19/20, 8, 0 (push), -1 (loses)"""
    label: str
    """as a player reads it: 0.95:1, 8:1, push, loses"""
    rule: str | None
    """what the event means (Block Bonus), from the registry"""


class FeltInfo(TypedDict):
    """Where a wager's spot sits on the table (the game's data: the page has no arrangement of its own)."""

    side: str
    """player, banker or centre"""
    row: int
    """0 nearest the players"""
    order: int
    """left to right within its row"""


class WagerInfo(TypedDict):
    code: str
    name: str
    names: dict[str, str]
    """its name in the page's other languages, by language (en: the page's English where it differs)"""
    event_names: dict[str, dict[str, str]]
    """its events' words by language, where they differ from the event"""
    felt: FeltInfo
    placed: str
    """betting (before the deal) or decision (Lucky Draw's Draw)"""
    requires: str | None
    """the wager that must be staked with it, if any"""
    settles: str
    """coup, or first_deal (Lucky Draw's Block Bonus)"""
    maximum: int | None
    """minor units; none for a wager that must equal another"""
    pays: list[Pay]
    summary: str
    headline: Pay | None
    """the event its pay table is named by at the table and its pay ("Lucky 7 pays 2:1": Lucky Draw's Draw
    and Block Bonus), if named"""
    fee: str | None
    """a fee charged with each stake, as a fraction of it ("1/5"), paid at the bet; none for most wagers"""
    multiplied: bool
    """whether struck cards multiply its wins (a game with multipliers)"""


class DrawingRules(TypedDict):
    """Punto banco's drawing rules (no natural on either hand), from :mod:`baccarat.core.tableau`."""

    player_draws: list[int]
    """the Player's two-card totals that draw a third card"""
    banker_draws_player_stood: list[int]
    """the Banker's two-card totals that draw when the Player stood"""
    banker_draws: dict[str, list[int]]
    """Banker two-card total (0-7) -> the values of the Player's third card (0 = ten or picture) it draws on"""


class GameInfo(TypedDict):
    """A game and its wagers (``GET /api/games``)."""

    code: str
    name: str
    names: dict[str, str]
    """its name in the page's languages, where it differs from name"""
    kind: str
    """the procedure: punto_banco or lucky_draw"""
    paytable: int | None
    max_seats: int
    minimum: int
    """the default table minimum, minor units"""
    wagers: list[WagerInfo]
    paytable_name: str | None
    """Lucky Draw: the DrawWin table as players name it, e.g. 'Lucky 7 (3-card 7) pays 2:1'"""
    dealer_draws: list[int] | None
    """Lucky Draw: the dealer's two-card totals that draw a third card"""
    drawing: DrawingRules | None
    """punto banco: when each hand draws a third card (a natural 8 or 9 on either hand: neither draws)"""


class LimitsJson(TypedDict):
    minimum: int
    maximums: dict[str, int]
    """wager code -> maximum, minor units"""


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
    opens_at: str | None
    """shown with the result, not before"""


class SpotTotal(TypedDict):
    total: int
    """minor units staked on the spot"""
    players: int
    """how many players staked it"""


class BetOutcome(TypedDict):
    event: str
    """the pay table's event"""
    net: int
    """minor units won (or lost, negative)"""


class SeatedPlayer(TypedDict):
    name: str
    away: bool
    bets: dict[str, int]
    results: dict[str, BetOutcome] | None
    """wager -> its settlement, once shown"""


class Announcement(TypedDict):
    at: str
    kind: str
    seat: int | None
    name: str | None
    text: str
    """the news in English"""
    code: str
    """news.<kind> (news.other for news stored before params were)"""
    params: dict[str, object]
    """the code's parameters (:mod:`baccarat.core.messages`): name, seat, shoe, seconds, rounds"""


class ShoeInPlay(TypedDict):
    number: int
    algorithm: str
    commitment: str
    """SHA-256 of the server seed, published before the first deal"""
    cards_dealt: int
    cards: int
    cut_card: int
    last_hand: bool
    taking_client_seeds: bool
    client_seeds: list[str] | None
    merkle_root: str | None
    """algorithm 3: the root of the Merkle tree over the shuffled shoe, published once its client seeds are
    fixed (at its first deal), before any card is shown"""


class DecisionWindow(TypedDict):
    """Lucky Draw: the decisions awaited."""

    round: int
    opens_at: str | None
    decides_at: str
    first_deal: dict[str, list[str]]
    """seat:N and dealer -> the face-up cards"""
    decided: list[str]
    """the seats that have decided"""


class VoidResult(TypedDict):
    round: int
    void: str
    """why the round was voided"""
    at: str | None
    message: str


class CoupResult(TypedDict):
    """Punto banco's result in a player's words."""

    round: int
    winner: str
    """player, banker or tie"""
    player_total: int
    banker_total: int
    natural: bool
    callouts: list[str]
    """Natural, Dragon 7, Panda 8"""
    message: str
    winning_spots: list[str]
    pushed_spots: list[str]
    at: str | None


class SeatResult(TypedDict):
    name: str
    total: int
    winner: str
    """player, dealer or tie"""
    message: str


class SeatsResult(TypedDict):
    """Lucky Draw's result: each seat's hand against the dealer's."""

    round: int
    dealer_total: int
    seats: dict[str, SeatResult]
    at: str | None
    message: str


RoundResult = VoidResult | CoupResult | SeatsResult


class RoundNumber(TypedDict):
    # a base of its own, so that the number comes first in the API's answer, as the view writes it
    round: int


class LastResult(RoundNumber, ShownResult):
    """The last round whose result is shown: its number and the public part of its stored result:
    ``cards`` (in deal order) and, punto banco, ``player_cards``, ``banker_cards``, ``player_total``,
    ``banker_total``, ``winner``, ``reasons`` (and their codes), ``hand``; Lucky Draw, ``hands`` and
    ``decisions_at``; a voided round, ``void``."""


class CardShows(TypedDict):
    """The part of a face a lift uncovers (:class:`baccarat.core.card_face.Shows`, for the API's schema)."""

    pips: list[list[float]]
    """each pip uncovered, ``[x, y]`` on a unit face (``x`` across from the left, ``y`` down from the top)"""
    index: str | None
    """the rank in the index (``A``, ``2``... ``T``, ``J``, ``Q``, ``K``) once a corner is up; else None"""
    suit: str | None
    """``c``, ``d``, ``h`` or ``s`` once anything of the face is uncovered; else None"""
    court: bool
    """whether some of a picture card's picture is uncovered"""


class Peeled(TypedDict):
    """How far a card face down is lifted, and what of its face that shows (:mod:`baccarat.core.card_face`)."""

    lift: float
    """how far it is lifted, 0 to 1"""
    edge: str
    """where from: ``corner``, ``short`` (the bottom short edge: the pips row by row) or ``long`` (the right long
    edge: the pips column by column); ``corner`` while flat"""
    shows: CardShows
    """the part of its face that lift uncovers, nothing more"""


class FaceDown(Peeled):
    """A card on the table face down at a squeeze table, being squeezed (``turns_at``: when the dealer turns
    it) or waiting to be: of its face, only what its lift uncovers."""

    index: int
    """in deal order"""
    to: str
    """player or banker"""
    by: str | None
    """its squeezer's name; None: the dealer turns it"""
    down_at: str
    turns_at: str | None
    """the card being squeezed: when the dealer turns it; None for a card waiting its turn"""
    squeezed_from: str | None
    """the card being squeezed: when its squeezer may start peeling it (None: the dealer's)"""


class SqueezeView(TypedDict):
    """At a squeeze table: the squeeze time, who squeezes each side (from the deal on) and the cards face down."""

    seconds: float
    """the squeeze time per card"""
    squeezers: dict[str, str | None]
    """player, banker -> the squeezer's name (None: the dealer)"""
    cards: list[FaceDown]


class TableView(TypedDict):
    """A table at one moment: what every player at it sees (docs/api.md describes the phases)."""

    id: int
    name: str
    game: str
    game_name: str
    status: str
    """open, closing or closed"""
    paytable: int | None
    betting_seconds: float
    decision_seconds: float
    pace: TablePace
    limits: LimitsJson
    pending_limits: LimitsJson | None
    """limits that apply from the next round"""
    server_time: str
    phase: str
    phase_started_at: str | None
    phase_ends_at: str | None
    round_number: int | None
    round: RoundWindow | None
    """the round taking bets"""
    next_round: NextRound | None
    cards: list[ShownCard]
    """the cards shown so far, in deal order"""
    hands: dict[str, Hand]
    result: RoundResult | None
    """the result once it is due, in a player's words"""
    seats: dict[str, str]
    """seat number -> player name"""
    players: dict[str, SeatedPlayer]
    spots: dict[str, SpotTotal]
    announcements: list[Announcement]
    shoe: ShoeInPlay | None
    last_result: LastResult | None
    decision: DecisionWindow | None
    """Lucky Draw: the decisions awaited"""
    wagers: list[WagerInfo]
    bettors: int
    """players with bets on the round on show, seated or not"""
    squeeze: SqueezeView | None
    """a squeeze table's squeeze: who squeezes each side and the cards face down (never a face); None
    elsewhere"""
    strike: list[StruckCard] | None
    """a game with multipliers: the struck cards of the round on show, from the close of its betting (before
    its first card); None elsewhere and while betting"""


# --- a player's own state, the scoreboards, the recall ---------------------------------------------------


class SettledBet(TypedDict):
    amount: int
    event: str
    net: int


class YourSettlement(TypedDict):
    bets: dict[str, SettledBet]
    net: int
    """minor units, all the round's bets together"""


class SeatNotice(TypedDict):
    """Why the player's seat at this table was freed (not by leaving): ``notice.<kind>`` of the table news
    that said so."""

    code: str
    """notice.stood_up (no bet in N rounds in a row), notice.seat_freed (away past the grace period) or
    notice.operator_stood (stood up by the house)"""
    params: dict[str, object]
    """the news' parameters less the player's name: seat, and rounds or seconds"""
    at: str


class YourState(TypedDict):
    """One player's own state at a table (``GET /api/tables/{id}/you``, the WebSocket's ``you``)."""

    seat: int | None
    name: str | None
    balance: int | None
    """shown balance, never ahead of a result still on show (None only for an account without a wallet)"""
    round: int | None
    bets: dict[str, int]
    settlement: YourSettlement | None
    """once the round's result is shown"""
    decision: str | None
    notice: SeatNotice | None
    """while not seated: why the seat last held here was freed (for as long as the table shows its news),
    else null"""


class BeadCell(TypedDict):
    col: int
    row: int
    outcome: str
    """B, P or T"""
    banker_pair: bool
    player_pair: bool


class BigRoadCell(TypedDict):
    col: int
    row: int
    side: str | None
    """B or P (none only for the cell of an all-tie history)"""
    ties: int
    banker_pair: bool
    player_pair: bool


class RoadMark(TypedDict):
    col: int
    row: int
    colour: str
    """red or blue"""


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
    ask: dict[str, dict[str, str | None]]
    """banker/player -> derived road -> the colour a hand of that side would add (none: none)"""
    stats: RoadStats


class YourRoundBet(TypedDict):
    amount: int
    event: str
    net: int
    name: str
    """the wager's name"""


class RecallEntry(TypedDict):
    """One of the player's last rounds (``GET /api/history``)."""

    cursor: str
    """opaque: ask for ``before`` it to get the rounds dealt before this one"""
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
    bets: dict[str, YourRoundBet]
    balance_before: int | None
    balance_after: int | None
    seat: NotRequired[str]
    """Lucky Draw: seat:N, the hand that was yours"""
