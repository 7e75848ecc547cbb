"""``baccarat verify``: check provably fair shoes and the rounds played on them, with no code shared
with the house.

This package imports nothing from the rest of ``baccarat`` (an import contract checks it): it
re-implements the published algorithms (``hmac-sha256-fisher-yates/3``, its Merkle proofs included
(:mod:`baccarat.verify.merkle`), and ``/2`` and ``/1`` for old records) from their description in
the documentation (docs/fairness.md), and states the rules and
pay tables again in its own words (:mod:`baccarat.verify.rules`), so a bug on one side cannot hide
the same bug on the other.

A shoe record is a JSON object::

    {"shoe": 1, "algorithm": "hmac-sha256-fisher-yates/3", "game": "ez", "decks": 8, "cut_card": 14,
     "commitment": "<sha-256 hex>", "merkle_root": "<sha-256 hex, published at the first deal>",
     "server_seed": "<64 hex digits, revealed at the end>", "client_seeds": ["..."],
     "burned": ["Qd", ...], "burn_proof": [{"position": 0, "salt": "<hex>", "path": ["<hex>", ...]}, ...],
     "ended": "last hand",
     "rounds": [{"round": 1, "cards": ["7h", "5c", ...], "proof": [...]}, ...]}

where each round lists its cards in deal order (Lucky Draw rounds also name the ``seats`` dealt
to, in order, and those that ``drew``; a voided round says ``void``).  A file may hold one record,
a list of records, a ``baccarat play --json`` transcript or a history exported by the table server
(``GET /api/history/export``).  From the seeds the verifier deals every round again, by the
tableau or Lucky Draw's dealer rule, and checks the cards, the burn, the cut card and the last
hand, each hand, the result, every wager's event and payout under the game's pay table and the
rounding rule, the balances and the round numbers; every difference is named.  A shoe of algorithm
3 still in play (no seed yet) is checked at once: each card's proof against the published Merkle
root, at the position the deal gives (the burn, then every card in turn), and each round dealt by
the rules from its proven cards.
"""

from __future__ import annotations

from typing import Any

from baccarat.verify.history import EXPORT_FORMAT, Report, verify_export, verify_transcript
from baccarat.verify.shoe import (
    ALGORITHM,
    ALGORITHM_1,
    ALGORITHM_2,
    ALGORITHMS,
    RecordError,
    ShoeVerdict,
    seeds_combined,
    shoe_order,
    stream_key,
    verify_shoe,
)

__all__ = ["ALGORITHM", "ALGORITHMS", "ALGORITHM_1", "ALGORITHM_2", "EXPORT_FORMAT", "RecordError", "Report",
           "ShoeVerdict", "seeds_combined", "shoe_order", "shoe_records", "stream_key", "verify_document",
           "verify_shoe"]


def shoe_records(document: Any) -> list[dict[str, Any]]:
    """The shoe records in a document: one record, a list, or an object with ``"shoes"``."""
    if isinstance(document, dict) and "shoes" in document:
        document = document["shoes"]
    if isinstance(document, dict):
        return [document]
    if isinstance(document, list) and document:
        return document
    raise RecordError("no shoe record found: expected a record, a list of records or a 'shoes' list")


def verify_document(document: Any) -> Report:
    """Check whatever the file holds: an export, a transcript, or shoe records on their own."""
    if isinstance(document, dict) and document.get("format") == EXPORT_FORMAT:
        return verify_export(document)
    if isinstance(document, dict) and "shoes" in document and "rounds" in document:
        return verify_transcript(document)
    verdicts = [verify_shoe(record) for record in shoe_records(document)]
    return Report("records", verdicts, problems=[p for v in verdicts for p in v.problems])
