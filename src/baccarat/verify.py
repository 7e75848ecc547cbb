"""``baccarat verify``: check a provably fair shoe record, with no code shared with the house.

This module imports nothing from the rest of the package (an import contract
checks it): it re-implements the published algorithm ``hmac-sha256-fisher-yates/1``
from its description in :mod:`baccarat.fair`'s documentation, so a bug on one
side cannot hide the same bug on the other.

A record (one shoe) is a JSON object::

    {"shoe": 1, "algorithm": "hmac-sha256-fisher-yates/1", "decks": 8, "cut_card": 14,
     "commitment": "<sha-256 hex>", "server_seed": "<64 hex digits, revealed at the end>",
     "burned": ["Qd", ...], "rounds": [{"round": 1, "cards": ["7h", "5c", ...]}, ...]}

where each round lists its cards in deal order.  A file may hold one record, a
list of records, or an object with a ``"shoes"`` list (a ``baccarat play
--json`` transcript).  Every card of every round must be the next card of the
recomputed shoe, after the burn.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

ALGORITHM = "hmac-sha256-fisher-yates/1"
_RANKS = "A23456789TJQK"
_SUITS = "cdhs"


class RecordError(ValueError):
    """The file is not a well-formed shoe record."""


@dataclass(frozen=True)
class ShoeVerdict:
    shoe: object
    rounds: int
    cards: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _stream(seed: bytes) -> Iterator[int]:
    block = 0
    while True:
        digest = hmac.new(seed, block.to_bytes(8, "big"), hashlib.sha256).digest()
        block += 1
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i:i + 4], "big")


def shoe_order(seed: bytes, decks: int) -> list[str]:
    """The recomputed card order of the shoe, before the burn."""
    words = _stream(seed)
    order = [rank + suit for _ in range(decks) for suit in _SUITS for rank in _RANKS]
    for i in range(len(order) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - 2**32 % bound
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % bound
        order[i], order[j] = order[j], order[i]
    return order


def _burned(order: list[str]) -> int:
    rank = order[0][0]
    value = _RANKS.index(rank) + 1
    return 1 + (value if value <= 9 else 10)


def _field(record: dict[str, Any], name: str, kind: type) -> Any:
    if name not in record or not isinstance(record[name], kind) or isinstance(record[name], bool):
        raise RecordError(f"shoe record needs {name!r} ({kind.__name__})")
    return record[name]


def verify_shoe(record: dict[str, Any]) -> ShoeVerdict:
    """Check one shoe record; every problem found is named (shoe, round, card)."""
    if not isinstance(record, dict):
        raise RecordError("a shoe record is a JSON object")
    shoe = record.get("shoe", "?")
    algorithm = _field(record, "algorithm", str)
    decks = _field(record, "decks", int)
    commitment = _field(record, "commitment", str)
    rounds = _field(record, "rounds", list)
    if algorithm != ALGORITHM:
        return ShoeVerdict(shoe, 0, 0, (f"shoe {shoe}: unknown algorithm {algorithm!r}",))
    if not 1 <= decks <= 16:
        raise RecordError(f"shoe {shoe}: decks must be 1 to 16")
    seed_hex = record.get("server_seed")
    if not isinstance(seed_hex, str):
        return ShoeVerdict(shoe, 0, 0, (f"shoe {shoe}: the server seed has not been revealed",))
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise RecordError(f"shoe {shoe}: the server seed is not hex") from None
    problems: list[str] = []
    if hashlib.sha256(seed).hexdigest() != commitment.lower():
        problems.append(f"shoe {shoe}: SHA-256 of the revealed seed does not match the commitment")
    order = shoe_order(seed, decks)
    position = _burned(order)
    burned = record.get("burned")
    if burned is not None and burned != order[:position]:
        problems.append(f"shoe {shoe}: the burned cards are not the seed's first {position} cards")
    cards = 0
    for entry in rounds:
        if not isinstance(entry, dict) or not isinstance(entry.get("cards"), list):
            raise RecordError(f"shoe {shoe}: each round needs a 'cards' list")
        for index, card in enumerate(entry["cards"], start=1):
            expected = order[position] if position < len(order) else None
            if card != expected:
                problems.append(f"shoe {shoe}, round {entry.get('round', '?')}, card {index}: "
                                f"the record says {card}, the seed gives {expected}")
            position += 1
            cards += 1
    return ShoeVerdict(shoe, len(rounds), cards, tuple(problems))


def shoe_records(document: Any) -> list[dict[str, Any]]:
    """The shoe records in a document: one record, a list, or an object with ``"shoes"``."""
    if isinstance(document, dict) and "shoes" in document:
        document = document["shoes"]
    if isinstance(document, dict):
        return [document]
    if isinstance(document, list) and document:
        return document
    raise RecordError("no shoe record found: expected a record, a list of records or a 'shoes' list")
