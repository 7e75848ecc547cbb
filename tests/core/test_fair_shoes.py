"""Provably fair shoes: the HMAC stream, client seeds in the shuffle, the house's shoe against the
stand-alone verifier, the verifier's own rules against the house's, and ``baccarat verify`` on
real transcripts: untouched, written by the first algorithm, and tampered with in every way the
issue names (each with its own named mismatch and exit 3)."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from baccarat import verify as verifier
from baccarat.cli.app import main
from baccarat.cli.script import parse_line
from baccarat.cli.session import Session
from baccarat.core.cards import Card, standard_deck
from baccarat.core.errors import ConfigurationError
from baccarat.core.fair import (
    ALGORITHM,
    ALGORITHM_1,
    ALGORITHM_2,
    HmacStream,
    check_client_seed,
    combination,
    commitment,
    fair_cards,
    fair_shoe,
    shoe_key,
)
from baccarat.core.lucky import block_bonus_event
from baccarat.core.registry import get_game
from baccarat.core.tableau import banker_draws, dealer_draws, player_draws
from baccarat.verify import rules

GOLDEN = Path(__file__).parents[1] / "golden"


def _seed(i: int) -> bytes:
    return hashlib.sha256(f"test seed {i}".encode()).digest()


@pytest.mark.parametrize("decks", [1, 2, 8])
def test_house_and_verifier_compute_the_same_shoe(decks):
    assert ALGORITHM == verifier.ALGORITHM and ALGORITHM_1 == verifier.ALGORITHM_1
    for i in range(5):
        seeds = [f"player-{i}", "x"][: i % 3]
        for algorithm in (ALGORITHM, ALGORITHM_1):
            key = shoe_key(algorithm, _seed(i), seeds)
            assert verifier.stream_key(algorithm, _seed(i), seeds) == key
            assert verifier.shoe_order(key, decks) == [str(c) for c in fair_cards(key, decks)]


def test_client_seeds_are_combined_in_any_order_and_change_the_shoe():
    assert combination(["b", "a", "a"]) == combination(["a", "b"]) == verifier.seeds_combined(["b", "a"])
    assert combination([]) == hashlib.sha256(b"").hexdigest()  # no client seed: the empty set, documented
    assert combination(["a", "b"]) == hashlib.sha256(b"a\nb").hexdigest()
    base = [str(c) for c in fair_shoe(_seed(1), decks=8, cut_card=14, client_seeds=["ann", "ben"]).cards]
    same = [str(c) for c in fair_shoe(_seed(1), decks=8, cut_card=14, client_seeds=["ben", "ann"]).cards]
    other = [str(c) for c in fair_shoe(_seed(1), decks=8, cut_card=14, client_seeds=["ann", "bem"]).cards]
    fewer = [str(c) for c in fair_shoe(_seed(1), decks=8, cut_card=14, client_seeds=["ann"]).cards]
    assert base == same
    assert base != other and base != fewer  # change one seed, or leave one out: another shoe
    # the same seeds under the first algorithm would ignore them entirely
    assert fair_cards(shoe_key(ALGORITHM_1, _seed(1), ["ann"]), 1) == fair_cards(_seed(1), 1)
    with pytest.raises(ConfigurationError):
        shoe_key("made-up/9", _seed(1))


@pytest.mark.parametrize("seed", ["", " ", "two words", "x" * 65, "naïve", "tab\there", "new\nline", 7, None])
def test_a_client_seed_is_printable_ascii_without_spaces(seed):
    with pytest.raises(ConfigurationError, match="client seed is 1 to 64"):
        check_client_seed(seed)
    assert check_client_seed("~!Az09-_.:" + "x" * 54) and check_client_seed("a")


def test_every_index_is_reachable_and_none_is_favoured():
    stream = HmacStream(_seed(1))
    for bound in range(1, 40):
        draws = Counter(stream.randrange(bound) for _ in range(bound * 200))
        assert set(draws) == set(range(bound))
    with pytest.raises(ConfigurationError):
        stream.randrange(0)
    with pytest.raises(ConfigurationError):
        HmacStream(b"short")


def test_card_by_position_is_uniform():
    # Chi-square over 5,200 one-deck shoes for the first and last positions (51 degrees of freedom;
    # 100 is beyond the 0.9999 quantile).  The keys are shuffle keys, as dealt.
    first, last = Counter(), Counter()
    for i in range(5200):
        cards = fair_cards(shoe_key(ALGORITHM, _seed(i), ["a-client-seed"]), 1)
        first[str(cards[0])] += 1
        last[str(cards[-1])] += 1
    for counts in (first, last):
        assert len(counts) == 52
        chi2 = sum((n - 100) ** 2 / 100 for n in counts.values())
        assert chi2 < 100
    assert sorted(fair_cards(_seed(0), 1), key=str) == sorted(standard_deck(), key=str)


# --- the verifier's own statement of the rules, against the house's --------------------------


def test_the_verifiers_tableau_and_dealer_rule_are_the_houses():
    for player in range(10):
        assert rules.player_draws(player) == player_draws(player)
    for banker in range(8):
        for third in [None, *range(10)]:
            assert rules.banker_draws(banker, third) == banker_draws(banker, third), (banker, third)
    for dealer in range(10):
        # the verifier's Lucky Draw deal draws on 0-4: a dealer hand of that total gets a third card
        cards = ["As", "Kd"] if dealer == 1 else [f"{dealer if dealer else 'K'}s", "Kd"]
        dealt = rules.deal_lucky_draw(["2c", *cards[:1], "3c", cards[1], "9h"], [1], [])
        assert (len(dealt.hands["dealer"]) == 3) == dealer_draws(dealer), dealer
    for rank in "A23456789TJQK":
        assert rules.points(rank + "s") == Card.parse(rank + "s").value


@pytest.mark.parametrize(("code", "paytable"), [("mini", None), ("ez", None), ("lucky-draw", 1), ("lucky-draw", 2)])
def test_the_verifiers_pay_tables_are_the_houses(code, paytable):
    game = get_game(code, paytable=paytable)
    stated = rules.WAGERS[rules.game_key(code, paytable) or ""]
    assert set(stated) == {w.code for w in game.wagers}
    for wager in game.wagers:
        assert stated[wager.code][1] == dict(wager.paytable), wager.code
    assert rules.winnings(1250, Fraction(19, 20)) == 1187  # the written rounding rule


def test_the_verifiers_block_bonus_is_the_houses():
    cards = [(str(c), c) for c in standard_deck()]  # each card written and parsed once: 52^3 hands follow
    for (first, c1), (second, c2), (up, c3) in itertools.product(cards, cards, cards):
        dealt = rules.Dealt([], {"seat:1": [first, second], "dealer": [up]})
        assert rules.settle("lucky-draw/1", "block_bonus", 100, dealt, "seat:1")[0] == block_bonus_event(c1, c2, c3)


# --- transcripts --------------------------------------------------------------------------


def _transcript(game: str, lines: list[str], *, seed: int | None = 5, decks: int = 1, paytable: int | None = None,
                client_seed: str | None = "my-seed", cut_card: int = 14) -> dict[str, Any]:
    session = Session(get_game(game, paytable=paytable), bankroll=1_000_000, seed=seed, decks=decks,
                      client_seed=client_seed, cut_card=cut_card)
    for line in lines:
        session.play(parse_line(line))
    return json.loads(json.dumps(session.transcript()))  # as written to a file


@pytest.mark.parametrize(("game", "paytable", "line"), [
    ("mini", None, "banker=10 dragon_bonus_banker=5 player=3 dragon_bonus_player=1 tie=1"),
    ("ez", None, "player=10 panda_8=1 banker=5 dragon_7=1 tie=1"),
    ("lucky-draw", 1, "enter=10 block_bonus=5 draw"),
    ("lucky-draw", 2, "enter=10 block_bonus=5"),
])
def test_every_round_of_a_multi_shoe_session_verifies(game, paytable, line):
    doc = _transcript(game, [line] * 40, paytable=paytable)
    assert len(doc["shoes"]) >= 3
    report = verifier.verify_document(doc)
    assert report.ok, report.problems
    assert report.rounds == 40 and len(report.shoes) == len(doc["shoes"])
    for record in doc["shoes"]:
        assert record["commitment"] == commitment(bytes.fromhex(record["server_seed"]))
        assert record["client_seeds"] == ["my-seed"] and record["game"] == game
    assert {r["ended"] for r in doc["shoes"][:-1]} == {"last hand"}


def test_a_shoe_that_cannot_cover_a_coup_ends_and_verifies():
    doc = _transcript("ez", ["banker=10"] * 30, cut_card=0)
    assert "too few cards" in {r["ended"] for r in doc["shoes"]}
    assert verifier.verify_document(doc).ok
    doc["shoes"][0]["ended"] = "last hand"
    assert "end: the record says the shoe ended at its last hand" in "\n".join(verifier.verify_document(doc).problems)


def test_without_a_client_seed_the_combination_is_of_no_seed():
    doc = _transcript("mini", ["banker=10"] * 3, client_seed=None)
    record = doc["shoes"][0]
    assert record["client_seeds"] == [] and doc["client_seed"] is None
    key = shoe_key(ALGORITHM, bytes.fromhex(record["server_seed"]), [])
    first = doc["rounds"][0]["deal_order"]
    assert first == [str(c) for c in fair_cards(key, 1)][len(record["burned"]):][:len(first)]
    assert verifier.verify_document(doc).ok


def test_live_sessions_use_fresh_seeds():
    one, two = _transcript("ez", ["banker=1"], seed=None), _transcript("ez", ["banker=1"], seed=None)
    assert one["shoes"][0]["server_seed"] != two["shoes"][0]["server_seed"]
    assert verifier.verify_document(one).ok


def test_cards_do_not_depend_on_bets():
    one = _transcript("ez", ["banker=10", "tie=5", "player=25"])
    two = _transcript("ez", ["dragon_7=1", "banker=3", "panda_8=2"])
    assert [r["deal_order"] for r in one["rounds"]] == [r["deal_order"] for r in two["rounds"]]


@pytest.mark.parametrize("name", ["transcript-v1-ez.json", "transcript-v1-lucky-draw.json"])
def test_a_transcript_of_the_first_algorithm_still_verifies(name, capsys):
    """Written by the code of the first algorithm (server seed alone, no client seeds, no bankroll)."""
    path = GOLDEN / name
    doc = json.loads(path.read_text())
    assert {r["algorithm"] for r in doc["shoes"]} == {ALGORITHM_1}
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(doc['rounds'])} of your rounds dealt again" in out and "MISMATCH" not in out
    doc["rounds"][0]["net"] = {code: net + 1 for code, net in doc["rounds"][0]["net"].items()}
    assert "round 1, payout of" in "\n".join(verifier.verify_document(doc).problems)


def test_a_transcript_of_the_second_algorithm_still_verifies(capsys):
    """Written by the code of algorithm 2 (client seeds, no Merkle tree), before algorithm 3."""
    path = GOLDEN / "transcript-v2-ez.json"
    doc = json.loads(path.read_text())
    assert {r["algorithm"] for r in doc["shoes"]} == {ALGORITHM_2} and "merkle_root" not in doc["shoes"][0]
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(doc['rounds'])} of your rounds dealt again" in out and "MISMATCH" not in out
    doc["shoes"][0]["rounds"][1]["cards"][0] = "Ah" if doc["shoes"][0]["rounds"][1]["cards"][0] != "Ah" else "Kh"
    assert "shoe 1, round 2, card 1: the record says" in "\n".join(verifier.verify_document(doc).problems)


def _card(doc: dict[str, Any]) -> None:
    """Round 2's first card, in the round and in the shoe's record alike."""
    changed = "Ah" if doc["rounds"][1]["deal_order"][0] != "Ah" else "Kh"
    doc["rounds"][1]["deal_order"][0] = changed
    doc["shoes"][0]["rounds"][1]["cards"][0] = changed


def _remove(doc: dict[str, Any]) -> None:
    del doc["rounds"][3]
    del doc["shoes"][0]["rounds"][3]


def _add(doc: dict[str, Any]) -> None:
    doc["rounds"].insert(4, copy.deepcopy(doc["rounds"][3]))


def _renumber(doc: dict[str, Any]) -> None:
    doc["rounds"][2]["round"] = 9
    doc["shoes"][0]["rounds"][2]["round"] = 9


def _set(path: str, value: Any) -> Any:
    def tamper(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value(target[int(last) if last.isdigit() else last])
    return tamper


def _drop(path: str) -> Any:
    def tamper(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        del target[last]
    return tamper


#: What each test tampers with, and the mismatch it must be named by.
TAMPERING = {
    "a card": (_card, "shoe 1, round 2, card 1: the record says"),
    "the burn": (_set("shoes.0.burned", lambda burned: burned[1:]), "shoe 1, burned cards: the record says"),
    "the cut card moved up": (
        _set("shoes.0.cut_card", lambda cut: 24),
        "shoe 1, round 6: dealt after the shoe's last hand (the cut card came out 24 cards"),
    "the cut card moved down": (
        _set("shoes.0.cut_card", lambda cut: 2), "shoe 1, end: the record says the shoe ended at its last hand"),
    "a result": (
        _set("rounds.0.result", lambda r: {"banker": "player"}.get(r, "banker")),
        "shoe 1, round 1, result: the record says"),
    "a hand": (
        _set("rounds.0.player_cards", lambda cards: cards[::-1]), "shoe 1, round 1, player_cards: the record says"),
    "a total": (
        _set("rounds.0.banker_total", lambda t: (t + 1) % 10), "shoe 1, round 1, banker_total: the record says"),
    "an event": (
        _set("rounds.0.events.dragon_7", lambda e: "Dragon 7" if e != "Dragon 7" else "No Dragon 7"),
        "shoe 1, round 1, event of dragon_7: the record says"),
    "a payout": (
        _set("rounds.0.net.banker", lambda net: net + 1), "shoe 1, round 1, payout of banker: the record says"),
    "a bet": (
        _set("rounds.1.bets.banker", lambda amount: amount * 2),
        "shoe 1, round 2, payout of banker: the record says 1000, the seed gives 2000"),
    "a balance": (_set("rounds.2.balance", lambda b: b + 100), "shoe 1, round 3, balance: the record says"),
    "the final balance": (_set("final_balance", lambda b: b + 1), "the session, final balance: the record says"),
    "round numbers": (_renumber, "shoe 1, round 9, round number: the record says 9, the count of rounds gives 3"),
    "a removed round": (_remove, "shoe 1, round 5, round number: the record says 5, the count of rounds gives 4"),
    "a round removed from the rounds only": (
        _set("rounds", lambda rounds: rounds[:3] + rounds[4:]),
        "shoe 1, round 4: in the shoe's record but not among the rounds"),
    "an added round": (_add, "shoe 1, round 4, round number: the record says 4, the count of rounds gives 5"),
    "an emptied rounds list": (
        _set("rounds", lambda rounds: []), "shoe 1, round 1: in the shoe's record but not among the rounds"),
    "a client seed": (
        _set("shoes.0.client_seeds", lambda seeds: ["someone-else"]),
        "shoe 1, client seeds: the record says [someone-else], and your client seed my-seed is not among them"),
    "a client seed added": (
        _set("shoes.0.client_seeds", lambda seeds: [*seeds, "planted"]),
        "shoe 1, client seeds: the record says [my-seed planted], with the revealed server seed they deal another"),
    "the commitment": (
        _set("shoes.0.commitment", lambda c: "0" * 64),
        f"shoe 1, commitment: the record says {'0' * 64}, SHA-256 of the revealed seed is"),
    "the server seed": (_set("shoes.0.server_seed", lambda s: _seed(99).hex()), "shoe 1, commitment: the record says"),
    "a shoe number": (_set("shoes.1.shoe", lambda n: 5), "shoe 5, shoe number: the record says 5, the order"),
    "the callouts": (
        _set("rounds.0.callouts", lambda c: [*c, "Panda 8"]), "shoe 1, round 1, callouts: the record says"),
    # Left out rather than changed: once read as "nothing to compare", and the transcript verified.
    "a hand left out": (_drop("rounds.0.player_cards"), "shoe 1, round 1, player_cards: the record says nothing"),
    "a result left out": (_drop("rounds.1.result"), "shoe 1, round 2, result: the record says nothing"),
    "the cards left out": (_drop("rounds.1.deal_order"), "shoe 1, round 2, cards: the record says nothing"),
    "a balance left out": (_drop("rounds.2.balance"), "shoe 1, round 3, balance: the record says nothing"),
    "the final balance left out": (_drop("final_balance"), "the session, final balance: the record says nothing"),
    "a stake beyond the balance": (
        _set("rounds.0.bets.player", lambda amount: 10_000_000),
        "shoe 1, round 1, stakes: the record says 10001100, the balance before the round allows at most 100000"),
}


@pytest.mark.parametrize("what", TAMPERING)
def test_each_kind_of_tampering_is_named_with_exit_3(what, tmp_path: Path, capsys):
    tamper, message = TAMPERING[what]
    doc = _transcript("ez", ["banker=10 dragon_7=1 player=5"] * 20)
    assert len(doc["shoes"]) >= 2 and doc["shoes"][0]["ended"] == "last hand"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 0
    capsys.readouterr()
    tamper(doc)
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out
    assert f"MISMATCH {message}" in out, out


def test_an_unrevealed_seed_is_named():
    """Algorithm 2 has nothing to check before the seed; algorithm 3 proves its rounds at once."""
    doc = _transcript("mini", ["banker=10"] * 3)
    del doc["shoes"][0]["server_seed"]
    report = verifier.verify_document(doc)
    assert report.ok and report.shoes[0].proven and report.proven == 3
    old = copy.deepcopy(doc)
    old["shoes"][0]["algorithm"] = ALGORITHM_2
    assert "shoe 1: the server seed has not been revealed" in verifier.verify_document(old).problems
    del doc["shoes"][0]["merkle_root"]
    assert verifier.verify_document(doc).problems[:2] == [
        "shoe 1, Merkle root: the record says nothing, algorithm 3 needs a root of 64 hex digits, published at "
        "the first deal", "shoe 1: the server seed has not been revealed"]


def test_verify_command_accepts_a_transcript_a_record_and_a_list(tmp_path: Path, capsys):
    doc = _transcript("ez", ["banker=10"] * 12)
    for content in (doc, doc["shoes"][0], doc["shoes"]):
        path = tmp_path / "t.json"
        path.write_text(json.dumps(content))
        assert main(["verify", str(path)]) == 0
    assert "seed matches its commitment" in capsys.readouterr().out


@pytest.mark.parametrize("bankroll", ["abc", 1e300, -5, True, 100000.5])
def test_a_bankroll_that_is_not_whole_cents_is_not_a_transcript(bankroll, tmp_path: Path, capsys):
    doc = _transcript("ez", ["banker=10"] * 3)
    doc["bankroll"] = bankroll
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 2  # once: no bankroll, so the balances were taken as they came
    assert "'bankroll' is the starting balance in whole minor units" in capsys.readouterr().err


def test_a_refused_line_without_its_balance_is_named():
    doc = _transcript("ez", ["banker=10", "banker=999999999", "banker=10"])
    refused = next(r for r in doc["rounds"] if "rejected" in r)
    assert verifier.verify_document(doc).ok
    del refused["balance"]
    assert any("balance of a refused line: the record says nothing" in p
               for p in verifier.verify_document(doc).problems)


@pytest.mark.parametrize("content", ["not json", "[]", "{}", '{"shoes": [{"algorithm": 3}]}',
                                     '[{"algorithm": "x", "decks": 1, "commitment": "", "rounds": [1]}]',
                                     '{"game": "ez", "rounds": [{"round": "one"}], "shoes": []}',
                                     '{"game": "poker", "rounds": [], "shoes": []}',
                                     '{"format": "baccarat history export/1", "rounds": 3}'])
def test_verify_refuses_malformed_files(content, tmp_path: Path, capsys):
    path = tmp_path / "t.json"
    path.write_text(content)
    code = main(["verify", str(path)])
    assert code in (2, 3)
    assert "Traceback" not in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.json")]) == 2


@pytest.mark.parametrize(("content", "words"), [
    (None, "cannot read {path}: no such file or directory"),
    (b"not json", "it is not JSON (expecting value at line 1, column 1)"),
    (b"\xff\xfe{}", "it is not UTF-8 text (byte 1 cannot be read)"),
    (json.dumps({"game": "pairs", "rounds": [], "shoes": []}).encode(),
     "the verifier knows the rules of ez, lucky-draw, mini (lucky-draw with pay table 1 or 2) and states them "
     "itself; 'pairs' is not among them, and no rules file of it is in the file (an export of the table server "
     "carries the definition of each game from a rules file)"),
    (json.dumps({"game": "lucky-draw", "paytable": 7, "rounds": [], "shoes": []}).encode(),
     "'lucky-draw' with pay table 7 is not among them"),
])
def test_a_file_that_cannot_be_verified_says_why_in_words(content, words, tmp_path: Path, capsys, monkeypatch):
    """Not Python's own messages ("[Errno 2] ...", "Expecting value: ...", "'utf-8' codec can't ...")."""
    monkeypatch.setenv("COLUMNS", "400")  # the usage panel's lines, unwrapped
    path = tmp_path / "t.json"
    if content is not None:
        path.write_bytes(content)
    assert main(["verify", str(path)]) == 2
    said = " ".join(capsys.readouterr().err.replace("│", " ").split())
    assert words.format(path=path) in said, said
    assert "Errno" not in said and "codec" not in said
