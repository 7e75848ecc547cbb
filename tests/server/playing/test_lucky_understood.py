"""Issue 31, items 4 and 5, the server's side: refusals that say what a player can do when nothing is
left (a full spot, a used-up balance), the hint's reason from the strategy's own numbers, and the pay
tables' player-facing names from the registry (never "pay table 1")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from fastapi.testclient import TestClient

from baccarat.analysis.composition import Composition
from baccarat.analysis.lucky_draw import TWO_CARD_TOTAL, cells, total_strategy_card
from baccarat.core.errors import BetLimitError, InsufficientFundsError
from baccarat.core.registry import LUCKY_DRAW, LUCKY_DRAW_2, MINI, get_game, paytable_name
from baccarat.core.tableau import banker_draws, player_draws
from baccarat.server.api.app import create_app
from baccarat.server.house import accounts, wallet
from baccarat.server.live.sockets import SocketCommand, bets_together
from baccarat.server.playing import betting, game_info, records, tables
from baccarat.server.storage import group_commit as batch
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.settings import Settings
from tests.conftest import stacked_table

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
AT = T0 + timedelta(seconds=1)


@pytest.fixture
def spent(sessions):  # type: ignore[no-untyped-def]
    """Ann had 10.00 and has staked all of it on table A's open round; table B is open too."""

    def setting_up(s):  # type: ignore[no-untyped-def]
        a = tables.create_table(s, "A", "ez", betting_seconds=600, now=T0)
        b = tables.create_table(s, "B", "ez", betting_seconds=600, now=T0)
        ann = accounts.register(s, "ann", "correct horse", grant=1_000).id
        digest = accounts._digest(accounts.log_in(s, "ann", "correct horse"))
        betting.place_bets(s, a.id, ann, {"player": 500, "banker": 500}, AT)
        return {"a": a.id, "b": b.id, "ann": ann, "digest": digest}

    return transaction(sessions, setting_up)


def test_a_bet_with_the_balance_used_up_says_so_not_balance_of_nothing(sessions, spent):
    with pytest.raises(InsufficientFundsError) as refused:
        transaction(sessions, lambda s: betting.place_bets(s, spent["b"], spent["ann"], {"player": 100}, AT))
    assert (refused.value.code, refused.value.params) == ("bet.balance_used_up", {"amount": 100})
    assert str(refused.value).startswith("Your balance is used up")
    assert "0.00" not in str(refused.value)
    assert read(sessions, lambda s: wallet.shown_balance(s, spent["ann"], AT)) == 0  # nothing moved


def test_the_socket_s_bulk_path_says_the_same(sessions, spent):
    frame = {"type": "bet", "key": "ann-bet-00001", "bets": {"player": 100}}
    [(ok, refused)] = batch.Batcher(sessions, bulk=bets_together)._commit(
        [SocketCommand(spent["b"], spent["ann"], spent["digest"], frame, AT)])
    assert not ok and isinstance(refused, InsufficientFundsError)
    assert (refused.code, refused.params) == ("bet.balance_used_up", {"amount": 100})


def test_some_balance_left_still_names_it(sessions):
    def setting_up(s):  # type: ignore[no-untyped-def]
        table = tables.create_table(s, "A", "ez", betting_seconds=600, now=T0)
        return table.id, accounts.register(s, "bea", "correct horse", grant=1_000).id

    table, bea = transaction(sessions, setting_up)
    with pytest.raises(InsufficientFundsError) as refused:
        transaction(sessions, lambda s: betting.place_bets(s, table, bea, {"player": 2_000}, AT))
    assert (refused.value.code, refused.value.params) == ("bet.balance", {"amount": 2_000, "balance": 1_000})


def test_a_full_spot_is_said_to_be_at_its_maximum(sessions):
    def setting_up(s):  # type: ignore[no-untyped-def]
        table = tables.create_table(s, "A", "ez", betting_seconds=600, now=T0)
        cy = accounts.register(s, "cyd", "correct horse", grant=100_000).id
        betting.place_bets(s, table.id, cy, {"banker": 2_500}, AT)  # EZ's $25 maximum
        return table.id, cy

    table, cy = transaction(sessions, setting_up)
    with pytest.raises(BetLimitError) as refused:
        transaction(sessions, lambda s: betting.place_bets(s, table, cy, {"banker": 100}, AT))
    assert refused.value.code == "bet.at_maximum"
    assert str(refused.value).startswith("Banker is at its maximum of 25.00")
    assert "add up to" not in str(refused.value)


def test_the_core_table_says_used_up_too():
    table = stacked_table(MINI, "", balance=100)
    table.open_betting()
    table.place_bets(1, {"player": 100})  # the whole balance
    with pytest.raises(InsufficientFundsError) as refused:
        table.place_bets(1, {"banker": 100})
    assert (refused.value.code, refused.value.params) == ("bet.balance_used_up", {"amount": 100})


# --- the hint's reason -----------------------------------------------------------------------------------


@pytest.mark.parametrize("paytable", [1, 2])
def test_the_hint_s_numbers_are_the_strategy_s_own(sessions, paytable):
    table = transaction(sessions, lambda s: tables.create_table(s, "L", "lucky-draw", paytable=paytable, now=T0).id)
    card = read(sessions, lambda s: records.table_strategy(s, table))
    game = get_game("lucky-draw", paytable=paytable)
    counted = cells(game, Composition.full(8))
    # independently: every cell's own expected result (Cells.values), weighted by how often the cell is dealt
    stand, draw, weights = counted.values(drew=False), counted.values(drew=True), counted.cell_weights.tolist()
    strategy = total_strategy_card(counted)
    for total, up in [(5, 0), (6, 1), (7, 0), (7, 2), (8, 9), (9, 1), (3, 6)]:
        cells_of = [(s1, s2) for s1 in range(10) for s2 in range(10) if TWO_CARD_TOTAL[s1, s2] == total]
        ways = sum(weights[s1][up][s2] for s1, s2 in cells_of)
        expected_stand = sum(stand[s1][up][s2] * weights[s1][up][s2] for s1, s2 in cells_of) / Fraction(ways)
        expected_draw = sum(draw[s1][up][s2] * weights[s1][up][s2] for s1, s2 in cells_of) / Fraction(ways)
        shown_stand, shown_draw = card["returns"][str(total)][up]
        assert shown_stand == pytest.approx(float(expected_stand), abs=5e-5)
        assert shown_draw == pytest.approx(float(expected_draw), abs=5e-5)
        advised_draw = up in card["draw"][str(total)]
        assert advised_draw == bool(strategy[total, up]) == (expected_draw > expected_stand)
    # a known hand: 5 against a ten up, the card draws; 8 against a 9 up, it stands
    assert 0 in card["draw"]["5"] and 9 not in card["draw"]["8"]


# --- the pay tables' names ----------------------------------------------------------------------------------


def test_the_pay_tables_are_named_by_what_they_pay_not_by_number():
    assert paytable_name(LUCKY_DRAW, "draw") == ("Lucky 7 (3-card 7)", Fraction(2))
    assert paytable_name(LUCKY_DRAW_2, "draw") == ("Lucky 7 (3-card 7)", Fraction(3, 2))
    assert paytable_name(LUCKY_DRAW, "block_bonus") == ("Ultimate Block", Fraction(35))
    assert paytable_name(LUCKY_DRAW, "enter") is None and paytable_name(MINI, "player") is None
    lucky = [game for game in game_info.games_json() if game["kind"] == "lucky_draw"]
    assert [game["paytable_name"] for game in lucky] == ["Lucky 7 (3-card 7) pays 2:1", "Lucky 7 (3-card 7) pays 3:2"]
    assert all(game["dealer_draws"] == [0, 1, 2, 3, 4] for game in lucky)
    draw = {w["code"]: w for w in lucky[1]["wagers"]}
    assert draw["draw"]["headline"] == {"event": "Lucky 7 (3-card 7)", "odds": "3/2", "label": "3:2", "rule": None}
    block = draw["block_bonus"]
    assert block["headline"] is not None and block["headline"]["label"] == "35:1"
    assert {p["event"] for p in block["pays"] if p["rule"]} == {"Ultimate Block", "Pair Block", "Flush Block",
                                                                  "Normal Block", "No Block"}
    assert all(game["paytable_name"] is None for game in game_info.games_json() if game["kind"] != "lucky_draw")


def test_the_games_catalogue_gives_punto_banco_s_drawing_rules_as_the_tableau_plays_them():
    for game in game_info.games_json():
        drawing = game["drawing"]
        if game["kind"] == "lucky_draw":
            assert drawing is None
            continue
        assert drawing is not None
        # asked of the tableau's functions, cell by cell (the catalogue reads its tables)
        assert drawing["player_draws"] == [total for total in range(8) if player_draws(total)] == [0, 1, 2, 3, 4, 5]
        assert drawing["banker_draws_player_stood"] == [total for total in range(8) if banker_draws(total, None)]
        assert drawing["banker_draws"] == {str(total): [third for third in range(10) if banker_draws(total, third)]
                                           for total in range(8)}
        # the chart every casino prints: 3 draws unless the Player's third card is an 8, 6 only on 6 or 7
        assert drawing["banker_draws"]["3"] == [0, 1, 2, 3, 4, 5, 6, 7, 9]
        assert drawing["banker_draws"]["6"] == [6, 7] and drawing["banker_draws"]["7"] == []


def test_the_games_catalogue_serves_the_names(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path, betting_seconds=600))) as client:
        games = client.get("/api/games").json()
    lucky = [g for g in games if g["kind"] == "lucky_draw"]
    assert lucky[0]["paytable_name"] == "Lucky 7 (3-card 7) pays 2:1"
    assert {w["code"]: w["headline"]["label"] for w in lucky[0]["wagers"] if w["headline"]} == {
        "draw": "2:1", "block_bonus": "35:1"}


def test_the_games_say_their_names_in_every_language_and_where_each_spot_sits(tmp_path):
    """The page has no names or arrangement of its own: the registry's, served with each game."""
    with TestClient(create_app(Settings(data_dir=tmp_path, betting_seconds=600))) as client:
        games = {g["code"]: g for g in client.get("/api/games").json()}
    mini = {w["code"]: w for w in games["mini"]["wagers"]}
    assert games["mini"]["names"] == {"zh-CN": "迷你百家乐", "zh-Hant": "迷你百家樂"}
    assert [code for code, _ in sorted(mini.items(), key=lambda item: item[1]["felt"]["order"])] == [
        "dragon_bonus_player", "player", "tie", "banker", "dragon_bonus_banker"]
    assert {code: w["felt"]["side"] for code, w in mini.items()} == {
        "dragon_bonus_player": "player", "player": "player", "tie": "centre", "banker": "banker",
        "dragon_bonus_banker": "banker"}
    assert mini["banker"]["names"] == {"zh-CN": "庄", "zh-Hant": "莊"}
    assert mini["dragon_bonus_player"]["event_names"]["en"]["Win by 1-3"] == "Win by 1 to 3"
    assert mini["dragon_bonus_player"]["event_names"]["zh-CN"]["Natural win"] == "例牌赢"
    lucky = {w["code"]: w for w in games["lucky-draw"]["wagers"]}
    assert lucky["enter"]["event_names"]["zh-CN"]["Player wins"] == "您的牌赢"
    assert lucky["enter"]["event_names"]["zh-Hant"]["Player wins"] == "您的牌贏"
    assert games["lucky-draw"]["names"]["en"] == "Lucky Draw Baccarat"
