"""What a table publishes beyond its view: the Lucky Draw strategy card it plays by and the record of a
finished shoe (its seeds, cards and rounds) for checking it."""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import NotRequired, cast

from sqlalchemy import select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.errors import (
    IllegalActionError,
    UnknownSeatError,
)
from baccarat.core.fair import SEEDED
from baccarat.core.registry import get_game
from baccarat.core.shoe import Shoe
from baccarat.server.playing import fairness
from baccarat.server.playing.scoreboards import core_seats
from baccarat.server.playing.shapes import StoredResult
from baccarat.server.playing.tables import game_of, table_row
from baccarat.server.storage.models import (
    Bet,
    GameTable,
    Round,
    ShoeRow,
)


class StrategyCard(TypedDict):
    """Lucky Draw's hint (``GET /api/tables/{id}/strategy``)."""

    basis: str
    draw: dict[str, list[int]]
    """seat total -> the up-card values (0: a ten or face) to draw on"""
    returns: dict[str, list[list[float]]]
    """seat total -> per up-card value 0..9, [standing, drawing]: the expected result per unit of Enter that
    the card compares (the hint's reason), rounded to 4 places for showing"""


class LuckySeats(TypedDict):
    seats: list[int]
    """the seats dealt to, in deal order"""
    drew: list[int]
    """those that drew"""


class CardProof(TypedDict):
    """What proves one card of a shoe against its published Merkle root: :class:`baccarat.core.fair.CardProof`
    again, for the API (the core uses no third-party package, and pydantic reads no ``typing.TypedDict`` on
    Python 3.11); ``tests/server/api/test_responses.py`` checks that the two name the same keys."""

    position: int
    """in the shuffled shoe, 0 for its first card (the burn included)"""
    salt: str
    """HMAC-SHA256(server seed, 'salt' + position as 2 bytes), hex"""
    path: list[str]
    """the RFC 6962 audit path from the card's leaf to the Merkle root, hex"""


class ShoeRound(TypedDict):
    round: int
    cards: list[str]
    """in deal order"""
    seats: NotRequired[list[int]]
    """Lucky Draw: the seats dealt to, in deal order"""
    drew: NotRequired[list[int]]
    """Lucky Draw: the seats that drew"""
    void: NotRequired[str]
    """a round voided after its first deal: why"""
    proof: NotRequired[list[CardProof]]
    """algorithm 3: each card's proof (its position, salt and Merkle path), in deal order"""


class ShoeRecord(TypedDict):
    """A shoe's record for ``baccarat verify``: its server seed revealed, its client seeds, and every round
    dealt from it with its cards in deal order (algorithm 3: and each card's Merkle proof; a shoe still in
    play has no seed yet, and its rounds shown so far)."""

    shoe: int
    table: str
    table_id: int
    algorithm: str
    game: str
    paytable: NotRequired[int]
    """Lucky Draw's DrawWin pay table"""
    definition: NotRequired[str]
    """a game from a rules file: the SHA-256 of its definition's canonical content (the export carries the text)"""
    decks: int
    cut_card: int
    commitment: str
    merkle_root: NotRequired[str]
    """algorithm 3: published at the shoe's first deal"""
    server_seed: NotRequired[str]
    """revealed when the shoe ends (a record of a shoe in play has none)"""
    client_seeds: NotRequired[list[str]]
    """shoes of the algorithms that take them"""
    burned: NotRequired[list[str]]
    """once the shoe is over (the burn is face down, but for its first card)"""
    burn_proof: NotRequired[list[CardProof]]
    """algorithm 3: the burned cards' proofs"""
    turned: NotRequired[str]
    """a shoe in play (algorithm 3): the burn's first card, turned face up"""
    turned_proof: NotRequired[CardProof]
    ended: NotRequired[str]
    rounds: list[ShoeRound]


@lru_cache(maxsize=8)
def _strategy_card(paytable: int | None, decks: int) -> tuple[dict[str, list[int]], dict[str, list[list[float]]]]:
    from baccarat.analysis.composition import Composition  # numpy: only when a hint is asked for
    from baccarat.analysis.lucky_draw import cells, total_strategy_card, total_values

    counted = cells(get_game("lucky-draw", paytable=paytable), Composition.full(decks))
    card = total_strategy_card(counted)
    stand, draw = total_values(counted)
    return ({str(total): [up for up in range(10) if card[total, up]] for total in range(10)},
            {str(total): [[round(float(stand[total][up]), 4), round(float(draw[total][up]), 4)] for up in range(10)]
             for total in range(10)})


def table_strategy(s: Session, table_id: int) -> StrategyCard:
    """Lucky Draw's hint: the exact total-dependent strategy card of the table's game for a full shoe
    (seat total -> the up-card values, 0 for a ten or face card, on which drawing is optimal)."""
    table = table_row(s, table_id)
    game = game_of(table)
    if game.kind != "lucky_draw":
        raise IllegalActionError.coded("strategy.no_draw", game=game.code, names={"game": game.name})
    draw, returns = _strategy_card(table.paytable, table.decks)
    return {"basis": f"total-dependent strategy card, full {table.decks}-deck shoe, DrawWin pay table "
                     f"{table.paytable}", "draw": draw, "returns": returns}


def shoe_record(s: Session, table_id: int, number: int, *, in_play_at: datetime | None = None) -> ShoeRecord:
    """A revealed shoe's record for ``baccarat verify`` (refused while the shoe is in play): its
    seeds, the game, how it ended, and every round dealt from it with its cards in deal order
    (Lucky Draw rounds also name the seats dealt to, in order, and those that drew; a round voided
    after its first deal keeps the cards it showed, which left the shoe).  A shoe of algorithm 3
    also has its Merkle root and each card's proof (the burn's included).

    With ``in_play_at``, a sealed shoe of algorithm 3 still in play has a record too: no server
    seed, only the rounds whose result was shown by then, each proven by its cards' proofs, and of
    the burn only its first card, which is turned face up (it says how many are burned); the others
    are burned face down, and are no one's to know before the shoe ends."""
    row = s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id, ShoeRow.number == number))
    if row is None:
        raise UnknownSeatError.coded("shoe.unknown", shoe=number, table=table_id)
    root = fairness.merkle_root(row)
    in_play = row.revealed_at is None
    if in_play and (in_play_at is None or root is None):
        raise IllegalActionError.coded("shoe.in_play")
    table = table_row(s, table_id)
    # in play: only what the table has shown (a round settled but not yet shown is nobody's yet)
    shown = (Round.result_at.is_not(None) & (Round.result_at <= in_play_at)) if in_play else Round.id.is_not(None)
    rounds = [r for r in s.scalars(select(Round).where(Round.shoe_id == row.id, Round.status.in_(("settled", "void")),
                                                       shown).order_by(Round.number))
              if json.loads(r.result or "{}").get("cards")]
    seats = _lucky_seats(s, table, rounds) if game_of(table).kind == "lucky_draw" else {}
    burned = Shoe(list(fairness.shoe_cards(row)), cut_card=row.cut_card, burn=True).burned
    entries: list[ShoeRound] = []
    position = len(burned)
    for current in rounds:
        result: StoredResult = json.loads(current.result or "{}")
        entry: ShoeRound = {"round": current.number, "cards": result["cards"]}
        lucky = seats.get(current.id)
        if lucky is not None:
            entry["seats"], entry["drew"] = lucky["seats"], lucky["drew"]
        if current.status == "void":
            entry["void"] = result.get("void", "")
        if root is not None:  # where its cards lay, as the dealer took them
            position = current.first_card if current.first_card is not None else position
            entry["proof"] = fairness.card_proofs(row, position, len(result["cards"]))
        position += len(result["cards"])
        entries.append(entry)
    # built key by key, in the order the verifier's files have always had them
    record: dict[str, object] = {"shoe": row.number, "table": table.name, "table_id": table.id,
                              "algorithm": row.algorithm, "game": table.game}
    if table.paytable is not None:
        record["paytable"] = table.paytable
    if row.definition is not None:  # a rules-file game: the digest of the definition it was dealt by
        record["definition"] = row.definition
    record.update(decks=row.decks, cut_card=row.cut_card, commitment=row.commitment)
    if root is not None:
        record["merkle_root"] = root
    if not in_play:
        record["server_seed"] = row.server_seed
    if row.algorithm in SEEDED:
        record["client_seeds"] = fairness.seeds_of(row)
    if in_play:
        record.update(turned=str(burned[0]), turned_proof=fairness.card_proofs(row, 0, 1)[0])
    else:
        record["burned"] = [str(c) for c in burned]
        if root is not None:
            record["burn_proof"] = fairness.card_proofs(row, 0, len(burned))
    if row.ended is not None:
        record["ended"] = row.ended
    record["rounds"] = entries
    return cast(ShoeRecord, record)


def _lucky_seats(s: Session, table: GameTable, rounds: list[Round]) -> dict[int, LuckySeats]:
    """Round id -> the seats dealt to, in deal order, and those that drew, as the dealer placed the
    players' bets (:func:`core_seats`)."""
    bets: dict[int, list[Bet]] = {}
    for bet in s.scalars(select(Bet).where(Bet.round_id.in_([r.id for r in rounds])).order_by(Bet.id)):
        bets.setdefault(bet.round_id, []).append(bet)
    seats: dict[int, LuckySeats] = {}
    for round_id, placed in bets.items():
        seat_of = core_seats(placed, game_of(table).max_seats)
        seats[round_id] = {"seats": sorted(seat_of[b.account_id] for b in placed if b.wager == "enter"),
                           "drew": sorted(seat_of[b.account_id] for b in placed if b.wager == "draw")}
    return seats
