"""The verifier's own reading of a game from a rules file, from the definition an export carries.

A history export names, in each shoe record of such a game, the SHA-256 of the definition's canonical content
(``definition``) and carries the definition's text once (``definitions``, by digest).  The verifier checks the
text against the digest, then reads the rules itself, from the file format as ``docs/rules-files.md`` states
it, with no code of the house's (an import contract keeps it that way): a punto banco wager's events are tried
in order, the first whose condition holds is the coup's, and it pays its net odds; a Lucky Draw game is the
built-in Lucky Draw with the file's DrawWin pay table.

The canonical content is the file's TOML as JSON: keys sorted, no spaces, UTF-8 as it is
(``json.dumps(tomllib.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)``).

>>> facts({"player": ["7h", "7h", "5s"], "banker": ["3c", "Kc", "7d"]})["player_perfect_pair"]
True
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from baccarat.verify.rules import DEFINED, FEES, LOSE, PUSH, RANKS, SUITS, WAGERS, Dealt, total
from baccarat.verify.strikes import MULTIPLIED, feature

#: What a condition may name of the hands (values, and each hand's first two cards), computed by :func:`facts`.
HAND_FACTS = ("winner", "player_total", "banker_total", "margin", "player_natural", "banker_natural", "natural",
              "player_cards", "banker_cards", "cards", "winning_total", "totals_sum", "player_pair", "banker_pair",
              "pairs", "twin_pairs", "player_suited", "banker_suited", "player_perfect_pair", "banker_perfect_pair",
              "perfect_pairs")
_SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
_ORDINALS = ("first", "second", "third")
_SCOPES = {"": "all", "_first_four": "first_four"}


def _card_fact_names() -> tuple[str, ...]:
    names = [f"{hand}_{nth}_{what}" for hand in ("player", "banker") for nth in _ORDINALS
             for what in ("rank", "suit", "colour", "face")]
    for suffix in _SCOPES:
        names += [f"{what}{suffix}" for what in ("count_red", "count_black", "count_face", "one_colour")]
        names += [f"count_rank_{r.lower()}{suffix}" for r in RANKS]
        names += [f"count_suit_{w}{suffix}" for w in _SUIT_WORDS.values()]
        names += [f"count_card_{r.lower()}{s}{suffix}" for r in RANKS for s in SUITS]
        names += [f"{what}{suffix}" for what in ("most_of_a_rank", "rank_pairs", "rank_trips", "rank_quads",
                                                 "full_house", "most_of_a_suit", "most_of_a_card")]
    return (*names, "player_one_colour", "banker_one_colour")


#: Facts of the cards themselves (docs/rules-files.md, "Facts of the cards").
CARD_FACTS = _card_fact_names()
FACT_NAMES = HAND_FACTS + CARD_FACTS


class DefinitionError(ValueError):
    """A definition the verifier cannot read: the message says what and where."""


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DefinitionError(f"the definition is not TOML: {error}") from error


def _digest_of(data: Mapping[str, Any]) -> str:
    content = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(content.encode()).hexdigest()


def digest(text: str) -> str:
    """The SHA-256 (hex) of a rules file's canonical content; :class:`DefinitionError` if it is not TOML."""
    return _digest_of(_toml(text))


def facts(hands: Mapping[str, list[str]]) -> dict[str, object]:
    """Every fact a condition may name, of a punto banco coup's two hands (cards as ``"Td"``)."""
    player, banker = hands["player"], hands["banker"]
    p, b = total(player), total(banker)
    winner = "player" if p > b else "banker" if b > p else "tie"
    player_natural, banker_natural = total(player[:2]) >= 8, total(banker[:2]) >= 8
    player_pair, banker_pair = player[0][0] == player[1][0], banker[0][0] == banker[1][0]
    player_suited, banker_suited = player[0][1] == player[1][1], banker[0][1] == banker[1][1]
    player_perfect, banker_perfect = player_pair and player_suited, banker_pair and banker_suited
    found: dict[str, object] = {
        "winner": winner, "player_total": p, "banker_total": b, "margin": abs(p - b),
        "player_natural": player_natural, "banker_natural": banker_natural,
        "natural": player_natural or banker_natural, "player_cards": len(player), "banker_cards": len(banker),
        "cards": len(player) + len(banker), "winning_total": b if winner == "banker" else p,
        "player_pair": player_pair, "banker_pair": banker_pair, "pairs": int(player_pair) + int(banker_pair),
        "twin_pairs": player_pair and banker_pair and player[0][0] == banker[0][0],
        "player_suited": player_suited, "banker_suited": banker_suited,
        "player_perfect_pair": player_perfect, "banker_perfect_pair": banker_perfect,
        "perfect_pairs": int(player_perfect) + int(banker_perfect),
    }
    found["totals_sum"] = p + b
    found.update(card_facts(player, banker))
    assert set(found) == set(FACT_NAMES)
    return found


def _red(card: str) -> bool:
    return card[1] in "dh"


def _one_colour(cards: list[str]) -> bool:
    return len({_red(c) for c in cards}) == 1


def card_facts(player: list[str], banker: list[str]) -> dict[str, object]:
    """The facts of the cards themselves, of a coup's two hands (cards as ``"Td"``, each hand in the order dealt)."""
    found: dict[str, object] = {}
    for hand, cards in (("player", player), ("banker", banker)):
        for nth, ordinal in enumerate(_ORDINALS):
            card = cards[nth] if nth < len(cards) else None
            found[f"{hand}_{ordinal}_rank"] = card[0] if card else "none"
            found[f"{hand}_{ordinal}_suit"] = _SUIT_WORDS[card[1]] if card else "none"
            found[f"{hand}_{ordinal}_colour"] = ("red" if _red(card) else "black") if card else "none"
            found[f"{hand}_{ordinal}_face"] = card is not None and card[0] in "JQK"
    for suffix, scope in _SCOPES.items():
        cards = player + banker if scope == "all" else player[:2] + banker[:2]
        found[f"count_red{suffix}"] = sum(_red(c) for c in cards)
        found[f"count_black{suffix}"] = sum(not _red(c) for c in cards)
        found[f"count_face{suffix}"] = sum(c[0] in "JQK" for c in cards)
        found[f"one_colour{suffix}"] = _one_colour(cards)
        for r in RANKS:
            found[f"count_rank_{r.lower()}{suffix}"] = sum(c[0] == r for c in cards)
        for letter, word in _SUIT_WORDS.items():
            found[f"count_suit_{word}{suffix}"] = sum(c[1] == letter for c in cards)
        for r in RANKS:
            for letter in SUITS:
                found[f"count_card_{r.lower()}{letter}{suffix}"] = cards.count(r + letter)
        of_rank = sorted((sum(c[0] == r for c in cards) for r in RANKS), reverse=True)
        found[f"most_of_a_rank{suffix}"] = of_rank[0]
        found[f"rank_pairs{suffix}"] = of_rank.count(2)
        found[f"rank_trips{suffix}"] = of_rank.count(3)
        found[f"rank_quads{suffix}"] = sum(n >= 4 for n in of_rank)
        found[f"full_house{suffix}"] = of_rank[0] >= 3 and of_rank[1] >= 2
        found[f"most_of_a_suit{suffix}"] = max(sum(c[1] == letter for c in cards) for letter in SUITS)
        found[f"most_of_a_card{suffix}"] = max(cards.count(c) for c in cards)
    found["player_one_colour"], found["banker_one_colour"] = _one_colour(player), _one_colour(banker)
    return found


def _pays(value: object, where: str) -> Fraction:
    """Net odds as a rules file writes them: ``"11"``, ``"19/20"``, ``11``, ``"push"`` or ``"lose"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "push":
            return PUSH
        if word in ("lose", "loses"):
            return LOSE
        gross, _, one = word.partition(" for ")
        try:
            if one.strip() == "1":  # "9 for 1": 9 back for each 1 staked, the stake among them
                return Fraction(gross.strip()) - 1
            return Fraction(word)
        except (ValueError, ZeroDivisionError):
            pass
    raise DefinitionError(f"{where}: pays {value!r} is not net odds")


def _fee(value: object, where: str) -> Fraction:
    """A fee as a rules file writes it: ``"1/5"`` or ``"20%"``, a fraction of the stake below 1."""
    try:
        if isinstance(value, str):
            text = value.strip()
            found = Fraction(text[:-1]) / 100 if text.endswith("%") else Fraction(text)
            if 0 <= found < 1:
                return found
    except (ValueError, ZeroDivisionError):
        pass
    raise DefinitionError(f"{where}: fee {value!r} is not a fraction of the stake below 1")


def _holds(when: Mapping[str, Any], found: Mapping[str, object]) -> bool:
    """Each fact named has one of the values given (of the same type: ``true`` is not ``1``)."""
    for name, wanted in when.items():
        values = wanted if isinstance(wanted, list) else [wanted]
        if not any(type(v) is type(found[name]) and v == found[name] for v in values):
            return False
    return True


def _wager(item: Any, game: str) -> tuple[str, tuple[Callable[[Dealt, str], str], dict[str, Fraction]]]:
    code = item.get("code") if isinstance(item, dict) else None
    where = f"{game}: wager {code!r}"
    events = item.get("events") if isinstance(item, dict) else None
    if not isinstance(code, str) or not isinstance(events, list) or not events:
        raise DefinitionError(f"{game}: a wager without a code or events")
    rules: list[tuple[str, Mapping[str, Any]]] = []
    pays: dict[str, Fraction] = {}
    for event in events:
        name, when = event.get("event"), event.get("when", {})
        if not isinstance(name, str) or not isinstance(when, dict) or set(when) - set(FACT_NAMES):
            raise DefinitionError(f"{where}: event {name!r} names what the verifier does not know: "
                                  f"{sorted(set(when) - set(FACT_NAMES)) if isinstance(when, dict) else when!r}")
        rules.append((name, when))
        pays.setdefault(name, _pays(event.get("pays"), f"{where}, event {name!r}"))
    if rules[-1][1]:
        raise DefinitionError(f"{where}: the last event has a condition, so a coup may have none")

    def classify(dealt: Dealt, seat: str = "") -> str:
        found = facts(dealt.hands)
        return next(name for name, when in rules if _holds(when, found))

    return code, (classify, pays)


def read(text: str) -> tuple[str, str]:
    """Read a definition and make its game known to the verifier: (the game's code, its key in
    :data:`~baccarat.verify.rules.WAGERS`, also given for its digest in :data:`~baccarat.verify.rules.DEFINED`).
    A punto banco game is added under ``code@digest``; a Lucky Draw game is the built-in Lucky Draw of its pay
    table."""
    data = _toml(text)
    named = _digest_of(data)
    code, key = _read(data, named)
    DEFINED[named] = key
    return code, key


def _read(data: Mapping[str, Any], named: str) -> tuple[str, str]:
    game = data.get("game", {})
    code, procedure = game.get("code"), game.get("procedure")
    if not isinstance(code, str):
        raise DefinitionError("the definition has no [game] code")
    if procedure == "lucky_draw":
        key = f"lucky-draw/{game.get('paytable', 1)}"
        if key not in WAGERS:
            raise DefinitionError(f"{code}: Lucky Draw pay table {game.get('paytable')!r} is not one the verifier "
                                  "knows")
        return code, key
    if procedure != "punto_banco":
        raise DefinitionError(f"{code}: procedure {procedure!r} is punto_banco or lucky_draw")
    key = f"{code}@{named[:16]}"
    WAGERS[key] = dict(_wager(item, code) for item in data.get("wagers", []))
    FEES[key] = {item["code"]: _fee(item["fee"], f"{code}: wager {item['code']!r}")
                 for item in data.get("wagers", []) if isinstance(item, dict) and "fee" in item}
    if "multipliers" in data:
        try:
            MULTIPLIED[key] = feature(data["multipliers"], code)
        except ValueError as error:
            raise DefinitionError(str(error)) from error
    return code, key
