"""``baccarat play``: the documented script and JSON transcript interface, and exit codes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baccarat.cli.app import main


def run_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, script: str, *extra: str) -> dict:  # type: ignore[type-arg]
    path = tmp_path / "script.txt"
    path.write_text(script, encoding="utf-8")
    code = main(["play", game, "--seed", "7", "--script", str(path), "--json", *extra])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)  # type: ignore[no-any-return]


def test_mini_transcript_shape_and_money(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = run_json(capsys, tmp_path, "mini", "# comment\n\nplayer=10 dragon_bonus_player=2.50\nbanker=12.50 tie=1\n",
                   "--bankroll", "500")
    assert doc["game"] == "mini" and doc["seed"] == 7 and doc["decks"] == 8
    assert len(doc["rounds"]) == 2
    first = doc["rounds"][0]
    assert first["bets"] == {"player": 1000, "dragon_bonus_player": 250}
    assert 2 <= len(first["player_cards"]) <= 3 and 2 <= len(first["banker_cards"]) <= 3
    assert all(len(card) == 2 and card[0] in "A23456789TJQK" and card[1] in "cdhs" for card in first["player_cards"])
    balance = 50_000
    for r in doc["rounds"]:
        balance += sum(r["net"].values())
        assert r["balance"] == balance
    assert doc["final_balance"] == balance


def test_lucky_draw_transcript_includes_draw(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = run_json(capsys, tmp_path, "lucky-draw", "enter=10 block_bonus=5 draw\nenter=10 stand\nenter=5\n",
                   "--paytable", "2")
    first, second, third = doc["rounds"]
    assert doc["paytable"] == 2
    assert first["bets"] == {"enter": 1000, "block_bonus": 500, "draw": 1000}
    assert len(first["seat_cards"]) == 3 and set(first["net"]) == {"enter", "draw", "block_bonus"}
    assert len(second["seat_cards"]) == 2 and "draw" not in second["bets"]
    assert len(third["seat_cards"]) == 2  # no decision on the line: the seat stands
    assert 2 <= len(first["dealer_cards"]) <= 3


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("dragon_7=5", 'has no wager "dragon_7"'),
        ("player=-5", '"-5" is not an amount'),
        ("player=0", "more than zero"),
        ("player=ten", '"ten" is not an amount'),
        ("player=12.345", "at most two decimals"),
        ("player=5000.01", "above its maximum"),
        ("player=0.50", "below the table minimum"),
        ("player=900", "more than your balance"),
        ("dragon_bonus_banker=5", "needs a Banker"),
        ("player=5 player=5", "twice"),
        ("player=5 draw", "Lucky Draw decision"),
        ("player", "WAGER=AMOUNT"),
    ],
)
def test_a_refused_line_is_a_rejected_round_and_changes_no_balance(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, reason: str
) -> None:
    doc = run_json(capsys, tmp_path, "mini", f"{line}\nplayer=1\n", "--bankroll", "800")
    rejected, played = doc["rounds"]
    assert rejected["rejected"]
    assert re.search(reason, rejected["rejected"]), rejected["rejected"]
    assert rejected["balance"] == 80_000 and rejected["line"] == line
    assert played["round"] == 1  # the refused line dealt no coup


def test_lucky_draw_draw_needs_balance_for_the_draw_wager(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = run_json(capsys, tmp_path, "lucky-draw", "enter=10 draw\n", "--bankroll", "15")
    assert "Draw wager" in doc["rounds"][0]["rejected"] and doc["final_balance"] == 1500


@pytest.mark.slow  # 400 scripted rounds: about 0.8-1.1 s of CPU, at the fast tiers' budget
def test_callouts_follow_the_settled_wagers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = run_json(capsys, tmp_path, "ez", "banker=1 dragon_7=1 panda_8=1\n" * 400, "--bankroll", "5000")
    rounds = doc["rounds"]
    for r in rounds:
        assert ("Dragon 7" in r["callouts"]) == (r["events"]["dragon_7"] == "Dragon 7")
        assert ("Panda 8" in r["callouts"]) == (r["events"]["panda_8"] == "Panda 8")
        two_card_8_or_9 = any(len(r[k]) == 2 and r[t] >= 8 for k, t in
                              (("player_cards", "player_total"), ("banker_cards", "banker_total")))
        assert ("Natural" in r["callouts"]) == two_card_8_or_9
    assert all(any(name in r["callouts"] for r in rounds) for name in ("Dragon 7", "Panda 8", "Natural"))


def test_same_seed_and_script_same_transcript(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = "banker=5 dragon_7=1\nplayer=5 panda_8=1\ntie=2\n" * 20
    assert run_json(capsys, tmp_path, "ez", script) == run_json(capsys, tmp_path, "ez", script)


@pytest.mark.parametrize(
    "args",
    [
        ["play", "blackjack"],
        ["play", "ez", "--decks", "0"],
        ["play", "ez", "--bankroll", "-5"],
        ["play", "ez", "--paytable", "2"],
        ["play", "lucky-draw", "--paytable", "3"],
        ["play", "ez", "--script", "/nonexistent/file"],
        ["play", "ez", "--cut-card", "-1"],
        ["play", "ez", "--seed", "-1"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_screen_play_from_a_script(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("banker=5\nplayer=1000\nhelp\n", encoding="utf-8")
    assert main(["play", "ez", "--seed", "3", "--script", str(path)]) == 0
    out = capsys.readouterr().out
    assert "EZ Baccarat" in out and "Balance" in out and "Shoe 1" in out
    assert "Refused:" in out and "above its maximum" in out
    assert "dragon_7" in out  # the help table
    assert out.count("800.522.4700") == 2  # the rule card's help line: with the help, and as the last line


@pytest.mark.slow
def test_console_script_reads_rounds_from_stdin() -> None:
    exe = shutil.which("baccarat") or str(Path(sys.executable).parent / "baccarat")
    done = subprocess.run([exe, "play", "ez", "--seed", "1", "--json"], input="banker=5\n# note\nplayer=5\n",
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [r["bets"] for r in doc["rounds"]] == [{"banker": 500}, {"player": 500}]


def test_terminal_play_shows_the_roads_of_the_shoe(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "rounds.txt"
    script.write_text("banker=5\nplayer=5\nbanker=5 tie=1\n")
    assert main(["play", "ez", "--seed", "3", "--script", str(script)]) == 0
    screen = capsys.readouterr().out
    for title in ("Big Road", "Big Eye Boy", "Small Road", "Cockroach Pig", "Banker ask", "Player ask"):
        assert title in screen
    assert "Hands 3 ·" in screen


def test_the_session_scoreboard_follows_the_shoe_and_starts_again_with_the_next() -> None:
    from baccarat.cli.script import parse_line
    from baccarat.cli.session import Session
    from baccarat.core.registry import get_game
    from baccarat.core.roads import parse_hands, roads

    session = Session(get_game("mini"), bankroll=10**9, seed=5, decks=1, cut_card=20)
    shoes = set()
    for _ in range(25):
        record = session.play(parse_line("banker=1"))
        shoes.add(record["shoe"])
    assert len(shoes) >= 2  # one deck with a deep cut card: the shoe changed
    current = [r for r in session.rounds if r.get("shoe") == session.table.shoe_no]
    letters = " ".join({"banker": "B", "player": "P", "tie": "T"}[r["result"]] for r in current)
    board = session.scoreboard.roads()
    assert board.stats["hands"] == len(current)
    assert [c.outcome for c in board.bead_plate] == [c.outcome for c in roads(parse_hands(letters)).bead_plate]
    assert board.big_eye_boy == roads(parse_hands(letters)).big_eye_boy


def test_a_game_with_struck_cards_or_fees_is_refused_and_told_where_it_is_played(capsys: pytest.CaptureFixture[str]
                                                                                 ) -> None:
    from baccarat.core.registry import unregister

    lightning = str(Path(__file__).parents[2] / "catalogue" / "lightning.toml")
    try:
        assert main(["play", "lightning", "--rules", lightning]) == 2
    finally:
        unregister("lightning")
    said = " ".join(capsys.readouterr().err.replace("│", " ").split())  # the words, out of Rich's box
    assert "the terminal game does not deal them" in said
