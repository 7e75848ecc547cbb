"""The verifier's own reading of struck cards (docs/fairness.md, step 9; docs/rules-files.md, "Struck cards and
fees"): a game's ``[multipliers]`` as its definition writes it, each coup's strike drawn again from the shoe's
stream key, and what it multiplies a winning pay by.  No code of the house's."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from baccarat.verify.stream import below
from baccarat.verify.stream import words as stream

_RANKS = "A23456789TJQK"
_SUITS = "cdhs"


@dataclass(frozen=True)
class Feature:
    """A game's struck cards as its definition declares them."""

    wagers: tuple[str, ...]
    struck: tuple[tuple[int, int], ...]  #: (cards, weight), smallest count first
    values: tuple[tuple[int, int], ...]  #: (multiplier, weight), smallest first
    cap: int | None


#: The games read from definitions that strike cards: their key in :data:`baccarat.verify.rules.WAGERS` -> feature.
MULTIPLIED: dict[str, Feature] = {}


def feature(data: Mapping[str, Any], where: str) -> Feature:
    """``[multipliers]`` of a definition; ``ValueError`` naming what is wrong."""
    def rows(key: str, name: str) -> tuple[tuple[int, int], ...]:
        raw = data.get(key)
        if not isinstance(raw, list) or not raw or not all(
                isinstance(r, dict) and isinstance(r.get(name), int) and isinstance(r.get("weight"), int)
                and r["weight"] > 0 for r in raw):
            raise ValueError(f"{where}: [multipliers] {key} is a list of {{{name}, weight}}")
        return tuple(sorted((r[name], r["weight"]) for r in raw))

    wagers = data.get("wagers")
    cap = data.get("cap")
    if not isinstance(wagers, list) or not all(isinstance(w, str) for w in wagers):
        raise ValueError(f"{where}: [multipliers] wagers is a list of wager codes")
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 2):
        raise ValueError(f"{where}: [multipliers] cap is a whole number of at least 2")
    return Feature(tuple(wagers), rows("struck", "cards"), rows("values", "multiplier"), cap)


def _located(words: Iterator[int], table: tuple[tuple[int, int], ...]) -> int:
    index = below(words, sum(weight for _, weight in table))
    for value, weight in table:
        if index < weight:
            return value
        index -= weight
    raise AssertionError("an index below the total falls in a row")  # pragma: no cover


def strike(stream_key: bytes, position: int, game: Feature) -> list[dict[str, object]]:
    """The struck cards of the coup whose first card is at ``position``: ``[{"card", "multiplier"}, ...]``."""
    words = stream(hmac.new(stream_key, b"strike" + position.to_bytes(2, "big"), hashlib.sha256).digest())
    deck = [rank + suit for suit in _SUITS for rank in _RANKS]
    out: list[dict[str, object]] = []
    for _ in range(_located(words, game.struck)):
        card = deck.pop(below(words, len(deck)))
        out.append({"card": card, "multiplier": _located(words, game.values)})
    return out


def factor(struck: list[dict[str, object]], hands: Mapping[str, list[str]], winner: str, cap: int | None) -> int:
    """What the strike multiplies a winning pay by: the product over the winning hand's cards (both on a tie)."""
    of = {str(s["card"]): int(str(s["multiplier"])) for s in struck}
    cards = hands["player"] + hands["banker"] if winner == "tie" else hands[winner]
    product = 1
    for card in cards:
        product *= of.get(card, 1)
    return product if cap is None else min(product, cap)
