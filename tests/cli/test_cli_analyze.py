"""``baccarat analyze``: the JSON interface of specs/analysis.md, the tables, and refusals."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from baccarat.cli.app import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["analyze", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    return json.loads(out)  # type: ignore[no-any-return]


WAGER_KEYS = {"house_edge", "house_edge_exact", "std_dev", "hit_frequency", "events"}
EVENT_KEYS = {"event", "pays", "combinations", "probability", "return"}


@pytest.mark.parametrize(("game", "codes"), [
    ("mini", ["player", "banker", "tie", "dragon_bonus_player", "dragon_bonus_banker"]),
    ("ez", ["player", "banker", "tie", "dragon_7", "panda_8"]),
])
def test_punto_banco_json(capsys, game, codes):
    doc = run_json(capsys, game)
    assert doc["game"] == game and doc["decks"] == 8 and "paytable" not in doc
    assert list(doc["wagers"]) == codes
    for code, wager in doc["wagers"].items():
        assert set(wager) >= WAGER_KEYS, code
        numerator, denominator = map(int, wager["house_edge_exact"].split("/"))
        assert wager["house_edge"] == pytest.approx(numerator / denominator, rel=1e-12)
        assert sum(e["combinations"] for e in wager["events"]) == 4_998_398_275_503_360
        assert sum(e["return"] for e in wager["events"]) == pytest.approx(-wager["house_edge"], abs=1e-12)
        for event in wager["events"]:
            assert set(event) == EVENT_KEYS
    assert doc["wagers"]["banker"]["house_edge_excluding_ties"] > doc["wagers"]["banker"]["house_edge"]


def test_lucky_draw_json_has_enter_block_bonus_and_strategy(capsys):
    doc = run_json(capsys, "lucky-draw", "--paytable", "2")
    assert doc["paytable"] == 2
    enter, block = doc["wagers"]["enter"], doc["wagers"]["block_bonus"]
    assert round(enter["house_edge"] * 100, 2) == 3.34
    assert 0 < enter["element_of_risk"] < enter["house_edge"] and 0 < enter["draw_probability"] < 1
    assert round(block["house_edge"], 6) == 0.079169
    strategy = doc["strategy"]
    assert strategy["used"] == "composition" and strategy["up_cards"] == list("A23456789T")
    assert strategy["card"]["8"] == "S" * 10
    assert len(strategy["decisions"]) == 550
    assert set(strategy["results"]) == {"composition", "total"}


def test_shoe_option_and_eor(capsys):
    shoe = "30,31,32,32,32,32,32,32,32,120"
    doc = run_json(capsys, "ez", "--shoe", shoe, "--eor")
    assert doc["decks"] is None and doc["shoe"]["A"] == 30 and doc["shoe"]["T"] == 120
    for wager in doc["wagers"].values():
        assert wager["eor_check"] == "0/1"
        counts = [doc["shoe"][label] for label in "A23456789T"]
        total = sum(n * Fraction(wager["eor_exact"][label]) for n, label in zip(counts, "A23456789T", strict=True))
        assert total == 0


def test_text_report_has_the_return_table_and_strategy(capsys):
    code, out, _ = run(capsys, "lucky-draw", "--decks", "8")
    assert code == 0
    assert "Enter, with the Draw wager by the composition-dependent strategy — 8 decks" in out
    assert "House edge 1.7931%" in out
    assert "Lucky Draw strategy card (D = draw, S = stand)" in out
    assert "    8  S S S S S S S S S S" in out
    code, out, _ = run(capsys, "mini", "--decks", "6")
    assert code == 0 and "Banker — 6 decks" in out and "House edge 1.0558%" in out


@pytest.mark.parametrize("args", [
    ["mini", "--decks", "8", "--shoe", "32,32,32,32,32,32,32,32,32,128"],
    ["mini", "--shoe", "1,2,3"],
    ["mini", "--shoe", "-1,2,3,4,5,6,7,8,9,10"],
    ["mini", "--shoe", "0,0,0,0,0,0,0,0,0,5"],
    ["mini", "--decks", "0"],
    ["mini", "--decks", "17"],
    ["mini", "--paytable", "1"],
    ["lucky-draw", "--paytable", "3"],
    ["ez", "--strategy", "total"],
    ["baccara"],
])
def test_bad_input_is_a_usage_error(capsys, args):
    code, out, _ = run(capsys, *args)
    assert code == 2
    assert out == ""


LIGHTNING = str(__import__("pathlib").Path(__file__).parents[2] / "catalogue" / "lightning.toml")


def test_struck_cards_and_fees_are_priced_exactly_with_the_return_to_player(capsys):
    doc = run_json(capsys, "lightning", "--rules", LIGHTNING)
    player = doc["wagers"]["player"]
    assert player["fee"] == "1/5" and player["multiplied"] is True
    numerator, denominator = map(int, player["return_to_player_exact"].split("/"))
    assert f"{numerator / denominator:.6%}" == f"{player['return_to_player']:.6%}"
    assert f"{player['return_to_player']:.4%}" == "98.7333%"
    wins = next(e for e in player["events"] if e["event"] == "Player wins")
    assert Fraction(wins["pays_exact"]) > 1  # the average multiplied pay of an even-money win
    code, out, _ = run(capsys, "lightning", "--rules", LIGHTNING)
    assert code == 0 and "return to player 98.7333%" in out and "average with the struck cards" in out
    code, out, _ = run(capsys, "lightning", "--rules", LIGHTNING, "--shoe", "31,32,32,32,32,32,32,32,32,128")
    assert code == 0 and "player: not analysed: struck cards are priced in a full shoe only" in out
