"""A player's history for ``baccarat verify`` (``GET /api/history/export``).

The export holds, for the player's last rounds: each round's bets, how each was settled, the cards
and hands; every movement of the player's wallet since the first of those rounds (each with the
balance after it, in the order the balance changed, and the round it was for); and the record
of every shoe those rounds were dealt from, with the client seed the player brought to it: once the
shoe is over, with its seed revealed; while it is in play (algorithm 3), with its Merkle root and the
rounds shown so far, each card with its proof.  The verifier deals each round again from its shoe's
seeds, or proves its cards against the root at once, and follows the balance through the movements;
rounds on a shoe of an older algorithm still in play become verifiable when it ends.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import NotRequired

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.cards import Card, hand_total
from baccarat.core.errors import IllegalActionError, UnknownSeatError
from baccarat.server.house import wallet
from baccarat.server.house.export_signature import ExportSignature
from baccarat.server.playing import fairness, records, scoreboards, tables
from baccarat.server.playing.records import ShoeRecord
from baccarat.server.playing.shapes import StoredResult, StruckCard
from baccarat.server.storage.models import (
    Account,
    Bet,
    GameDefinition,
    GameTable,
    LedgerTransaction,
    Posting,
    Round,
    Settlement,
    ShoeRow,
    aware,
)
from baccarat.server.storage.models import now as _now

#: Named in the file, so the verifier knows what it reads.
EXPORT_FORMAT = "baccarat history export/1"
#: Rounds in one export unless the player asks for fewer or more (at most :data:`MOST_ROUNDS`).
DEFAULT_ROUNDS = 500
MOST_ROUNDS = 5000


class WalletMovement(TypedDict):
    """A movement of the player's wallet, with the balance after it (and the round it was for)."""

    id: int
    kind: str
    amount: int
    balance: int
    """the wallet's balance after it"""
    memo: str
    table_id: NotRequired[int]
    round: NotRequired[int]


class ExportedRound(TypedDict):
    """A round as ``baccarat verify`` reads it, each optional key only where the round has it."""

    table: str
    table_id: int
    game: str
    paytable: int | None
    round: int
    shoe: int
    status: str
    time: str
    bets: dict[str, int]
    events: dict[str, str]
    net: dict[str, int]
    cards: list[str]
    void: NotRequired[str]
    player_cards: NotRequired[list[str]]
    """punto banco"""
    banker_cards: NotRequired[list[str]]
    player_total: NotRequired[int]
    banker_total: NotRequired[int]
    seat: NotRequired[str]
    """Lucky Draw: seat:N, your hand"""
    seat_cards: NotRequired[list[str]]
    dealer_cards: NotRequired[list[str]]
    seat_total: NotRequired[int]
    dealer_total: NotRequired[int]
    result: NotRequired[str]
    """player, banker or tie; Lucky Draw: player, dealer or tie"""
    strike: NotRequired[list[StruckCard]]
    """a game with multipliers: the coup's struck cards (docs/fairness.md, step 9)"""


class ExportedShoe(ShoeRecord):
    """The record of a shoe the exported rounds were dealt from, with the client seed you brought to it."""

    your_client_seed: str | None
    """the client seed you brought to the shoe"""


class ShoeStillDealt(TypedDict):
    """A shoe still being dealt whose record is not given yet (an older algorithm, without a Merkle root)."""

    table_id: int
    shoe: int


class HistoryExport(TypedDict):
    """``GET /api/history/export``: what ``baccarat verify`` checks."""

    format: str
    account: str
    balance: int
    rounds: list[ExportedRound]
    movements: list[WalletMovement]
    shoes: list[ExportedShoe]
    in_play: list[ShoeStillDealt]
    """the shoes of the rounds whose records are not given because they are still being dealt: every other round's
    shoe has its record here (a verifier names one missing)"""
    definitions: NotRequired[dict[str, str]]
    """the rules files of the shoes' games that are not built in, by digest (a shoe record's ``definition``)"""
    signature: NotRequired[ExportSignature]
    """the house's signature over the rest (docs/fairness.md, "Signed exports"); the public key is GET
    /api/fairness/key"""


def _total(cards: list[str]) -> int:
    return hand_total(Card.parse(c) for c in cards)


def export(s: Session, account_id: int, limit: int = DEFAULT_ROUNDS, now: datetime | None = None) -> HistoryExport:
    """The player's last ``limit`` rounds (and any other round their wallet moved for since the
    first of them), the wallet's movements since, and the revealed records of their shoes.

    Refused while one of the player's rounds is being dealt: its settlement is in the ledger before
    the table shows its result, and the export must not tell it sooner than the table does (nor, by saying when
    to ask again, how many cards are still to come)."""
    now = now or _now()
    account = s.get(Account, account_id)
    if account is None:
        raise UnknownSeatError.coded("account.unknown", account=account_id)
    showing = s.scalar(select(func.max(Settlement.shown_at)).join(Bet, Bet.id == Settlement.bet_id)
                       .where(Bet.account_id == account_id, Settlement.shown_at > now))
    if showing is not None:  # (with no time: when the result shows would tell how many cards are to come)
        raise IllegalActionError.coded("history.still_dealing")
    wallet_name = wallet.wallet_account(account_id)
    recent = list(s.scalars(select(Bet.round_id).join(Round, Round.id == Bet.round_id)
                            .where(Bet.account_id == account_id).group_by(Bet.round_id, Round.dealt_at, Round.closes_at)
                            .order_by(scoreboards.dealt_time().desc(), Bet.round_id.desc()).limit(limit)))
    moved = _movements(s, wallet_name, recent)
    movements = [movement for movement, _ in moved]
    # every round the listed movements are for is listed too (a round at another table may have
    # moved the wallet in between), so that the verifier can follow the balance all the way
    moved_for = {round_id for _, round_id in moved if round_id is not None}
    rounds, dealt_from = _rounds(s, account_id, sorted(set(recent) | moved_for))
    shoes: list[ExportedShoe] = []
    in_play: list[ShoeStillDealt] = []
    for table_id, number, shoe_id in sorted(dealt_from):
        try:
            record = records.shoe_record(s, table_id, number, in_play_at=now)
        except IllegalActionError:  # in play, no Merkle root (an older algorithm): verifiable when it ends
            in_play.append({"table_id": table_id, "shoe": number})
            continue
        shoes.append({**record, "your_client_seed": fairness.your_seeds(s, account_id, [shoe_id]).get(shoe_id)})
    answer: HistoryExport = {"format": EXPORT_FORMAT, "account": account.username,
                             "balance": wallet.balance(s, account_id), "rounds": rounds, "movements": movements,
                             "shoes": shoes, "in_play": in_play}
    named = sorted({shoe["definition"] for shoe in shoes if "definition" in shoe})
    if named:  # the verifier reads each game's rules from its text, and checks the text against the digest
        answer["definitions"] = {digest: text for digest, text in s.execute(
            select(GameDefinition.digest, GameDefinition.text).where(GameDefinition.digest.in_(named)))}
    return answer


def _movements(s: Session, wallet_name: str, round_ids: list[int]) -> list[tuple[WalletMovement, int | None]]:
    """The wallet's movements from the first stake on any of ``round_ids``, with the balance after each, and
    the id of the round each is for (if any)."""
    escrows = [wallet.escrow_account(r) for r in round_ids]
    if not escrows:
        return []
    staked = select(Posting.transaction_id).where(Posting.account.in_(escrows))
    start = s.scalar(select(func.min(Posting.id)).where(Posting.account == wallet_name,
                                                        Posting.transaction_id.in_(staked)))
    if start is None:
        return []
    balance = s.scalar(select(func.coalesce(func.sum(Posting.amount), 0)).where(
        Posting.account == wallet_name, Posting.id < start)) or 0
    rows = s.execute(select(Posting.transaction_id, Posting.amount, LedgerTransaction.kind, LedgerTransaction.memo)
                     .join(LedgerTransaction, LedgerTransaction.id == Posting.transaction_id)
                     .where(Posting.account == wallet_name, Posting.id >= start).order_by(Posting.id)).all()
    linked = {transaction: int(name.split(":", 1)[1]) for transaction, name in s.execute(
        select(Posting.transaction_id, Posting.account).where(
            Posting.transaction_id.in_([row.transaction_id for row in rows]), Posting.account.like("escrow:%")))}
    where = {round_id: (table_id, number) for round_id, table_id, number in s.execute(
        select(Round.id, Round.table_id, Round.number).where(Round.id.in_(set(linked.values()))))}
    movements: list[tuple[WalletMovement, int | None]] = []
    for row in rows:
        balance += row.amount
        movement: WalletMovement = {"id": row.transaction_id, "kind": row.kind, "amount": row.amount,
                                    "balance": int(balance), "memo": row.memo}
        round_id = linked.get(row.transaction_id)
        if round_id is not None:
            movement.update({"table_id": where[round_id][0], "round": where[round_id][1]})
        movements.append((movement, round_id))
    return movements


def _rounds(s: Session, account_id: int, round_ids: list[int]
            ) -> tuple[list[ExportedRound], set[tuple[int, int, int]]]:
    """Each round as the verifier reads it (bets, settlements, cards and hands, balance before and
    after), and the shoes they were dealt from: (table id, shoe number, shoe id)."""
    found = s.execute(select(Round, GameTable, ShoeRow.number).join(GameTable, GameTable.id == Round.table_id)
                      .join(ShoeRow, ShoeRow.id == Round.shoe_id).where(Round.id.in_(round_ids))
                      .order_by(Round.id)).all()
    everyone: dict[int, list[Bet]] = {}
    for bet in s.scalars(select(Bet).where(Bet.round_id.in_(round_ids)).order_by(Bet.id)):
        everyone.setdefault(bet.round_id, []).append(bet)
    settled = {bet_id: (event, net) for bet_id, event, net in s.execute(
        select(Settlement.bet_id, Settlement.event, Settlement.net).join(Bet, Bet.id == Settlement.bet_id)
        .where(Bet.account_id == account_id, Bet.round_id.in_(round_ids)))}
    rounds: list[ExportedRound] = []
    shoes = set()
    for current, table, shoe_number in found:
        shoes.add((table.id, shoe_number, current.shoe_id))
        mine = [b for b in everyone.get(current.id, []) if b.account_id == account_id]
        result: StoredResult = json.loads(current.result or "{}")
        entry: ExportedRound = {
            "table": table.name, "table_id": table.id, "game": table.game, "paytable": table.paytable,
            "round": current.number, "shoe": shoe_number, "status": current.status,
            "time": aware(current.closes_at).isoformat(),
            "bets": {b.wager: b.amount for b in mine},
            "events": {b.wager: settled[b.id][0] for b in mine if b.id in settled},
            "net": {b.wager: settled[b.id][1] for b in mine if b.id in settled},
            "cards": result.get("cards", []),
        }
        if "void" in result:
            entry["void"] = result["void"]
        if "strike" in result:
            entry["strike"] = result["strike"]
        if "player_cards" in result:
            entry.update({"player_cards": result["player_cards"], "banker_cards": result["banker_cards"],
                          "player_total": result["player_total"], "banker_total": result["banker_total"],
                          "result": result["winner"]})
        if tables.game_of(table).kind == "lucky_draw" and mine:
            seat_of = scoreboards.core_seats(everyone[current.id], tables.game_of(table).max_seats)
            seat = entry["seat"] = f"seat:{seat_of[account_id]}"
            hands = result.get("hands", {})
            if seat in hands and "dealer" in hands:
                mine_cards, dealer = hands[seat], hands["dealer"]
                you, them = _total(mine_cards), _total(dealer)
                entry.update({"seat_cards": mine_cards, "dealer_cards": dealer, "seat_total": you, "dealer_total": them,
                              "result": "player" if you > them else "dealer" if them > you else "tie"})
        rounds.append(entry)
    return rounds, shoes
