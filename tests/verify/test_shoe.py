"""The verifier's shoe check (:mod:`baccarat.verify.shoe`) on records the house wrote (a ``baccarat play`` session's
transcript), each malformed or altered one way: a record it cannot check is refused saying what is wrong with it
(:class:`RecordError`, exit 2), and what it can check but does not hold is named (shoe, round, field)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from baccarat.cli.script import parse_line
from baccarat.cli.session import Session
from baccarat.core.fair import fair_cards
from baccarat.core.registry import get_game
from baccarat.verify import shoe, stream
from baccarat.verify.shoe import ALGORITHM_1, RecordError, verify_shoe

Record = dict[str, Any]


def _shoes(game: str, line: str, rounds: int, *, paytable: int | None = None, cut_card: int = 14) -> list[Record]:
    """The shoe records of a one-deck session of ``rounds`` coups of ``line``, as written to a file."""
    session = Session(get_game(game, paytable=paytable), bankroll=1_000_000, seed=5, decks=1, client_seed="my-seed",
                      cut_card=cut_card)
    for _ in range(rounds):
        session.play(parse_line(line))
    shoes: list[Record] = json.loads(json.dumps(session.transcript()))["shoes"]
    return shoes


@pytest.fixture(scope="module")
def mini() -> Record:
    """The first shoe of a mini-baccarat session, played to its last hand: it verifies."""
    first = _shoes("mini", "banker=10", 12)[0]
    assert first["ended"] == "last hand" and verify_shoe(first).ok
    return first


@pytest.fixture(scope="module")
def lucky() -> Record:
    record = _shoes("lucky-draw", "enter=10 draw", 3, paytable=1)[0]
    assert verify_shoe(record).ok
    return record


def _in_play(record: Record) -> Record:
    """The record as it reads while the shoe is in play: the seed not revealed yet, its rounds proven by the root."""
    playing = copy.deepcopy(record)
    del playing["server_seed"]
    playing["ended"] = "in play"
    return playing


def _set(path: str, value: Any) -> Callable[[Record], None]:
    """Set ``rounds.0.cards``-like ``path`` of the record to ``value`` (``None``: remove it)."""
    def change(record: Record) -> None:
        *where, last = [int(part) if part.isdigit() else part for part in path.split(".")]
        for part in where:
            record = record[part]
        if value is None:
            del record[last]
        else:
            record[last] = value
    return change


@pytest.mark.parametrize(("change", "says"), [
    (_set("decks", "1"), "shoe 1: the record needs 'decks' (int)"),
    (_set("decks", True), "shoe 1: the record needs 'decks' (int)"),
    (_set("decks", 17), "shoe 1: decks must be 1 to 16"),
    (_set("cut_card", 27), "shoe 1: 'cut_card' is 0 to half the shoe's cards"),
    (_set("cut_card", True), "shoe 1: 'cut_card' is 0 to half the shoe's cards"),
    (_set("client_seeds", ["two words"]), "shoe 1: 'client_seeds' is a list of seeds of 1 to 64 printable characters"),
    (_set("client_seeds", "my-seed"), "shoe 1: 'client_seeds' is a list of seeds of 1 to 64 printable characters"),
    (_set("rounds.0.cards", None), "shoe 1: each round needs a 'cards' list"),
    (_set("rounds.1", "7h 5c"), "shoe 1: each round needs a 'cards' list"),
    (_set("rounds.0.round", 0), "shoe 1: each round needs its 'round' number"),
    (_set("rounds.0.round", "1"), "shoe 1: each round needs its 'round' number"),
    (_set("game", "royale"), "shoe 1: unknown game 'royale' (pay table None)"),
    (_set("server_seed", "not a seed"), "shoe 1: the server seed is not hex"),
    (_set("rounds.2.cards.1", "1h"), "shoe 1, round 3: cards are written like '9h', 'Td' or 'As'"),
    (_set("ended", "whenever"), "shoe 1: 'ended' is one of last hand, too few cards, table closed, in play"),
])
def test_a_malformed_record_is_refused_saying_what_is_wrong(mini: Record, change: Callable[[Record], None],
                                                            says: str):
    record = copy.deepcopy(mini)
    change(record)
    with pytest.raises(RecordError, match=f"^{re.escape(says)}$"):
        verify_shoe(record)


def test_what_is_not_a_record_is_refused():
    with pytest.raises(RecordError, match=r"^a shoe record is a JSON object$"):
        verify_shoe([])  # type: ignore[arg-type]


@pytest.mark.parametrize("seats", [None, [], [2, 1], [1, 1], [8], [True], "1"])
def test_a_lucky_draw_round_must_name_its_seats_in_order(lucky: Record, seats: Any):
    record = copy.deepcopy(lucky)
    _set("rounds.0.seats", seats)(record)
    with pytest.raises(RecordError, match=re.escape(
            "shoe 1, round 1: a Lucky Draw round names its 'seats' (in order) and those that 'drew'")):
        verify_shoe(record)
    record = copy.deepcopy(lucky)
    record["rounds"][0]["drew"] = [5]  # a seat that was not dealt to
    with pytest.raises(RecordError, match="names its 'seats'"):
        verify_shoe(record)


def test_a_shoe_in_play_must_name_its_burn_or_turned_card_and_write_its_cards_as_cards(mini: Record):
    playing = _in_play(mini)
    assert verify_shoe(playing).ok and verify_shoe(playing).proven
    for burn in ({"burned": None}, {"burned": ["1h"]}, {"burned": [], "turned": "Zz"}):
        record = copy.deepcopy(playing)
        for key, value in burn.items():
            _set(key, value)(record)
        with pytest.raises(RecordError, match=re.escape(
                "shoe 1: a shoe in play names its 'burned' cards or its 'turned' card, written like '9h'")):
            verify_shoe(record)
    _set("rounds.0.cards.0", "10h")(playing)
    with pytest.raises(RecordError, match=re.escape("shoe 1, round 1: cards are written like '9h', 'Td' or 'As'")):
        verify_shoe(playing)


def test_a_shoe_in_play_with_a_round_short_of_a_card_the_rules_draw_is_named(mini: Record):
    playing = _in_play(mini)
    last = playing["rounds"][-1]
    last["cards"], last["proof"] = last["cards"][:3], last["proof"][:3]  # each card still proven at its place
    where = f"shoe 1, round {last['round']}"
    assert verify_shoe(playing).problems == (
        f"{where}, cards: the record says [{' '.join(last['cards'])}], the rules deal one card more",)
    # without a game the cards are only proven, not dealt by a game's rules
    del playing["game"]
    assert verify_shoe(playing).ok


def said_of(problems: tuple[str, ...], start: str) -> list[str]:
    return [problem for problem in problems if problem.startswith(start)]


def test_a_record_without_its_game_is_checked_on_its_cards_alone(mini: Record):
    record = copy.deepcopy(mini)
    del record["game"]
    assert verify_shoe(record).ok  # the cards are the seed's (how they make up hands is not checked)
    card = record["rounds"][1]["cards"][0]
    record["rounds"][1]["cards"][0] = "As" if card != "As" else "Ks"
    assert said_of(verify_shoe(record).problems, "shoe 1, round 2, card 1:") == [
        f"shoe 1, round 2, card 1: the record says {record['rounds'][1]['cards'][0]}, the seed gives {card}"]


def test_an_end_the_cards_left_do_not_bear_out_is_named(mini: Record):
    record = copy.deepcopy(mini)
    record["rounds"], record["ended"] = record["rounds"][:3], "too few cards"  # with most of the shoe left
    (problem,) = said_of(verify_shoe(record).problems, "shoe 1, end:")
    assert re.fullmatch(r"shoe 1, end: the record says too few cards for another round, the seed gives \d+ cards left",
                        problem), problem


def test_a_round_dealt_from_a_shoe_too_short_for_a_coup_is_named():
    """A coup is never split between shoes: a round recorded after the shoe ran short of a coup's cards is named."""
    record = _shoes("ez", "banker=10", 30, cut_card=0)[0]
    assert record["ended"] == "too few cards" and verify_shoe(record).ok
    last = record["rounds"][-1]
    record["rounds"].append({"round": last["round"] + 1, "cards": ["9h", "9d"], "proof": []})
    problems = verify_shoe(record).problems
    left = re.escape(f"shoe 1, round {last['round'] + 1}: dealt from a shoe with ")
    assert [p for p in problems if re.match(left + r"\d cards left, but a coup is never split \(it may need 6\)$", p)]


def test_a_seed_whose_stream_gives_a_word_past_the_last_whole_range_skips_it_as_the_house_does():
    """An index below n is drawn from the words below ``2**32 - 2**32 % n``: a word above that is skipped (folding it
    in would favour the low indexes).  This seed's stream gives one such word in an eight-deck shoe; the verifier
    and the house skip it alike."""
    key = hashlib.sha256(b"rejection 9639").digest()
    words, skipped = stream.words(key), 0
    for i in range(52 * 8 - 1, 0, -1):
        while next(words) >= 2**32 - 2**32 % (i + 1):
            skipped += 1
    assert skipped == 1
    assert shoe.shoe_order(shoe.stream_key(ALGORITHM_1, key, []), 8) == [str(card) for card in fair_cards(key, 8)]
