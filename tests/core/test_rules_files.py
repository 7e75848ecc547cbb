"""Rules files: games and wagers as data (TOML).  Every mistake is refused at load with what to do,
and a game added by a file alone (Super 6, the pair bets) shows up in analyze, simulate, play and the
server (its table, its wagers in GET /api/games, bets settled) with no code change."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from baccarat.cli.app import main
from baccarat.core.errors import ConfigurationError
from baccarat.core.registry import MINI, game_codes, get_game, unregister
from baccarat.core.rulesfile import RulesError, load_rules, parse_rules
from baccarat.server.api.app import create_app
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.settings import Settings

CATALOGUE = Path(__file__).resolve().parents[2] / "catalogue"

HEADER = '[game]\ncode = "t"\nname = "T"\nprocedure = "punto_banco"\nminimum = "1.00"\n'
PLAYER = ('[[wagers]]\ncode = "player"\nname = "Player"\nmaximum = "100.00"\nevents = [\n'
          '  { event = "Player wins", when = { winner = "player" }, pays = "1" },\n'
          '  { event = "Tie", when = { winner = "tie" }, pays = "push" },\n'
          '  { event = "Banker wins", pays = "lose" },\n]\n')


MULTIPLIERS = ('[multipliers]\nwagers = ["player"]\ncap = 64\n'
               'struck = [{ cards = 1, weight = 3 }, { cards = 2, weight = 1 }]\n'
               'values = [{ multiplier = 2, weight = 5 }, { multiplier = 8, weight = 1 }]\n')


def test_a_fee_and_struck_cards_are_read_as_fractions_and_weight_tables() -> None:
    game = parse_rules(HEADER + PLAYER.replace('maximum = "100.00"', 'maximum = "100.00"\nfee = "20%"')
                       + MULTIPLIERS)
    assert game.wager("player").fee == Fraction(1, 5)
    assert game.multipliers is not None and game.multipliers.cap == 64
    assert game.multipliers.counts == ((1, 3), (2, 1)) and game.multipliers.values == ((2, 5), (8, 1))
    assert game.multiplies("player") and not game.multiplies("banker")
    assert parse_rules(HEADER + PLAYER.replace('maximum = "100.00"', 'maximum = "100.00"\nfee = "3/20"')
                       ).wager("player").fee == Fraction(3, 20)


def _wager(body: str) -> str:
    return HEADER + PLAYER + '[[wagers]]\ncode = "side"\nname = "Side"\n' + body


@pytest.mark.parametrize(("text", "says"), [
    ("not toml [", "not valid TOML"),
    (HEADER.replace('minimum = "1.00"\n', "") + PLAYER, "give the table minimum"),
    (HEADER.replace("punto_banco", "blackjack") + PLAYER, "procedure is punto_banco or lucky_draw"),
    (HEADER.replace('code = "t"', 'code = "mini"') + PLAYER, "built-in game"),
    (_wager('events = [{ event = "A", when = { player_pair = true }, pays = "11" }, { event = "B", pays = "lose" }]\n'),
     "give it a maximum"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { player_pear = true }, pays = "11" },'
            ' { event = "B", pays = "lose" }]\n'), "unknown fact 'player_pear'"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { banker_total = 10 }, pays = "11" },'
            ' { event = "B", pays = "lose" }]\n'), "banker_total cannot be 10"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { player_pair = "yes" }, pays = "11" },'
            ' { event = "B", pays = "lose" }]\n'), "player_pair cannot be 'yes'"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { cards = 4 }, pays = "11" },'
            ' { event = "B", when = { cards = 5 }, pays = "lose" }]\n'), "the last event has no when"),
    (_wager('maximum = "5"\nevents = [{ event = "A", pays = "11" }, { event = "B", pays = "lose" }]\n'),
     "only the last event may leave out when"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { cards = 4 }, pays = "-1/2" },'
            ' { event = "B", pays = "lose" }]\n'), "a part loss cannot be priced"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { cards = 4 }, pays = "eleven" },'
            ' { event = "B", pays = "lose" }]\n'), "pays is a fraction"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { cards = 4 }, pays = "lose" },'
            ' { event = "B", pays = "lose" }]\n'), "no event pays"),
    (_wager('maximum = "5"\nrequires = "banker"\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "requires 'banker'"),
    (_wager('maximum = "0.50"\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "at least the table minimum"),
    (_wager('maximum = "5"\nodds = 3\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "unknown keys odds"),
    (_wager('maximum = "5"\nnames = { fr = "Côté" }\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "names are given in en, zh-CN, zh-Hant, not fr"),
    (_wager('maximum = "5"\nfelt = { side = "left" }\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "a spot's side is player, banker or centre"),
    (_wager('maximum = "5"\nfelt = { row = -1 }\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "whole numbers from 0 to 99"),
    (_wager('maximum = "5"\nevents = [{ event = "A", when = { cards = 4 }, pays = "1", names = { "zh-CN" = 3 } },'
            ' { event = "B", pays = "lose" }]\n'), "names is a table of texts by language"),
    (HEADER.replace("punto_banco", "lucky_draw") + PLAYER, "Lucky Draw game's wagers are Enter"),
    (HEADER.replace("punto_banco", "lucky_draw") + "[limits]\nenter = \"500.00\"\n", "give [limits] with enter"),
    (_wager('maximum = "5"\nfee = "1"\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "fee is a fraction of the stake below 1"),
    (_wager('maximum = "5"\nfee = 0.2\nevents = [{ event = "A", when = { cards = 4 }, pays = "1" },'
            ' { event = "B", pays = "lose" }]\n'), "such as \"1/5\" or \"20%\""),
    (HEADER + PLAYER + MULTIPLIERS.replace('["player"]', '["panda"]'), "does not have: panda"),
    (HEADER + PLAYER + MULTIPLIERS.replace("cap = 64", "cap = 1"), "cap is a whole number from 2"),
    (HEADER + PLAYER + MULTIPLIERS.replace("multiplier = 8", "multiplier = 1"), "values are 2 to 1000"),
    (HEADER + PLAYER + MULTIPLIERS.replace("values = [", "odds = ["), "unknown keys odds"),
    (HEADER + PLAYER + MULTIPLIERS.replace("{ cards = 2, weight = 1 }", "{ cards = 2 }"),
     "struck is a list of { cards = ..., weight = ... }"),
    (HEADER.replace("punto_banco", "lucky_draw") + "[limits]\nenter = \"5.00\"\nblock_bonus = \"5.00\"\n"
     + MULTIPLIERS, "punto banco wagers only"),
])
def test_mistakes_are_refused_at_load_with_what_to_do(text: str, says: str) -> None:
    before = game_codes()
    with pytest.raises(RulesError, match=None) as refused:
        parse_rules(text)
    assert says in str(refused.value), str(refused.value)
    assert game_codes() == before  # nothing was registered


def test_names_and_the_felt_come_from_the_file_and_a_standard_player_takes_the_built_in_ones() -> None:
    game = parse_rules(HEADER + 'names = { "zh-CN" = "测试" }\n' + PLAYER + _wager(
        'maximum = "5"\nnames = { "zh-CN" = "边注" }\nevents = [{ event = "A", when = { cards = 4 }, pays = "1", '
        'names = { "zh-CN" = "四张" } }, { event = "B", pays = "lose" }]\n')[len(HEADER + PLAYER):])
    assert game.names == {"zh-CN": "测试"}
    player, side = game.wager("player"), game.wager("side")
    assert player.names == MINI.wager("player").names and player.felt == MINI.wager("player").felt
    assert player.event_in("Banker wins", "zh-CN") == "庄赢"
    assert side.name_in("zh-CN") == "边注" and side.name_in("en") == "Side"
    assert side.event_in("A", "zh-CN") == "四张" and side.event_in("B", "zh-CN") == "B"
    assert (side.felt.side, side.felt.row, side.felt.order) == ("centre", 0, 6)  # after Player, Tie and Banker
    placed = parse_rules(_wager('maximum = "5"\nfelt = { side = "banker", row = 1, order = 2 }\nevents = ['
                                '{ event = "A", when = { cards = 4 }, pays = "1" }, { event = "B", pays = "lose" }]\n'))
    assert (placed.wager("side").felt.side, placed.wager("side").felt.row) == ("banker", 1)


def test_a_lucky_draw_game_from_a_file_takes_its_pay_table_and_limits() -> None:
    game = parse_rules(HEADER.replace("punto_banco", "lucky_draw").replace('minimum = "1.00"\n',
                       'minimum = "1.00"\npaytable = 2\n') + '[limits]\nenter = "100.00"\nblock_bonus = "20.00"\n')
    assert game.kind == "lucky_draw" and game.paytable == 2 and game.limits.maximum("block_bonus") == 2_000
    assert [w.code for w in game.wagers] == ["enter", "draw", "block_bonus"]


def test_a_wager_without_a_maximum_is_refused_when_a_game_is_defined_in_code() -> None:
    from baccarat.core.games import Game, TableLimits

    with pytest.raises(ConfigurationError, match="'tie' has no maximum"):
        Game("x", "X", "punto_banco", MINI.wagers[:3], TableLimits(100, {"player": 1000, "banker": 1000}))


@pytest.fixture
def super_6() -> Iterator[Path]:
    yield CATALOGUE / "super-6.toml"
    unregister("super-6")


@pytest.fixture
def pairs() -> Iterator[Path]:
    yield CATALOGUE / "pairs.toml"
    unregister("pairs")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_analyze_simulate_and_play_take_a_game_from_a_file_alone(capsys, tmp_path, super_6, pairs) -> None:
    doc = _json(capsys, "analyze", "super-6", "--rules", str(super_6), "--json")
    assert doc["wagers"]["super_6"]["house_edge_exact"] == "90046773893/300384511749"
    doc = _json(capsys, "analyze", "pairs", "--rules", str(pairs), "--decks", "8", "--json")
    assert doc["wagers"]["player_pair"]["house_edge_exact"] == "43/415"
    doc = _json(capsys, "simulate", "pairs", "--rules", str(pairs), "--shoes", "200", "--seed", "3", "--json")
    assert set(doc["wagers"]) == {"player", "banker", "tie", "player_pair", "banker_pair", "either_pair",
                                  "perfect_pair"}
    pair = doc["wagers"]["player_pair"]
    assert pair["exact"] == pytest.approx(-43 / 415) and abs(pair["mean"] - pair["exact"]) < 5 * pair["std_error"]
    script = tmp_path / "rounds.txt"
    script.write_text("banker=10 super_6=1\nplayer=5\n", encoding="utf-8")
    doc = _json(capsys, "play", "super-6", "--rules", str(super_6), "--seed", "7", "--script", str(script), "--json")
    first = doc["rounds"][0]
    assert first["bets"] == {"banker": 1000, "super_6": 100}
    six = first["result"] == "banker" and first["banker_total"] == 6
    assert first["net"]["super_6"] == (1200 if six else -100)


def test_a_file_s_game_is_refused_where_it_cannot_go(capsys, super_6) -> None:
    assert main(["simulate", "super-6", "--rules", str(super_6), "--count", "dragon-7"]) == 2
    assert "unknown wager 'dragon_7' in super-6" in capsys.readouterr().err
    assert main(["analyze", "super-7"]) == 2
    assert "the games are mini, ez," in capsys.readouterr().err


@pytest.mark.slow
def test_the_server_serves_a_game_from_a_file_alone(tmp_path: Path, database_url: str, pairs: Path) -> None:
    load_rules(pairs)
    settings = Settings(data_dir=tmp_path, database_url=database_url, grant=50_000)
    with TestClient(create_app(settings)) as client:
        games = {g["code"]: g for g in client.get("/api/games").json()}
        assert [w["code"] for w in games["pairs"]["wagers"]][-4:] == ["player_pair", "banker_pair", "either_pair",
                                                                        "perfect_pair"]
        perfect = games["pairs"]["wagers"][-1]
        assert perfect["maximum"] == 20_000 and perfect["summary"] == "up to 250:1"
        tables = {t["name"]: t for t in client.get("/api/tables").json()}
        assert tables["pairs-1"]["game"] == "pairs"
        from baccarat.server.house import accounts
        from baccarat.server.playing import tables as server_tables

        with connect(settings.url) as sessions:
            transaction(sessions, lambda s: accounts.register(s, "pit_boss", "correct horse", grant=0, role="pit_boss"))
            table_id = transaction(sessions, lambda s: server_tables.create_table(
                s, "quick-pairs", "pairs", betting_seconds=3.0, pace=Pace(0.2, 0.1, 0.5)).id)
        boss = client.post("/api/sessions", json={"username": "pit_boss", "password": "correct horse"}).json()
        operator = {"Authorization": f"Bearer {boss['token']}"}
        unknown = client.post("/api/operator/tables", json={"name": "y", "game": "pears"}, headers=operator)
        assert unknown.status_code == 422 and "the games are: mini, ez, lucky-draw, pairs" in unknown.text
        made = client.post("/api/operator/tables", json={"name": "pairs-2", "game": "pairs"}, headers=operator)
        assert made.status_code == 201, made.text
        client.post("/api/accounts", json={"username": "gina", "password": "correct horse"})
        token = client.post("/api/sessions", json={"username": "gina", "password": "correct horse"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        assert client.post(f"/api/tables/{table_id}/seats", json={}, headers=auth).status_code in (200, 201)
        placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"player_pair": 100, "perfect_pair": 100}},
                             headers={**auth, "Idempotency-Key": "bet-pairs-0001"})
        assert placed.status_code == 201, placed.text
        over = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"perfect_pair": 30_000}},
                           headers={**auth, "Idempotency-Key": "bet-pairs-0002"})
        assert over.status_code == 409 and "maximum" in over.text
        deadline, history = time.monotonic() + 15, []
        while time.monotonic() < deadline and not history:
            time.sleep(0.1)
            history = client.get("/api/history", headers=auth).json()
        assert history and history[0]["table"] == "quick-pairs"
        entry = history[0]
        cards = entry["detail"]["player_cards"]
        paired = cards[0][0] == cards[1][0]
        assert entry["bets"]["player_pair"]["net"] == (1_100 if paired else -100)
    assert get_game("pairs").source is not None


def test_the_catalogue_s_lucky_draw_file_is_the_rule_card_s_game_with_its_own_limits(capsys) -> None:
    try:
        doc = _json(capsys, "analyze", "lucky-draw-low", "--rules", str(CATALOGUE / "lucky-draw-low.toml"), "--json")
    finally:
        unregister("lucky-draw-low")
    assert doc["paytable"] == 2
    assert doc["wagers"]["enter"]["house_edge_exact"] == "653066236804/19524993263685"  # the rule card's 3.34%


def test_the_docs_worked_example_is_priced_as_the_docs_say() -> None:
    """docs/rules-files.md designs Red Natural from nothing: its file parses, and the figures it quotes are the
    analysis's (the combinations, the edge at 12 to 1 and at 19 to 1)."""
    from baccarat.analysis.analyze import analyze
    from baccarat.analysis.composition import Composition

    page = (Path(__file__).resolve().parents[2] / "docs" / "rules-files.md").read_text(encoding="utf-8")
    section = page[page.index("### A side bet from nothing"):]
    block = section.split("```toml", 1)[1].split("```", 1)[0]
    text = "\n".join(line[4:] for line in block.splitlines())
    section = " ".join(section.split())  # the words, whatever the lines
    for pays, edge in (("12", Fraction(32, 83)), ("19", Fraction(59, 1079))):
        game = parse_rules(text.replace('pays = "12"', f'pays = "{pays}"'))
        (wager,) = [w for w in analyze(game, Composition.full(8)).wagers if w.code == "red_natural"]
        assert wager.house_edge == edge
        assert f"exactly {edge.numerator}/{edge.denominator}" in section
        assert f"{float(edge):.4%}" in section
        wins = next(line for line in wager.lines if line.event == "Red natural")
        assert f"{wins.combinations:,} of {wager.total:,}" in section
