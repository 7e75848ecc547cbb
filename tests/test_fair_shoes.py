"""Provably fair shoes: the HMAC stream, the house's shoe against the stand-alone verifier,
and ``baccarat verify`` on real transcripts, untouched and tampered."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from baccarat import verify as verifier
from baccarat.cards import standard_deck
from baccarat.cli import main
from baccarat.errors import ConfigurationError
from baccarat.fair import ALGORITHM, HmacStream, commitment, fair_cards
from baccarat.presets import get_game
from baccarat.script import parse_line
from baccarat.session import Session


def _seed(i: int) -> bytes:
    return hashlib.sha256(f"test seed {i}".encode()).digest()


@pytest.mark.parametrize("decks", [1, 2, 8])
def test_house_and_verifier_compute_the_same_shoe(decks):
    assert ALGORITHM == verifier.ALGORITHM
    for i in range(5):
        assert verifier.shoe_order(_seed(i), decks) == [str(c) for c in fair_cards(_seed(i), decks)]


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
    # 100 is beyond the 0.9999 quantile).
    first, last = Counter(), Counter()
    for i in range(5200):
        cards = fair_cards(_seed(i), 1)
        first[str(cards[0])] += 1
        last[str(cards[-1])] += 1
    for counts in (first, last):
        assert len(counts) == 52
        chi2 = sum((n - 100) ** 2 / 100 for n in counts.values())
        assert chi2 < 100
    assert sorted(fair_cards(_seed(0), 1), key=str) == sorted(standard_deck(), key=str)


def _transcript(game: str, lines: list[str], seed: int | None = 5, decks: int = 1) -> dict:  # type: ignore[type-arg]
    session = Session(get_game(game), bankroll=1_000_000, seed=seed, decks=decks)
    for line in lines:
        session.play(parse_line(line))
    return session.transcript()


@pytest.mark.parametrize(("game", "line"), [("mini", "banker=10 dragon_bonus_banker=5"), ("ez", "player=10 panda_8=1"),
                                            ("lucky-draw", "enter=10 block_bonus=5 draw")])
def test_a_multi_shoe_session_verifies(game, line):
    doc = _transcript(game, [line] * 40)
    assert len(doc["shoes"]) >= 3
    for record in doc["shoes"]:
        verdict = verifier.verify_shoe(record)
        assert verdict.ok, verdict.problems
        assert record["commitment"] == commitment(bytes.fromhex(record["server_seed"]))
    assert sum(len(r["rounds"]) for r in doc["shoes"]) == 40
    assert all(r["deal_order"] for r in doc["rounds"])


def test_live_sessions_use_fresh_seeds():
    one, two = _transcript("ez", ["banker=1"], seed=None), _transcript("ez", ["banker=1"], seed=None)
    assert one["shoes"][0]["server_seed"] != two["shoes"][0]["server_seed"]
    assert verifier.verify_shoe(one["shoes"][0]).ok


def test_cards_do_not_depend_on_bets():
    one = _transcript("ez", ["banker=10", "tie=5", "player=25"])
    two = _transcript("ez", ["dragon_7=1", "banker=3", "panda_8=2"])
    assert [r["deal_order"] for r in one["rounds"]] == [r["deal_order"] for r in two["rounds"]]


def _tamper(record: dict, what: str) -> None:  # type: ignore[type-arg]
    if what == "card":
        cards = record["rounds"][1]["cards"]
        cards[0] = "Ah" if cards[0] != "Ah" else "Kh"
    elif what == "seed":
        record["server_seed"] = _seed(99).hex()
    elif what == "commitment":
        record["commitment"] = "0" * 64
    elif what == "burned":
        record["burned"] = record["burned"][1:]
    elif what == "unrevealed":
        del record["server_seed"]


@pytest.mark.parametrize(("what", "message"), [
    ("card", "round 2, card 1: the record says"), ("seed", "does not match the commitment"),
    ("commitment", "does not match the commitment"), ("burned", "burned cards"), ("unrevealed", "not been revealed"),
])
def test_tampering_is_named(what, message, tmp_path: Path, capsys):
    doc = _transcript("mini", ["banker=10"] * 5)
    _tamper(doc["shoes"][0], what)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out
    assert message in out and "MISMATCH shoe 1" in out


def test_verify_command_accepts_a_transcript_a_record_and_a_list(tmp_path: Path, capsys):
    doc = _transcript("ez", ["banker=10"] * 12)
    for content in (doc, doc["shoes"][0], doc["shoes"]):
        path = tmp_path / "t.json"
        path.write_text(json.dumps(content))
        assert main(["verify", str(path)]) == 0
    assert "seed matches its commitment" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["not json", "[]", "{}", '{"shoes": [{"algorithm": 3}]}',
                                     '[{"algorithm": "x", "decks": 1, "commitment": "", "rounds": [1]}]'])
def test_verify_refuses_malformed_files(content, tmp_path: Path, capsys):
    path = tmp_path / "t.json"
    path.write_text(content)
    code = main(["verify", str(path)])
    assert code in (2, 3)
    assert "Traceback" not in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
