"""One shoe recomputed from its seeds: the shuffle, the burn, every round's cards and hands, the
cut card and the last hand, each checked against the shoe's record."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

from baccarat.verify.merkle import proves, salt_of, shoe_root
from baccarat.verify.rules import Dealt, burn_count, deal_lucky_draw, deal_punto_banco, game_key, is_card
from baccarat.verify.stream import below, words
from baccarat.verify.strikes import MULTIPLIED, strike

ALGORITHM = "hmac-sha256-fisher-yates/3"
ALGORITHM_2 = "hmac-sha256-fisher-yates/2"
ALGORITHM_1 = "hmac-sha256-fisher-yates/1"
ALGORITHMS = (ALGORITHM_1, ALGORITHM_2, ALGORITHM)
#: The algorithms whose shoes take client seeds (3 also publishes a Merkle root at its first deal).
SEEDED = (ALGORITHM_2, ALGORITHM)
_RANKS = "A23456789TJQK"
_SUITS = "cdhs"
#: How a shoe may have ended, as records say it; only "last hand" and "too few cards" can be checked.
ENDINGS = ("last hand", "too few cards", "table closed", "in play")
#: The most cards a round can take: a punto banco coup 6, Lucky Draw three per seat (seven) and three.
MOST_CARDS = {"punto_banco": 6, "lucky_draw": 3 * 7 + 3}


class RecordError(ValueError):
    """The file is not a well-formed record: it cannot be checked at all (exit 2, not a mismatch)."""


def describe(value: object) -> str:
    """A value as a mismatch line shows it."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "[" + " ".join(value) + "]"
    return "nothing" if value is None else str(value)


def said(where: str, what: str, record: object, derived: object, source: str = "the seed gives") -> str:
    """One named mismatch: where, which field, what the record says and what the seed (or the chain) gives."""
    return f"{where}, {what}: the record says {describe(record)}, {source} {describe(derived)}"


def shoe_order(key: bytes, decks: int) -> list[str]:
    """The recomputed card order of the shoe, before the burn, for the stream key ``key``."""
    stream = words(key)
    order = [rank + suit for _ in range(decks) for suit in _SUITS for rank in _RANKS]
    for i in range(len(order) - 1, 0, -1):
        j = below(stream, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def seeds_combined(client_seeds: list[str]) -> str:
    """SHA-256 (hex) of the distinct client seeds, sorted and joined by newlines."""
    return hashlib.sha256("\n".join(sorted(set(client_seeds))).encode("ascii")).hexdigest()


def stream_key(algorithm: str, seed: bytes, client_seeds: list[str]) -> bytes:
    """Versions 2 and 3: HMAC-SHA256 keyed by the server seed over the seeds' combination; version 1: the seed."""
    if algorithm == ALGORITHM_1:
        return seed
    return hmac.new(seed, seeds_combined(client_seeds).encode("ascii"), hashlib.sha256).digest()


def _field(record: dict[str, Any], name: str, kind: type, label: str) -> Any:
    value = record.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RecordError(f"{label}: the record needs {name!r} ({kind.__name__})")
    return value


def _client_seeds(record: dict[str, Any], label: str) -> list[str]:
    seeds = record.get("client_seeds", [])
    ok = isinstance(seeds, list) and all(isinstance(s, str) and s and s.isascii() and s.isprintable()
                                         and " " not in s and len(s) <= 64 for s in seeds)
    if not ok:
        raise RecordError(f"{label}: 'client_seeds' is a list of seeds of 1 to 64 printable characters")
    return list(seeds)


@dataclass
class DealtRound:
    """A round of the shoe as the seed deals it, and the record's entry for it."""

    number: int
    dealt: Dealt
    entry: dict[str, Any]
    void: bool = False
    #: what its hands come from, as mismatch lines say: the seed, or (a shoe in play) the proven cards
    source: str = "the seed gives"
    #: a game with struck cards: the coup's strike as the seed draws it (None while the seed is not revealed)
    strike: list[dict[str, object]] | None = None


@dataclass
class ShoeVerdict:
    """What checking one shoe found: its rounds as the seed deals them, and every problem."""

    shoe: object  #: the shoe's number, or its name at a table ("table ez-1 shoe 3")
    rounds: int
    cards: int
    problems: tuple[str, ...]
    dealt: dict[int, DealtRound] = field(default_factory=dict, repr=False)
    revealed: bool = True
    proven: bool = False  #: in play (algorithm 3): its rounds proven against its Merkle root, the seed to come

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def name(self) -> str:
        """How messages name the shoe: ``shoe 3``, or ``table ez-1 shoe 3``."""
        return self.shoe if isinstance(self.shoe, str) and self.shoe.startswith("table ") else f"shoe {self.shoe}"


def _round_number(entry: object, label: str) -> int:
    if not isinstance(entry, dict) or not isinstance(entry.get("cards"), list):
        raise RecordError(f"{label}: each round needs a 'cards' list")
    number = entry.get("round")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise RecordError(f"{label}: each round needs its 'round' number")
    return number


def _seats(entry: dict[str, Any], where: str) -> tuple[list[int], list[int]]:
    seats, drew = entry.get("seats"), entry.get("drew", [])
    if not (isinstance(seats, list) and seats and isinstance(drew, list)
            and all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= 7 for s in seats + drew)
            and seats == sorted(set(seats)) and set(drew) <= set(seats)):
        raise RecordError(f"{where}: a Lucky Draw round names its 'seats' (in order) and those that 'drew'")
    return seats, drew


def verify_shoe(record: dict[str, Any], *, label: object = None, game: object = None,
                paytable: object = None, your_seed: object = None) -> ShoeVerdict:
    """Check one shoe record; every problem found is named (shoe, round, field).

    ``game`` and ``paytable`` come from the document when the record does not state them (old
    transcripts); without a game only the cards are checked, not how they make up the hands.
    ``your_seed``, the client seed the player gave, must be among the seeds the shoe was shuffled with.
    """
    if not isinstance(record, dict):
        raise RecordError("a shoe record is a JSON object")
    shoe = label if label is not None else record.get("shoe", "?")
    name = str(label) if label is not None else f"shoe {shoe}"
    algorithm = _field(record, "algorithm", str, name)
    decks = _field(record, "decks", int, name)
    commitment = _field(record, "commitment", str, name)
    entries = _field(record, "rounds", list, name)
    if algorithm not in ALGORITHMS:
        return ShoeVerdict(shoe, 0, 0, (f"{name}: unknown algorithm {algorithm!r}",))
    if not 1 <= decks <= 16:
        raise RecordError(f"{name}: decks must be 1 to 16")
    cut_card = record.get("cut_card", 14)
    if not isinstance(cut_card, int) or isinstance(cut_card, bool) or not 0 <= cut_card <= 26 * decks:
        raise RecordError(f"{name}: 'cut_card' is 0 to half the shoe's cards")
    seeds = _client_seeds(record, name) if algorithm in SEEDED else []
    numbers = [_round_number(entry, name) for entry in entries]
    kind = None
    key: str | None = None
    game = record.get("game", game)
    paytable = record.get("paytable", paytable)
    if game is not None:
        key = game_key(game, paytable, record.get("definition"))
        if key is None:
            known = "" if record.get("definition") is None else (
                f", from a rules file whose definition {str(record['definition'])[:16]} is not in the file")
            raise RecordError(f"{name}: unknown game {game!r} (pay table {paytable!r}){known}")
        kind = "lucky_draw" if key.startswith("lucky-draw") else "punto_banco"
    game_feature = MULTIPLIED.get(key) if key is not None else None
    problems: list[str] = []
    root = record.get("merkle_root")
    if algorithm == ALGORITHM and not _is_root(root):
        problems.append(said(name, "Merkle root", root, "a root of 64 hex digits, published at the first deal",
                             "algorithm 3 needs"))
        root = None
    seed_hex = record.get("server_seed")
    if not isinstance(seed_hex, str):
        if algorithm == ALGORITHM and root is not None:  # in play: every round proven now, against the root
            if isinstance(your_seed, str) and your_seed not in seeds:  # the seeds are public from the first deal
                problems.append(said(name, "client seeds", seeds, f"your client seed {your_seed} is not among them",
                                     "and"))
            return _verify_proven(record, name, shoe, root, decks=decks, cut_card=cut_card, kind=kind,
                                  entries=entries, numbers=numbers, problems=problems)
        return ShoeVerdict(shoe, 0, 0, (*problems, f"{name}: the server seed has not been revealed"), revealed=False)
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise RecordError(f"{name}: the server seed is not hex") from None
    if hashlib.sha256(seed).hexdigest() != commitment.lower():
        problems.append(said(name, "commitment", commitment, hashlib.sha256(seed).hexdigest(),
                             "SHA-256 of the revealed seed is"))
    if isinstance(your_seed, str) and algorithm in SEEDED and your_seed not in seeds:
        problems.append(said(name, "client seeds", seeds, f"your client seed {your_seed} is not among them", "and"))
    order = shoe_order(stream_key(algorithm, seed, seeds), decks)
    position = burn_count(order[0])
    burned = record.get("burned")
    burn_differs = burned is not None and burned != order[:position]
    if burn_differs:
        problems.append(said(name, "burned cards", burned, order[:position]))
    proofs = None
    if isinstance(root, str):  # algorithm 3: the root published at the first deal is the seeds' shuffle's
        proofs = _Proofs(name, root, len(order), seed, order)
        derived_root = shoe_root(seed, order)
        if derived_root != root.lower():
            problems.append(said(name, "Merkle root", root, derived_root, "the revealed seeds' shuffle gives"))
        if isinstance(burned, list):  # (a record that leaves the burn out is not checked on it)
            proofs.check(name, "burned card", burned, record.get("burn_proof"), 0)
    rounds_differ = 0
    course = _Course(cut_card, len(order), problems)
    dealt: dict[int, DealtRound] = {}
    cards = 0
    for entry, number in zip(entries, numbers, strict=True):
        where = f"{name}, round {number}"
        course.begin(where, number)
        void = "void" in entry
        left = order[position:]
        recorded = entry["cards"]
        seats: list[int] = []
        drew: list[int] = []
        if kind == "lucky_draw":
            seats, drew = _seats(entry, where)
        need = {"punto_banco": 6, "lucky_draw": 3 * len(seats) + 3}.get(kind or "", 0)
        if len(left) < need:
            problems.append(f"{where}: dealt from a shoe with {len(left)} cards left, but a coup is never split "
                            f"(it may need {need})")
            round_ = Dealt(left[:len(recorded)], {})
        elif kind == "punto_banco":
            round_ = deal_punto_banco(left)
        elif kind == "lucky_draw":
            round_ = deal_lucky_draw(left, seats, [] if void else drew, complete=not void)
        else:  # no game named (an old record on its own): the cards only
            round_ = Dealt(left[:len(recorded)], {})
        if not all(is_card(c) for c in recorded):
            raise RecordError(f"{where}: cards are written like '9h', 'Td' or 'As'")
        wrong = [i for i, (card, expected) in enumerate(zip(recorded, round_.cards, strict=False)) if card != expected]
        rounds_differ += bool(wrong) or len(recorded) != len(round_.cards)
        if len(recorded) == len(round_.cards) and len(wrong) <= 2:  # a card or two changed: name each
            problems.extend(said(where, f"card {i + 1}", recorded[i], round_.cards[i]) for i in wrong)
        elif wrong or len(recorded) != len(round_.cards):
            problems.append(said(where, "cards", recorded, round_.cards))
        if proofs is not None:
            proofs.check(where, "card", recorded, entry.get("proof"), position)
        struck = None
        if game_feature is not None and kind == "punto_banco":
            struck = strike(stream_key(algorithm, seed, seeds), position, game_feature)
        position += len(round_.cards)
        cards += len(round_.cards)
        dealt[number] = DealtRound(number, round_, entry, void, strike=struck)
        course.dealt(position)
    if burn_differs and rounds_differ == len(entries) and algorithm in SEEDED:
        # nothing of the shoe matches: the seeds were changed, not a card (said first, before the cards)
        problems.insert(1 if problems[0].startswith(f"{name}, commitment") else 0,
                        said(name, "client seeds", seeds, "another shoe than the one recorded",
                             "with the revealed server seed they deal"))
    _check_end(record, name, problems, course, kind=kind, left=len(order) - position)
    if proofs is not None:
        problems.extend(proofs.summary())
    return ShoeVerdict(shoe, len(entries), cards, tuple(problems), dealt)


@dataclass
class _Course:
    """A shoe's rounds in the order dealt, against the cut card: each numbered after the one before, and none
    dealt after the shoe's last hand (once the cut card has come out, one more coup is played)."""

    cut_card: int
    size: int  #: the shoe's cards
    problems: list[str]
    previous: int = 0
    last_coup: bool = False  #: the cut card is out: the next coup is the last
    finished: bool = False  #: the last coup has been dealt

    def begin(self, where: str, number: int) -> None:
        """Round ``number`` comes next."""
        if number <= self.previous:
            self.problems.append(said(where, "round number", number, f"a number after {self.previous}",
                                      "the order of the rounds needs"))
        self.previous = number
        if self.finished:
            self.problems.append(f"{where}: dealt after the shoe's last hand (the cut card came out "
                                 f"{self.cut_card} cards from the end)")

    def dealt(self, position: int) -> None:
        """The round just begun has been dealt up to ``position`` (the next card's)."""
        if self.last_coup:
            self.finished = True
        elif position > self.size - self.cut_card:
            self.last_coup = True


def _check_end(record: dict[str, Any], name: str, problems: list[str], course: _Course, *, kind: str | None,
               left: int) -> None:
    """How the record says the shoe ended, against the cut card and the cards ``left``."""
    ended = record.get("ended")
    if ended is not None and ended not in ENDINGS:
        raise RecordError(f"{name}: 'ended' is one of {', '.join(ENDINGS)}")
    if ended == "last hand" and not course.finished:
        problems.append(said(name, "end", "the shoe ended at its last hand",
                             "one more hand to come: the cut card is out" if course.last_coup else
                             f"the cut card ({course.cut_card} from the end) still in the shoe"))
    if ended == "too few cards" and kind is not None and left >= MOST_CARDS[kind]:
        problems.append(said(name, "end", "too few cards for another round", f"{left} cards left"))


def _is_root(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdefABCDEF" for c in value)


class _Proofs:
    """Algorithm 3: each card's proof (its position, salt and Merkle path) against the shoe's root.

    Positions must follow the deal: the burn from 0, then every card in turn, none skipped or used
    twice.  With the seed revealed, each card is also the seed's (named by the card checks) and each
    salt the seed's; a card already named as not the seed's is not named again for its proof."""

    def __init__(self, name: str, root: str, size: int, seed: bytes | None = None,
                 order: list[str] | None = None):
        self.name, self.root, self.size, self.seed, self.order = name, root, size, seed, order
        self.problems: list[str] = []
        self.checked = self.failed = 0

    def check(self, where: str, what: str, cards: list[Any], proofs: object, start: int) -> None:
        """Check the proofs of ``cards``, dealt one after another from position ``start``."""
        if not isinstance(proofs, list) or len(proofs) != len(cards):
            count = f"{len(proofs)} proofs" if isinstance(proofs, list) else None
            self.problems.append(said(where, "proofs", count, f"one for each of its {len(cards)} cards",
                                      "algorithm 3 needs"))
            return
        for k, (card, proof) in enumerate(zip(cards, proofs, strict=True)):
            expected = start + k
            label = f"{what} {k + 1}"
            if self.order is not None and (expected >= len(self.order) or card != self.order[expected]):
                continue  # not the seed's card there: already named
            position = proof.get("position") if isinstance(proof, dict) else None
            if position != expected:
                self.problems.append(said(where, f"position of {label}", position, expected,
                                          "the deal (the burn, then every card in turn) gives"))
                continue
            if self.seed is not None and proof.get("salt") != salt_of(self.seed, expected).hex():
                self.problems.append(said(where, f"salt of {label}", proof.get("salt"),
                                          salt_of(self.seed, expected).hex()))
                continue
            self.checked += 1
            if not isinstance(card, str) or not proves(self.root, self.size, expected, card, proof):
                self.failed += 1
                self.problems.append(f"{where}, {label}: the record says {describe(card)} at position {expected}, "
                                     "and its proof (salt and path) does not lead to the shoe's Merkle root")

    def summary(self) -> list[str]:
        """The problems; when no proof at all leads to the root, the root is named once instead."""
        if self.checked > 1 and self.failed == self.checked:
            others = [p for p in self.problems if "does not lead to the shoe's Merkle root" not in p]
            return [f"{self.name}, Merkle root: none of the {self.checked} card proofs leads to {self.root} "
                    "(the root, or every proof, is not the shoe's)", *others]
        return self.problems


def _verify_proven(record: dict[str, Any], name: str, shoe: object, root: str, *, decks: int, cut_card: int,
                   kind: str | None, entries: list[Any], numbers: list[int], problems: list[str]) -> ShoeVerdict:
    """A shoe in play (algorithm 3, no seed yet): its burn and each round's cards proven against the
    published root, at the positions the deal gives; each round dealt by the rules from its cards."""
    size = 52 * decks
    proofs = _Proofs(name, root, size)
    burned, turned = record.get("burned"), record.get("turned")
    if isinstance(burned, list) and burned and all(is_card(c) for c in burned):  # the whole burn, shown
        if burn_count(burned[0]) != len(burned):
            problems.append(said(name, "burned cards", burned, f"{burn_count(burned[0])} cards (the turned "
                                 f"{burned[0]} and as many more as it counts)", "the burn takes"))
        proofs.check(name, "burned card", burned, record.get("burn_proof"), 0)
        position = len(burned)
    elif isinstance(turned, str) and is_card(turned):  # in play: only the turned card is shown; it counts the burn
        proofs.check(name, "turned card", [turned], [record.get("turned_proof")], 0)
        position = burn_count(turned)
    else:
        raise RecordError(f"{name}: a shoe in play names its 'burned' cards or its 'turned' card, written like '9h'")
    course = _Course(cut_card, size, problems)
    dealt: dict[int, DealtRound] = {}
    cards = 0
    for entry, number in zip(entries, numbers, strict=True):
        where = f"{name}, round {number}"
        course.begin(where, number)
        recorded = entry["cards"]
        if not all(is_card(c) for c in recorded):
            raise RecordError(f"{where}: cards are written like '9h', 'Td' or 'As'")
        proofs.check(where, "card", recorded, entry.get("proof"), position)
        void = "void" in entry
        try:
            if kind == "punto_banco":
                round_ = deal_punto_banco(recorded)
            elif kind == "lucky_draw":
                seats, drew = _seats(entry, where)
                round_ = deal_lucky_draw(recorded, seats, [] if void else drew, complete=not void)
            else:
                round_ = Dealt(list(recorded), {})
        except IndexError:  # the rules draw a card the round does not have
            problems.append(said(where, "cards", recorded, "one card more", "the rules deal"))
            round_ = Dealt(list(recorded), {})
        if round_.cards != recorded:
            problems.append(said(where, "cards", recorded, round_.cards, "the rules take from them"))
        position += len(recorded)
        cards += len(recorded)
        dealt[number] = DealtRound(number, round_, entry, void, "the proven cards give")
        course.dealt(position)
    _check_end(record, name, problems, course, kind=kind, left=size - position)
    problems.extend(proofs.summary())
    return ShoeVerdict(shoe, len(entries), cards, tuple(problems), dealt, revealed=False, proven=True)
