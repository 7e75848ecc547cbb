"""Games from a rules file (TOML): wagers declared on a coup's facts, pay tables as fractions, limits.

A rules file defines one game on an existing procedure, ``punto_banco`` or ``lucky_draw``.  A punto
banco game's wagers are declared from the vocabulary of :mod:`baccarat.core.facts`: each wager lists its
events in order, each with a condition (facts and the values they must have; a list means any of
them) and its pay; the first event whose condition holds is the coup's, and the last event has no
condition, so every coup has one.  A Lucky Draw game takes the built-in wagers (Enter, Draw, Block
Bonus) with the DrawWin pay table and limits of the file.  Everything is checked at load, and what
cannot be priced exactly is refused with the reason; a game read is added to the registry of
:mod:`baccarat.core.registry` by :func:`load_rules`.  See ``catalogue/`` for examples::

    [game]
    code = "super-6"
    name = "Super 6"
    procedure = "punto_banco"
    minimum = "1.00"

    [[wagers]]
    code = "banker"
    name = "Banker"
    maximum = "5000.00"
    events = [
      { event = "Banker wins with 6", when = { winner = "banker", banker_total = 6 }, pays = "1/2" },
      { event = "Banker wins", when = { winner = "banker" }, pays = "1" },
      { event = "Tie", when = { winner = "tie" }, pays = "push" },
      { event = "Player wins", pays = "lose" },
    ]
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from baccarat.core.cardfacts import CARD_FACTS, facts_of_coup
from baccarat.core.coup import Coup
from baccarat.core.errors import ConfigurationError, InvalidAmountError
from baccarat.core.facts import FACT_VALUES, FACTS, CoupFacts, coup_facts, level_of
from baccarat.core.games import LANGUAGES, LOSE, PUSH, Felt, Game, TableLimits, Wager
from baccarat.core.money import MAX_AMOUNT, parse_amount
from baccarat.core.registry import DRAWWIN_LUCKY_7, MINI, built_in, lucky_draw, register
from baccarat.core.strikes import Multipliers

_CODE = re.compile(r"^[a-z][a-z0-9_-]{0,15}$")
_WAGER_CODE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
#: The Lucky Draw wagers a file gives maximums for (the Draw always equals the Enter).
_LUCKY_LIMITS = ("enter", "block_bonus")

Condition = tuple[tuple[str, tuple[object, ...]], ...]


class RulesError(ConfigurationError):
    """A rules file that cannot be read or priced; the message says where and what to do."""

    family = "rules.invalid"


def _fail(where: str, message: str) -> RulesError:
    return RulesError(f"{where}: {message}")


def _text(data: Mapping[str, Any], key: str, where: str, *, required: bool = True, default: str = "") -> str:
    value = data.get(key, None)
    if value is None:
        if required:
            raise _fail(where, f"give {key} (a text)")
        return default
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{key} must be a non-empty text, not {value!r}")
    return value.strip()


def _amount(value: object, where: str) -> int:
    """An amount written as ``"5000.00"`` (currency units) or a whole number of minor units."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _fail(where, f"an amount is written like \"5000.00\", not {value!r}")
    try:
        minor = parse_amount(value) if isinstance(value, str) else value
    except InvalidAmountError as error:
        raise _fail(where, str(error)) from error
    if not 0 < minor <= MAX_AMOUNT:
        raise _fail(where, f"the amount must be positive and at most {MAX_AMOUNT // 100:,}.00")
    return minor


def parse_pays(value: object, where: str) -> Fraction:
    """Net odds: ``"11"`` (11 to 1), ``"19/20"``, ``"1/2"``, ``"push"`` (0), ``"lose"`` (-1), or ``"9 for 1"``: the
    player gets 9 for each 1 staked, the stake included (net 8 to 1)."""
    usage = f"pays is a fraction such as \"11\", \"19/20\", \"9 for 1\", \"push\" or \"lose\", not {value!r}"
    if isinstance(value, bool):
        raise _fail(where, usage)
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        raise _fail(where, usage)
    word = value.strip().lower()
    if word == "push":
        return PUSH
    if word in ("lose", "loses"):
        return LOSE
    for_one = re.fullmatch(r"([0-9]{1,6}(?:/[0-9]{1,6})?)\s+for\s+1", word)
    if for_one:
        try:
            gross = Fraction(for_one.group(1))
        except ZeroDivisionError as error:
            raise _fail(where, f"pays {value!r} divides by zero") from error
        if gross <= 1:
            raise _fail(where, f"pays {value!r}: \"N for 1\" pays the stake back within N, so N must be over 1")
        return gross - 1
    if not re.fullmatch(r"-?[0-9]{1,6}(/[0-9]{1,6})?", word):
        raise _fail(where, usage)
    try:
        pays = Fraction(word)
    except ZeroDivisionError as error:
        raise _fail(where, f"pays {value!r} divides by zero") from error
    if pays < 0 and pays != LOSE:
        raise _fail(where, f"pays {value!r} is negative: a loss is \"lose\" (-1); a part loss cannot be priced here")
    return pays


def _allowed(name: str) -> tuple[type, tuple[object, ...]] | None:
    """A fact's type and the values a condition may name, or None for a name that is no fact."""
    if name in FACTS:
        return FACTS[name][1], FACT_VALUES[name]
    if name in CARD_FACTS:
        return CARD_FACTS[name].kind, CARD_FACTS[name].values
    return None


def _condition(when: object, where: str) -> Condition:
    if not isinstance(when, dict) or not when:
        raise _fail(where, "when is a table of facts, e.g. { winner = \"banker\", banker_total = 6 }")
    out = []
    for name, wanted in when.items():
        allowed = _allowed(name)
        if allowed is None:
            raise _fail(where, f"unknown fact {name!r}; the facts are listed in docs/rules-files.md (for example "
                               f"{', '.join(list(FACTS)[:6])}, player_third_rank, count_red_first_four, "
                               "most_of_a_rank)")
        kind, possible = allowed
        values = tuple(wanted) if isinstance(wanted, list) else (wanted,)
        if not values:
            raise _fail(where, f"{name} lists no value")
        for v in values:
            if type(v) is not kind or v not in possible:
                listed = ", ".join(repr(x) for x in possible)
                raise _fail(where, f"{name} cannot be {v!r}; it is one of {listed}")
        out.append((name, values))
    return tuple(out)


def _holds(condition: Condition, facts: CoupFacts) -> bool:
    return all(getattr(facts, name) in values for name, values in condition)


def _rule(events: tuple[tuple[str, Condition], ...]) -> Callable[[CoupFacts], str]:
    def event_of(facts: CoupFacts) -> str:
        for event, condition in events:
            if _holds(condition, facts):
                return event
        raise AssertionError("the last event has no condition")  # pragma: no cover - checked at load

    return event_of


def _card_rule(events: tuple[tuple[str, Condition], ...], names: set[str]) -> Callable[[Coup], str]:
    """The event of a dealt coup, for a wager that reads facts of the cards (:mod:`baccarat.core.cardfacts`)."""
    card_names = sorted(names & set(CARD_FACTS))

    def event_of(coup: Coup) -> str:
        found = {**asdict(coup_facts(coup)), **facts_of_coup(coup, card_names)}
        for event, condition in events:
            if all(found[name] in values for name, values in condition):
                return event
        raise AssertionError("the last event has no condition")  # pragma: no cover - checked at load

    return event_of


def _classify(rule: Callable[[CoupFacts], str]) -> Callable[[Coup], str]:
    return lambda coup: rule(coup_facts(coup))


def _wager(data: object, index: int, game: str) -> tuple[Wager[Coup], int]:
    where = f"{game}: wager {index + 1}"
    if not isinstance(data, dict):
        raise _fail(where, "each [[wagers]] is a table")
    code = _text(data, "code", where)
    if not _WAGER_CODE.fullmatch(code):
        raise _fail(where, f"code {code!r} must be lower-case letters, digits and _ (up to 32), starting with a letter")
    where = f"{game}: wager {code}"
    unknown = sorted(set(data) - {"code", "name", "maximum", "events", "requires", "names", "felt", "fee"})
    if unknown:
        raise _fail(where, f"unknown keys {', '.join(unknown)}; a wager has code, name, maximum, requires, events, "
                           "names, felt and fee")
    name = _text(data, "name", where)
    if "maximum" not in data:
        raise _fail(where, "give it a maximum (e.g. maximum = \"500.00\"): a wager without limits is refused")
    maximum = _amount(data["maximum"], f"{where}: maximum")
    requires = data.get("requires")
    if requires is not None and not isinstance(requires, str):
        raise _fail(where, "requires is the code of another wager")
    raw = data.get("events")
    if not isinstance(raw, list) or len(raw) < 2:
        raise _fail(where, "give events: a list of at least two { event, when, pays }, the last without when")
    events: list[tuple[str, Condition]] = []
    pays: dict[str, Fraction] = {}
    event_names: dict[str, dict[str, str]] = {}
    used: set[str] = set()
    for number, item in enumerate(raw, start=1):
        at = f"{where}: event {number}"
        if not isinstance(item, dict):
            raise _fail(at, "an event is { event = \"...\", when = { ... }, pays = \"...\" }")
        extra = sorted(set(item) - {"event", "when", "pays", "names"})
        if extra:
            raise _fail(at, f"unknown keys {', '.join(extra)}; an event has event, when, pays and names")
        event = _text(item, "event", at)
        if event in pays:
            raise _fail(at, f"event {event!r} is listed twice; give each event once")
        last = number == len(raw)
        if last and "when" in item:
            raise _fail(at, "the last event has no when: it is every other coup, so every coup has an event")
        if not last and "when" not in item:
            raise _fail(at, "only the last event may leave out when")
        condition = () if last else _condition(item["when"], at)
        used.update(name for name, _ in condition)
        if "pays" not in item:
            raise _fail(at, "give pays, e.g. \"11\", \"1/2\", \"push\" or \"lose\"")
        pays[event] = parse_pays(item["pays"], at)
        events.append((event, condition))
        for language, words in _languages(item.get("names"), at).items():
            event_names.setdefault(language, {})[event] = words
    if not any(p > 0 for p in pays.values()):
        raise _fail(where, "no event pays: a wager needs at least one winning event")
    declared = tuple(events)
    shown = _shown(code, name, list(pays), _felt(data.get("felt"), index, where), index,
                   _languages(data.get("names"), where), event_names)
    shown["fee"] = _fee(data.get("fee"), where)
    if used & set(CARD_FACTS):
        return Wager(code, name, _card_rule(declared, used), pays, requires=requires, depends="cards",
                     declared=declared, **shown), maximum
    rule = _rule(declared)
    return Wager(code, name, _classify(rule), pays, requires=requires, depends=level_of(used), rule=rule,
                 declared=declared, **shown), maximum


def _fee(value: object, where: str) -> Fraction:
    """``fee = "1/5"`` (or ``"20%"``): charged at the bet, a fraction of the stake below 1."""
    if value is None:
        return Fraction(0)
    usage = f"fee is a fraction of the stake below 1, such as \"1/5\" or \"20%\", not {value!r}"
    if not isinstance(value, str) or not re.fullmatch(r"\s*[0-9]{1,6}(/[0-9]{1,6}|(\.[0-9]{1,4})?%)\s*", value):
        raise _fail(where, usage)
    text = value.strip()
    try:
        fee = Fraction(text[:-1]) / 100 if text.endswith("%") else Fraction(text)
    except ZeroDivisionError as error:
        raise _fail(where, f"fee {value!r} divides by zero") from error
    if not 0 < fee < 1:
        raise _fail(where, usage)
    return fee


def _rows(raw: object, key: str, where: str) -> list[tuple[int, int]]:
    usage = (f"{key} is a list of {{ {key[:-1] if key == 'values' else 'cards'} = ..., weight = ... }} rows, e.g. "
             + ("values = [{ multiplier = 2, weight = 35 }, { multiplier = 8, weight = 5 }]" if key == "values"
                else "struck = [{ cards = 1, weight = 60 }, { cards = 2, weight = 40 }]"))
    name = "multiplier" if key == "values" else "cards"
    if not isinstance(raw, list) or not raw or not all(isinstance(r, dict) and set(r) == {name, "weight"}
                                                        for r in raw):
        raise _fail(where, usage)
    return [(r[name], r["weight"]) for r in raw]


def _multipliers(data: object, where: str) -> Multipliers:
    """``[multipliers]``: the wagers whose wins struck cards multiply, the weight tables of how many cards are
    struck and of each one's multiplier, and an optional cap on the product."""
    where = f"{where}: [multipliers]"
    if not isinstance(data, dict):
        raise _fail(where, "[multipliers] is a table with wagers, struck, values and cap")
    unknown = sorted(set(data) - {"wagers", "struck", "values", "cap"})
    if unknown:
        raise _fail(where, f"unknown keys {', '.join(unknown)}; [multipliers] has wagers, struck, values and cap")
    wagers = data.get("wagers")
    if not isinstance(wagers, list) or not wagers or not all(isinstance(w, str) for w in wagers):
        raise _fail(where, "wagers is the list of wager codes whose wins are multiplied, e.g. [\"player\"]")
    try:
        return Multipliers(tuple(wagers), tuple(_rows(data.get("struck"), "struck", where)),
                           tuple(_rows(data.get("values"), "values", where)), data.get("cap"))
    except ConfigurationError as error:
        raise _fail(where, str(error)) from error


def _languages(names: object, where: str) -> dict[str, str]:
    """``names = { "zh-CN" = "..." }``: a name in each of the page's languages (:data:`LANGUAGES`)."""
    if names is None:
        return {}
    if not isinstance(names, dict) or not all(isinstance(v, str) and v.strip() for v in names.values()):
        raise _fail(where, "names is a table of texts by language, e.g. names = { \"zh-CN\" = \"老虎\" }")
    unknown = sorted(set(names) - set(LANGUAGES))
    if unknown:
        raise _fail(where, f"names are given in {', '.join(LANGUAGES)}, not {', '.join(unknown)}")
    return {language: text.strip() for language, text in names.items()}


def _shown(code: str, name: str, events: list[str], felt: Felt | None, index: int, names: dict[str, str],
           event_names: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Where a wager sits and its words.  A file's Player, Banker or Tie (the built-in code and name) takes the
    built-in wager's place, names and events' words where the file gives none, as a casino's layout would; any
    other wager without a felt sits after them in the file's order, between the two sides."""
    standard = next((w for w in MINI.wagers if w.code == code and w.name == name and w.requires is None), None)
    if standard is not None:
        names = {**standard.names, **names}
        for language, words in standard.event_names.items():
            inherited = {event: word for event, word in words.items() if event in events}
            event_names[language] = {**inherited, **event_names.get(language, {})}
    if felt is None:
        felt = standard.felt if standard is not None else Felt("centre", 0, 5 + index)
    return {"felt": felt, "names": names, "event_names": event_names}


def _felt(felt: object, index: int, where: str) -> Felt | None:
    """``felt = { side = "banker", row = 0, order = 3 }``, or None when the file gives none."""
    if felt is None:
        return None
    if not isinstance(felt, dict) or set(felt) - {"side", "row", "order"}:
        raise _fail(where, "felt is { side = \"player\" | \"banker\" | \"centre\", row = 0, order = 0 }")
    try:
        return Felt(felt.get("side", "centre"), felt.get("row", 0), felt.get("order", index))
    except ConfigurationError as error:
        raise _fail(where, str(error)) from error


def _lucky_draw(data: Mapping[str, Any], code: str, name: str, minimum: int, digest: str,
                description: str, references: tuple[str, ...], where: str) -> Game:
    if "wagers" in data:
        raise _fail(where, "a Lucky Draw game's wagers are Enter, Draw and Block Bonus; give their limits in "
                           "[limits] (enter, block_bonus) and the DrawWin pay table, not [[wagers]]")
    paytable = data.get("game", {}).get("paytable", 1)
    if paytable not in DRAWWIN_LUCKY_7 or isinstance(paytable, bool):
        raise _fail(where, f"paytable is 1 or 2, not {paytable!r}")
    limits = data.get("limits")
    if not isinstance(limits, dict) or set(limits) != set(_LUCKY_LIMITS):
        raise _fail(where, "give [limits] with enter and block_bonus maximums (a wager without limits is refused)")
    maximums = {key: _amount(limits[key], f"{where}: limits.{key}") for key in _LUCKY_LIMITS}
    base = lucky_draw(paytable)
    return Game(code=code, name=name, kind="lucky_draw", wagers=base.wagers, limits=TableLimits(minimum, maximums),
                paytable=paytable, source=digest, description=description, references=references)


def canonical(text: str) -> tuple[str, str]:
    """A rules file's canonical content (its TOML as JSON, keys sorted: comments, spacing and the order of keys
    do not count) and that content's SHA-256 (hex), the definition's digest.  A game's ``source`` is the
    digest's first 16 digits.  Text that is not TOML raises :class:`RulesError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"the rules are not valid TOML: {error}") from error
    content = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return content, hashlib.sha256(content.encode()).hexdigest()


def parse_rules(text: str, *, origin: str = "rules file") -> Game:
    """The game a rules file's text defines; :class:`RulesError` names what is wrong and where."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{origin} is not valid TOML: {error}") from error
    game = data.get("game")
    if not isinstance(game, dict):
        raise RulesError(f"{origin}: give a [game] table with code, name, procedure and minimum")
    unknown = sorted(set(data) - {"game", "wagers", "limits", "multipliers"})
    if unknown:
        raise RulesError(f"{origin}: unknown tables {', '.join(unknown)}; "
                         "a rules file has [game], [[wagers]], [limits] and [multipliers]")
    code = _text(game, "code", origin)
    if not _CODE.fullmatch(code):
        raise RulesError(f"{origin}: game code {code!r} must be lower-case letters, digits, - and _ (up to 16)")
    where = f"{origin} ({code})"
    if built_in(code):
        raise _fail(where, f"{code!r} is a built-in game; give the game in the rules file another code")
    name = _text(game, "name", where)
    procedure = _text(game, "procedure", where)
    if "minimum" not in game:
        raise _fail(where, "give the table minimum, e.g. minimum = \"1.00\"")
    minimum = _amount(game["minimum"], f"{where}: minimum")
    description = _text(game, "description", where, required=False)
    references = game.get("references", [])
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        raise _fail(where, "references is a list of texts")
    extra = sorted(set(game) - {"code", "name", "procedure", "minimum", "description", "references", "paytable",
                                "max_seats", "names"})
    if extra:
        raise _fail(where, f"unknown keys in [game]: {', '.join(extra)}")
    seats = game.get("max_seats", 7)
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 7:
        raise _fail(where, "max_seats is a whole number from 1 to 7")
    digest = canonical(text)[1][:16]
    if procedure == "lucky_draw":
        if "multipliers" in data:
            raise _fail(where, "struck cards multiply punto banco wagers only; a Lucky Draw game has none")
        return replace(_lucky_draw(data, code, name, minimum, digest, description, tuple(references), where),
                       names=_languages(game.get("names"), where))
    if procedure != "punto_banco":
        raise _fail(where, f"procedure is punto_banco or lucky_draw, not {procedure!r}")
    if "paytable" in game:
        raise _fail(where, "paytable is Lucky Draw's DrawWin pay table; a punto banco game has none")
    if "limits" in data:
        raise _fail(where, "give each wager its maximum in its [[wagers]] table, not in [limits]")
    raw = data.get("wagers")
    if not isinstance(raw, list) or not raw:
        raise _fail(where, "give at least one [[wagers]]")
    wagers, maximums = [], {}
    for index, item in enumerate(raw):
        wager, maximum = _wager(item, index, code)
        wagers.append(wager)
        maximums[wager.code] = maximum
    multipliers = _multipliers(data["multipliers"], where) if "multipliers" in data else None
    try:
        return Game(code=code, name=name, kind="punto_banco", wagers=tuple(wagers),
                    limits=TableLimits(minimum, maximums), max_seats=seats, source=digest,
                    description=description, references=tuple(references), names=_languages(game.get("names"), where),
                    multipliers=multipliers)
    except ConfigurationError as error:
        raise _fail(where, str(error)) from error


def rules_text(path: str | Path) -> str:
    """The text of the rules file at ``path``; :class:`RulesError` when it cannot be read."""
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise RulesError(f"cannot read the rules file {str(file)!r}: {why}") from error


def read_rules(path: str | Path) -> Game:
    """The game defined by the rules file at ``path``."""
    return parse_rules(rules_text(path), origin=Path(path).name)


def load_rules(path: str | Path, *, replace: bool = True) -> Game:
    """Read a rules file and add its game to the registry (a file read again replaces its game)."""
    game = read_rules(path)
    register(game, replace=replace)
    return game
