"""Games and wagers as data, and settlement of one wager from one result.

A wager is a condition on the dealt result (``classify`` names the event that
happened) plus a pay table (event -> net odds: -1 loses, 0 pushes, a positive
fraction wins).  A game is a frozen record of its wagers and default limits.
A new side bet is a new record, not a new ``if``: in :mod:`baccarat.core.registry`, or in a rules file
(:mod:`baccarat.core.rulesfile`) as events declared on the coup's facts (:mod:`baccarat.core.facts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar

from baccarat.core.errors import ConfigurationError, UnknownWagerError
from baccarat.core.facts import LEVELS, CoupFacts, Level
from baccarat.core.money import settle_net
from baccarat.core.strikes import Multipliers

R = TypeVar("R")
GameKind = Literal["punto_banco", "lucky_draw"]

LOSE = Fraction(-1)
PUSH = Fraction(0)


#: The languages of the page (English, Simplified and Traditional Chinese): a game's and a wager's names may be
#: given in each.
LANGUAGES = ("en", "zh-CN", "zh-Hant")
FeltSide = Literal["player", "banker", "centre"]


@dataclass(frozen=True, slots=True)
class Felt:
    """Where a wager's spot sits on the felt: on the Player's side, the Banker's or between them, in which row
    (0 nearest the players) and at which place in its row (left to right)."""

    side: FeltSide = "centre"
    row: int = 0
    order: int = 0

    def __post_init__(self) -> None:
        if self.side not in ("player", "banker", "centre"):
            raise ConfigurationError(f"a spot's side is player, banker or centre, not {self.side!r}")
        for value in (self.row, self.order):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
                raise ConfigurationError(f"a spot's row and order are whole numbers from 0 to 99, not {value!r}")


def _names(names: Mapping[str, str], what: str) -> Mapping[str, str]:
    unknown = sorted(set(names) - set(LANGUAGES))
    if unknown:
        raise ConfigurationError(f"{what}: names are given in {', '.join(LANGUAGES)}, not {', '.join(unknown)}")
    return MappingProxyType(dict(names))


@dataclass(frozen=True)
class Wager(Generic[R]):
    """One wager: its code (as in scripts and the API), name, event classifier and pay table."""

    code: str
    name: str
    classify: Callable[[R], str]
    paytable: Mapping[str, Fraction]  #: every event ``classify`` can return -> net odds
    requires: str | None = None  #: code of the base wager this side wager needs
    placed: Literal["betting", "decision"] = "betting"  #: Draw is placed at the decision
    settles: Literal["coup", "first_deal"] = "coup"  #: Block Bonus settles after the first deal
    #: What pricing it needs to know of the cards (:mod:`baccarat.core.facts`): point values only, the ranks
    #: (and suits) of each hand's first two cards, or any card (``cards``).  A wager that reads ranks or suits is
    #: priced exactly only through ``rule``, its event as a function of the coup's facts, and one that reads the
    #: cards only through ``declared``.
    depends: Level = "values"
    rule: Callable[[CoupFacts], str] | None = None
    #: A rules file's events as declared, in order: (event, ((fact, values it may have), ...)); the last has no
    #: condition.  The analysis of a wager that reads the cards (``depends="cards"``) and the simulator read it.
    declared: tuple[tuple[str, tuple[tuple[str, tuple[object, ...]], ...]], ...] | None = None
    felt: Felt = Felt()  #: where its spot sits on the table
    #: Its name in the page's languages (:data:`LANGUAGES`), where it differs from :attr:`name` ("en": the page's
    #: English, when it is not the name itself).
    names: Mapping[str, str] = field(default_factory=dict)
    #: Its events' words in the page's languages, where they differ from the event: language -> event -> words.
    event_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: A fee charged at the bet, as a fraction of the stake (Lightning-style games charge 20% on the main bets):
    #: the player pays stake and fee; the fee is the house's whatever the coup, and is refunded only with a void.
    fee: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if not isinstance(self.fee, Fraction) or not 0 <= self.fee < 1:
            raise ConfigurationError(f"{self.code}: a fee is a fraction of the stake from 0 up to (not) 1, "
                                     f"not {self.fee!r}")
        if self.depends not in LEVELS:
            raise ConfigurationError(f"{self.code}: depends is one of {', '.join(LEVELS)}, not {self.depends!r}")
        for event, odds in self.paytable.items():
            if odds < 0 and odds != LOSE:
                raise ConfigurationError(f"{self.code}: event {event!r} has odds {odds}; a loss is -1")
        object.__setattr__(self, "paytable", MappingProxyType(dict(self.paytable)))
        object.__setattr__(self, "names", _names(self.names, self.code))
        for language, words in self.event_names.items():
            _names({language: ""}, self.code)
            unknown = sorted(set(words) - set(self.paytable))
            if unknown:
                raise ConfigurationError(f"{self.code}: words are given for events it does not have: "
                                         f"{', '.join(unknown)}")
        object.__setattr__(self, "event_names", MappingProxyType(
            {language: MappingProxyType(dict(words)) for language, words in self.event_names.items()}))

    def name_in(self, language: str) -> str:
        """Its name in ``language`` (its :attr:`name` where none is given)."""
        return self.names.get(language, self.name)

    def event_in(self, event: str, language: str) -> str:
        """An event's words in ``language`` (the event itself where none are given)."""
        return self.event_names.get(language, {}).get(event, event)

    def event(self, result: R) -> str:
        """The pay-table event this result falls in."""
        return self.classify(result)

    def odds(self, result: R) -> Fraction:
        """Net odds paid on this result."""
        return self.paytable[self.classify(result)]


@dataclass(frozen=True)
class TableLimits:
    """Table minimum (every wager must meet it) and the maximum of each wager, in minor units."""

    minimum: int
    maximums: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.minimum, int) or self.minimum <= 0:
            raise ConfigurationError.coded("limits.minimum", minimum=self.minimum)
        for code, maximum in self.maximums.items():
            if not isinstance(maximum, int) or maximum < self.minimum:
                raise ConfigurationError.coded("limits.maximum_below_minimum", wager=code)
        object.__setattr__(self, "maximums", MappingProxyType(dict(self.maximums)))

    def maximum(self, code: str) -> int | None:
        """The maximum for a wager, or None when the table sets none."""
        return self.maximums.get(code)


@dataclass(frozen=True)
class Game:
    """A game: its wagers in layout order, its kind of deal and its default limits."""

    code: str
    name: str
    kind: GameKind
    wagers: tuple[Wager[Any], ...]
    limits: TableLimits
    max_seats: int = 7
    paytable: int | None = None  #: Lucky Draw's DrawWin pay table (1 or 2)
    #: A digest of the rules file the game was read from (None for the built-in games): part of
    #: every cached result's key, since the package's source digest does not cover the file.
    source: str | None = None
    description: str = ""  #: the rules in a sentence or two (rules files; the PAR sheet shows it)
    references: tuple[str, ...] = ()  #: published analyses of its wagers
    names: Mapping[str, str] = field(default_factory=dict)  #: its name in the page's languages, where it differs
    #: Struck cards with random multipliers (:mod:`baccarat.core.strikes`), when the game has them.
    multipliers: Multipliers | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", _names(self.names, self.code))
        codes = [w.code for w in self.wagers]
        if self.multipliers is not None:
            if self.kind != "punto_banco":
                raise ConfigurationError(f"{self.code}: struck cards multiply punto banco wagers only")
            unknown = sorted(set(self.multipliers.wagers) - set(codes))
            if unknown:
                raise ConfigurationError(f"{self.code}: the multipliers name wagers the game does not have: "
                                         f"{', '.join(unknown)}")
        if len(set(codes)) != len(codes):
            raise ConfigurationError(f"{self.code}: two wagers share a code")
        for wager in self.wagers:
            # A wager placed at the decision (Lucky Draw's Draw) always equals its base wager.
            if wager.placed == "betting" and self.limits.maximum(wager.code) is None:
                raise ConfigurationError(
                    f"{self.code}: wager {wager.code!r} has no maximum; give it one in the game's limits")
            if wager.requires is not None and wager.requires not in codes:
                raise ConfigurationError(f"{self.code}: wager {wager.code!r} requires {wager.requires!r}, "
                                         "which the game does not have")
        unknown = sorted(set(self.limits.maximums) - set(codes))
        if unknown:
            raise ConfigurationError(f"{self.code}: limits name wagers the game does not have: {', '.join(unknown)}")

    def wager(self, code: str) -> Wager[Any]:
        """The wager with this code; raises :class:`UnknownWagerError` naming the valid ones."""
        for wager in self.wagers:
            if wager.code == code:
                return wager
        raise UnknownWagerError.coded("wager.unknown", wager=code, game=self.code, names={"game": self.name},
                                      wagers=[w.code for w in self.wagers if w.placed == "betting"])

    @property
    def betting_codes(self) -> tuple[str, ...]:
        """Codes of the wagers placed during the betting window."""
        return tuple(w.code for w in self.wagers if w.placed == "betting")

    def multiplies(self, code: str) -> bool:
        """Whether struck cards multiply the wins of the wager ``code``."""
        return self.multipliers is not None and code in self.multipliers.wagers


@dataclass(frozen=True, slots=True)
class Settlement:
    """How one wager was settled: the event, the odds and the net result in minor units."""

    wager: str
    stake: int
    event: str
    odds: Fraction
    net: int

    @property
    def returned(self) -> int:
        """What goes back to the player: the stake plus the net (0 on a loss)."""
        return self.stake + self.net


def settle(wager: Wager[R], result: R, stake: int, *, factor: int = 1) -> Settlement:
    """Settle ``stake`` on ``wager`` from the dealt ``result`` (rounding per :mod:`baccarat.core.money`); a win's
    odds are multiplied by ``factor`` (the struck cards' product, :func:`baccarat.core.strikes.coup_factor`, for a
    multiplied wager)."""
    event = wager.event(result)
    odds = paid_odds(wager, event, factor)
    return Settlement(wager.code, stake, event, odds, settle_net(stake, odds))


def paid_odds(wager: Wager[Any], event: str, factor: int = 1) -> Fraction:
    """The net odds ``event`` pays on ``wager``: a win's multiplied by ``factor``, a push or a loss as they are."""
    odds = wager.paytable[event]
    return odds * factor if odds > 0 else odds


def fee_of(wager: Wager[Any], stake: int) -> int:
    """The fee charged with ``stake`` on ``wager``, in minor units: its fraction of the stake, rounded up to a
    whole minor unit (as the Banker's commission is, the fraction of a cent stays with the house)."""
    return -((-stake * wager.fee.numerator) // wager.fee.denominator)
