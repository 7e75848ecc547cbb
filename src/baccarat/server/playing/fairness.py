"""Client seeds at the table server: shoes the house cannot choose alone.

A shoe of algorithm ``hmac-sha256-fisher-yates/2`` (:mod:`baccarat.core.fair`) is committed when it is
made, before any round on it opens.  Then, until its first round is dealt (normally: during its
first betting window), it *takes client seeds*: each player who bets on it brings the client seed
they have set (the browser draws one at random, or the player types their own).  At the first deal
the seeds taken are fixed, the shuffle key is derived from the server seed and them, and the burn
is made; the shoe's cards are known only from then on.  A seed is written with the bet that took
it, so a deal repeated after a crash shuffles with exactly the same seeds.

A shoe of algorithm ``hmac-sha256-fisher-yates/3`` takes seeds the same way; at its first deal it
also publishes the root of a Merkle tree over its shuffled cards (:class:`baccarat.core.fair.ShoeTree`),
and every round dealt from it carries each card's proof, so that the round is proven against the
root the moment it is shown, long before the seed is revealed.

Shoes of the first algorithm (made before this existed) take no seed and are dealt out as before.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from baccarat.core.cards import Card
from baccarat.core.errors import UnknownSeatError
from baccarat.core.fair import ALGORITHM, SEEDED, CardProof, ShoeTree, check_client_seed, fair_cards, shoe_key
from baccarat.core.games import Game
from baccarat.core.shoe import Shoe
from baccarat.core.strikes import Strike, draw
from baccarat.server.house import seed_keys
from baccarat.server.storage.models import Account, ShoeRow, ShoeSeed

_ACCOUNTS = cast(SqlTable, Account.__table__)
_SEEDS = cast(SqlTable, ShoeSeed.__table__)
_YOUR_SEED = select(_ACCOUNTS.c.client_seed).where(_ACCOUNTS.c.id == bindparam("account"))
_TAKEN = select(_SEEDS.c.id).where(_SEEDS.c.shoe_id == bindparam("shoe"), _SEEDS.c.account_id == bindparam("account"))
_TAKE = insert(_SEEDS)


class ClientSeedSet(TypedDict):
    client_seed: str


class ClientSeed(TypedDict):
    client_seed: str | None
    """none until you set one"""
    algorithm: str
    """the shuffling algorithm your seed feeds (that of new shoes)"""


def takes_seeds(algorithm: str, client_seeds: str | None) -> bool:
    """Whether a shoe still takes client seeds: of algorithm 2 or 3, and not dealt from yet."""
    return algorithm in SEEDED and client_seeds is None


def set_client_seed(s: Session, account_id: int, seed: str) -> ClientSeedSet:
    """Set the player's client seed; it goes into the shoes they bet on before their first deal."""
    account = s.get(Account, account_id)
    if account is None:
        raise UnknownSeatError.coded("account.unknown", account=account_id)
    account.client_seed = check_client_seed(seed)
    return {"client_seed": account.client_seed}


def client_seed(s: Session, account_id: int) -> ClientSeed:
    """The player's client seed (None when they have set none) and the algorithm of new shoes."""
    return {"client_seed": s.connection().execute(_YOUR_SEED, {"account": account_id}).scalar_one_or_none(),
            "algorithm": ALGORITHM}


def take_client_seed(s: Session, shoe_id: int, account_id: int) -> None:
    """With a bet on a shoe that still takes seeds: take the player's seed into it, once."""
    connection = s.connection()
    seed = connection.execute(_YOUR_SEED, {"account": account_id}).scalar_one_or_none()
    if seed is not None and connection.execute(_TAKEN, {"shoe": shoe_id, "account": account_id}).first() is None:
        connection.execute(_TAKE, {"shoe_id": shoe_id, "account_id": account_id, "seed": seed})


def seal(s: Session, shoe: ShoeRow) -> None:
    """At the shoe's first deal: fix its client seeds, and with them its cards and its burn."""
    if not takes_seeds(shoe.algorithm, shoe.client_seeds):
        return
    seeds = sorted(set(s.scalars(select(ShoeSeed.seed).where(ShoeSeed.shoe_id == shoe.id))))
    shoe.client_seeds = json.dumps(seeds)
    shoe.position = Shoe(list(shoe_cards(shoe)), cut_card=shoe.cut_card, burn=True).position


def seeds_of(shoe: ShoeRow) -> list[str]:
    """The shoe's client seeds, once fixed (none for the first algorithm)."""
    return [] if shoe.client_seeds is None else list(json.loads(shoe.client_seeds))


def server_seed(shoe: ShoeRow) -> str:
    """The shoe's server seed in hex: opened with this process's seed key while the shoe is in play (the database
    holds it encrypted, :mod:`baccarat.server.house.seed_keys`), in clear once revealed."""
    return seed_keys.opened(shoe.server_seed, shoe.commitment)


def shoe_cards(shoe: ShoeRow) -> tuple[Card, ...]:
    """A sealed shoe's cards in order, before the burn."""
    return _cards(shoe.algorithm, server_seed(shoe), shoe.client_seeds or "[]", shoe.decks)


@lru_cache(maxsize=64)
def _cards(algorithm: str, server_seed: str, client_seeds: str, decks: int) -> tuple[Card, ...]:
    """Kept for the shoes in play: each round is dealt from its shoe again."""
    key = shoe_key(algorithm, bytes.fromhex(server_seed), json.loads(client_seeds))
    return tuple(fair_cards(key, decks))


def strike_of(shoe: ShoeRow, game: Game, position: int) -> Strike:
    """The struck cards of the coup whose first card is at shoe ``position`` (step 9 of docs/fairness.md, from the
    shoe's stream key: secret until the seed is revealed, like the cards); none for a game without them."""
    if game.multipliers is None:
        return ()
    key = shoe_key(shoe.algorithm, bytes.fromhex(server_seed(shoe)), seeds_of(shoe))
    return draw(key, position, game.multipliers)


def merkle_root(shoe: ShoeRow) -> str | None:
    """The published Merkle root of a shoe of algorithm 3 once sealed (its first deal); None before,
    and for the older algorithms.  It is a function of the stored seeds, so it never changes."""
    return published_root(shoe.algorithm, shoe.server_seed, shoe.commitment, shoe.client_seeds, shoe.decks)


def published_root(algorithm: str, stored_seed: str, commitment: str, client_seeds: str | None,
                   decks: int) -> str | None:
    """:func:`merkle_root` from a shoe's stored columns (the table view reads them, not the row)."""
    if algorithm != ALGORITHM or client_seeds is None:
        return None
    return _tree(seed_keys.opened(stored_seed, commitment), client_seeds, decks).root


def card_proofs(shoe: ShoeRow, start: int, count: int) -> list[CardProof]:
    """The proofs of ``count`` cards dealt from a sealed shoe of algorithm 3, from position ``start``."""
    return _tree(server_seed(shoe), shoe.client_seeds or "[]", shoe.decks).proofs(start, count)


@lru_cache(maxsize=64)
def _tree(server_seed: str, client_seeds: str, decks: int) -> ShoeTree:
    """Kept for the shoes in play, like their cards."""
    return ShoeTree(bytes.fromhex(server_seed), _cards(ALGORITHM, server_seed, client_seeds, decks))


def end_shoe(s: Session, shoe: ShoeRow, now: datetime, why: str) -> None:
    """The shoe is over (``why``: last hand, too few cards, table closed): its seed is revealed.  A
    shoe never dealt from is sealed first, so that its record is complete."""
    if shoe.revealed_at is None:
        seal(s, shoe)
        shoe.server_seed = server_seed(shoe)  # in clear from now on: the verifier needs it
        shoe.revealed_at, shoe.ended = now, why


def your_seeds(s: Session, account_id: int, shoe_ids: list[int]) -> dict[int, str]:
    """Shoe id -> the client seed this player brought to it."""
    rows = s.execute(select(ShoeSeed.shoe_id, ShoeSeed.seed).where(ShoeSeed.account_id == account_id,
                                                                    ShoeSeed.shoe_id.in_(shoe_ids)))
    return {shoe_id: seed for shoe_id, seed in rows}
