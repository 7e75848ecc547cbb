"""The round timeline owned by the server (issue 12): every view, sampled every 50 ms of simulated
time from the close of betting, shows the cards one by one in deal order, the result never before
the last card, the balance, history and roads never ahead of the result, and the next window only
after the results pause; the same for the WebSocket frames and REST views of a live server.  Also:
bets that add up to the maximum, the whole table in view (names, bets, spot totals), seats kept
through a disconnection's grace period and players stood up after sitting out."""

from __future__ import annotations

import itertools
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from baccarat.core.errors import BetLimitError, IllegalActionError
from baccarat.server.house import accounts, wallet
from baccarat.server.live import feed
from baccarat.server.live.leases import TIMEOUT, Leases
from baccarat.server.playing import betting, dealing, game_info, scoreboards, seating, tables, views
from baccarat.server.playing.dealer import Dealer, deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.models import Round, Seat
from baccarat.server.storage.settings import Settings

from ...conftest import api_client, until

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
STEP = timedelta(milliseconds=50)
PHASES = ("betting", "no_more_bets", "dealing", "decisions", "result")


def _table(sessions, game: str, players: tuple[str, ...], **options):
    def work(s):
        table = tables.create_table(s, f"{game}-tl", game, betting_seconds=10, decision_seconds=5, now=T0, **options)
        ids = [accounts.register(s, name, "correct horse", grant=100_000).id for name in players]
        for account_id in ids:
            seating.sit(s, table.id, account_id, now=T0)
        return table.id, ids
    return transaction(sessions, work)


def _bet(sessions, table_id, account_id, bets, at):
    return transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets, now=at))


def _round(sessions, table_id, number) -> Round:
    with sessions() as s:
        return s.scalar(select(Round).where(Round.table_id == table_id, Round.number == number))


def _at(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _sample(sessions, table_id, accounts_, start, end):
    """Every view a client could get, every 50 ms of simulated time from ``start`` to ``end``."""
    samples = []
    moment = start
    while moment <= end:
        with sessions() as s:
            view, state = views.table_view_at(s, table_id, moment)
            samples.append({"now": moment, "view": view, "you": views.yours(s, state, accounts_),
                            "balances": wallet.shown_balances(s, accounts_, moment),
                            "history": {a: scoreboards.recall(s, a, now=moment) for a in accounts_},
                            "roads": scoreboards.table_roads(s, table_id, moment)
                            if view["game"] != "lucky-draw" else None})
        moment += STEP
    return samples


def _check_order(samples, deal: list[dict]) -> None:
    """Cards appear in deal order, each at its moment, never before; phases never go back."""
    shown_before = 0
    phase_index = 0
    for sample in samples:
        phase = sample["view"]["phase"]
        if phase == "betting" and phase_index >= PHASES.index("result"):
            break  # the next round's window
        rank = PHASES.index(phase)
        if phase == "dealing" and phase_index == PHASES.index("decisions"):
            rank = phase_index  # Lucky Draw: the Draw cards and the dealer's after the decisions
        assert rank >= phase_index, (sample["now"], phase)
        phase_index = rank
        cards = sample["view"]["cards"]
        assert [c["card"] for c in cards] == [d["card"] for d in deal[:len(cards)]]  # a prefix of the deal
        assert [c["to"] for c in cards] == [d["to"] for d in deal[:len(cards)]]
        assert len(cards) >= shown_before
        shown_before = len(cards)
        for card in cards:
            assert datetime.fromisoformat(card["at"]) <= sample["now"]
        assert all(datetime.fromisoformat(d["at"]) > sample["now"] for d in deal[len(cards):])


@pytest.mark.slow
def test_a_punto_banco_round_is_shown_card_by_card_then_the_result_then_the_pause(sessions):
    table_id, (ann, ben) = _table(sessions, "mini", ("ann", "ben"))
    closes = _at(_round(sessions, table_id, 1).closes_at)
    _bet(sessions, table_id, ann, {"banker": 1_000, "tie": 200}, closes - timedelta(seconds=2))
    _bet(sessions, table_id, ben, {"banker": 500, "player": 300}, closes - timedelta(seconds=2))
    staked = {ann: 100_000 - 1_200, ben: 100_000 - 800}
    assert deal_due(sessions, now=closes) == 1
    dealt = _round(sessions, table_id, 1)
    deal = json.loads(dealt.result)["deal"]
    result_at, opens_at = _at(dealt.result_at), _at(_round(sessions, table_id, 2).opens_at)
    assert 4 <= len(deal) <= 6
    # the pace: NO MORE BETS 1 s, then a card every 0.6 s, the result a beat after the last card, 4 s of results
    moments = [datetime.fromisoformat(d["at"]) for d in deal]
    assert moments[0] == closes + timedelta(seconds=1)
    assert all(b - a == timedelta(seconds=0.6) for a, b in itertools.pairwise(moments))
    assert result_at == moments[-1] + timedelta(seconds=0.6) and opens_at == result_at + timedelta(seconds=4)
    with sessions() as s:  # the ledger has settled already; what is shown waits for the timeline
        settled = dict(wallet.balances(s, [ann, ben]))
        position = s.connection().execute(views._VIEW_NEWEST_SHOE, {"table": table_id}).first().position

    samples = _sample(sessions, table_id, [ann, ben], closes, opens_at + timedelta(seconds=1))
    _check_order(samples, deal)
    for sample in samples:
        now, view = sample["now"], sample["view"]
        due = now >= result_at
        if not due:
            assert view["result"] is None and view["last_result"] is None  # never before the result
            assert all(you["settlement"] is None for you in sample["you"].values())
            assert sample["balances"] == staked  # the balance waits for the result
            assert all(you["balance"] == staked[a] for a, you in sample["you"].items())
            assert sample["history"] == {ann: [], ben: []}
            assert sample["roads"]["stats"]["hands"] == 0
            assert view["shoe"]["cards_dealt"] == position - len(deal) + len(view["cards"])  # shown cards only
        else:
            if now < opens_at:  # the result only with every card on the table
                assert len(view["cards"]) == len(deal)
                assert view["result"]["round"] == 1
                assert view["result"]["message"].split()[0] in ("Banker", "Player", "Tie")
            assert view["last_result"]["round"] == 1
            assert sample["balances"] == settled
            assert [h["round"] for h in sample["history"][ann]] == [1]
            assert sample["roads"]["stats"]["hands"] == 1
        if now < closes + timedelta(seconds=1):
            assert view["phase"] == "no_more_bets" and view["cards"] == []
        elif now < opens_at:
            assert view["round"] is None and view["next_round"]["number"] == 2  # no window before the pause ends
            assert view["phase"] == ("result" if due else "dealing")
            # nothing tells how many cards are still to come: no end of the deal, no next window, before the result
            assert (view["phase_ends_at"], view["next_round"]["opens_at"]) == (
                (opens_at.isoformat(), opens_at.isoformat()) if due else (None, None))
        else:
            assert view["phase"] == "betting" and view["round"]["number"] == 2
            assert view["cards"] == [] and view["players"]["1"]["bets"] == {}
        if now < opens_at:  # the whole table in view: names, each player's bets, spot totals
            assert view["players"]["1"]["name"] == "ann" and view["players"]["2"]["name"] == "ben"
            assert view["players"]["1"]["bets"] == {"banker": 1_000, "tie": 200}
            assert view["spots"]["banker"] == {"total": 1_500, "players": 2}
            assert view["spots"]["player"] == {"total": 300, "players": 1}
            assert view["spots"]["dragon_bonus_player"] == {"total": 0, "players": 0}
            assert sample["you"][ann]["bets"] == {"banker": 1_000, "tie": 200}
    phases = [s["view"]["phase"] for s in samples]
    assert phases.count("no_more_bets") == 20  # 1 s of NO MORE BETS
    # a bet for the next round is refused until its window opens, saying when
    with pytest.raises(IllegalActionError, match=r"Betting opens in 3 seconds"):
        _bet(sessions, table_id, ann, {"banker": 100}, opens_at - timedelta(seconds=2.5))
    assert _bet(sessions, table_id, ann, {"banker": 100}, opens_at)["round"] == 2


@pytest.mark.slow
def test_a_lucky_draw_round_deals_then_waits_for_decisions_then_finishes(sessions):
    table_id, (ann, ben) = _table(sessions, "lucky-draw", ("ann", "ben"), paytable=2)
    closes = _at(_round(sessions, table_id, 1).closes_at)
    _bet(sessions, table_id, ann, {"enter": 1_000, "block_bonus": 500}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    assert deal_due(sessions, now=closes) == 1
    first = json.loads(_round(sessions, table_id, 1).result)
    assert [d["to"] for d in first["deal"]] == ["seat:1", "seat:2", "dealer", "seat:1", "seat:2"]
    decisions_at = datetime.fromisoformat(first["decisions_at"])
    assert decisions_at == closes + timedelta(seconds=1 + 4 * 0.6 + 0.6)
    with pytest.raises(IllegalActionError, match="still being dealt"):
        transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=decisions_at - STEP))
    with sessions() as s:
        before = wallet.shown_balances(s, [ann], decisions_at - STEP)[ann]
        after = wallet.shown_balances(s, [ann], decisions_at)[ann]
        assert before == 100_000 - 1_500  # Block Bonus is shown with the decisions, not before
        assert after - before in (0, 500 + 500 * 2, 500 + 500 * 5, 500 + 500 * 10, 500 + 500 * 35)
        view = views.table_view(s, table_id, decisions_at)
        assert view["phase"] == "decisions" and view["decision"]["first_deal"]["dealer"] == [first["deal"][2]["card"]]
        assert view["decision"]["decides_at"] == (decisions_at + timedelta(seconds=5)).isoformat()
        assert view["players"]["1"]["results"] is None or set(view["players"]["1"]["results"]) == {"block_bonus"}
    decided = decisions_at + timedelta(seconds=1)
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=decided))
    transaction(sessions, lambda s: dealing.decide(s, table_id, ben, "stand", now=decided))
    assert deal_due(sessions, now=decided) == 1  # all in: finished at once
    finished = _round(sessions, table_id, 1)
    deal = json.loads(finished.result)["deal"]
    assert deal[:5] == first["deal"]  # the first deal keeps its moments
    later_cards = [datetime.fromisoformat(d["at"]) for d in deal[5:]]
    assert later_cards[0] == decided + timedelta(seconds=0.6)
    assert [d["to"] for d in deal[5:]][:2] == ["seat:1", "dealer"]  # ann's Draw card, then the dealer's cards
    result_at, opens_at = _at(finished.result_at), _at(_round(sessions, table_id, 2).opens_at)
    assert result_at == later_cards[-1] + timedelta(seconds=0.6)
    samples = _sample(sessions, table_id, [ann, ben], closes, opens_at + timedelta(seconds=0.5))
    _check_order(samples, deal)
    phases = []
    for sample in samples:
        view = sample["view"]
        phases.append(view["phase"])
        if sample["now"] < result_at:
            assert view["result"] is None and sample["history"][ann] == []
        elif sample["now"] < opens_at:
            assert len(view["cards"]) == len(deal)
            words = sample["history"][ann][0]["result_message"]  # from ann's side
            assert words.split()[0] in ("You", "Dealer", "Push"), words
            seats = view["result"]["seats"]
            assert seats["1"]["name"] == "ann" and seats["2"]["name"] == "ben"
            assert all(seat["winner"] in ("player", "dealer", "tie") for seat in seats.values())
        if decisions_at <= sample["now"] < decided:
            assert view["phase"] == "decisions"
    assert [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p] == [
        "no_more_bets", "dealing", "decisions", "dealing", "result", "betting"]


def test_a_table_closed_during_the_reveal_shows_the_round_to_its_end_then_closed(sessions):
    table_id, (ann,) = _table(sessions, "ez", ("ann",))
    closes = _at(_round(sessions, table_id, 1).closes_at)
    _bet(sessions, table_id, ann, {"player": 100}, closes - timedelta(seconds=1))
    deal_due(sessions, now=closes)
    transaction(sessions, lambda s: tables.close_table(s, table_id, now=closes + timedelta(seconds=1.5)))
    dealt = _round(sessions, table_id, 1)
    result_at = _at(dealt.result_at)
    with sessions() as s:
        during = views.table_view(s, table_id, closes + timedelta(seconds=2))
        shown = views.table_view(s, table_id, result_at)
        after = views.table_view(s, table_id, result_at + timedelta(seconds=4))
    assert during["phase"] == "dealing" and during["round_number"] == 1 and during["result"] is None
    assert shown["phase"] == "result" and shown["result"]["round"] == 1
    assert after["phase"] == "closed" and after["status"] == "closed" and after["round"] is None


def test_two_bets_on_one_spot_add_up_and_the_maximum_names_the_room_left(sessions):
    table_id, (ann, ben) = _table(sessions, "ez", ("ann", "ben"))
    closes = _at(_round(sessions, table_id, 1).closes_at)
    at = closes - timedelta(seconds=5)
    assert _bet(sessions, table_id, ann, {"banker": 500, "tie": 100}, at)["bets"] == {"banker": 500, "tie": 100}
    answer = _bet(sessions, table_id, ann, {"banker": 500}, at)
    assert answer["bets"] == {"banker": 1_000, "tie": 100} and answer["added"] == {"banker": 500}
    assert answer["balance"] == 100_000 - 1_100
    with pytest.raises(BetLimitError, match=r"The most you can add on Banker is 15\.00"):
        _bet(sessions, table_id, ann, {"banker": 2_000}, at)  # EZ: 25.00 a wager
    with pytest.raises(BetLimitError, match=r"The most you can add on Banker is 15\.00"):
        _bet(sessions, table_id, ann, {"banker": 1_600, "player": 100}, at)  # all or nothing
    _bet(sessions, table_id, ben, {"banker": 2_500}, at)
    with pytest.raises(BetLimitError, match=r"Banker is at its maximum of 25\.00"):
        _bet(sessions, table_id, ben, {"banker": 100}, at)
    with sessions() as s:  # nothing changed by the refusals
        assert wallet.balance(s, ann) == 100_000 - 1_100 and wallet.balance(s, ben) == 100_000 - 2_500
        view = views.table_view(s, table_id, at)
        assert view["players"]["1"]["bets"] == {"banker": 1_000, "tie": 100}
        assert view["spots"]["banker"] == {"total": 3_500, "players": 2}
        assert view["spots"]["player"] == {"total": 0, "players": 0}
    deal_due(sessions, now=closes)
    with sessions() as s:
        history = scoreboards.recall(s, ann, now=closes + timedelta(minutes=1))
        assert history[0]["bets"]["banker"]["amount"] == 1_000  # one bet, raised
        assert history[0]["balance_before"] == 100_000


def test_a_disconnected_player_keeps_the_seat_for_the_grace_period(sessions):
    table_id, (ann, ben) = _table(sessions, "ez", ("ann", "ben"))
    dealer = Dealer(sessions, seat_grace=60)
    transaction(sessions, lambda s: seating.mark_away(s, table_id, ann, T0))
    assert dealer.free_seats(T0 + timedelta(seconds=59)) == 0
    transaction(sessions, lambda s: seating.mark_back(s, table_id, ann))  # back in time: the seat is theirs
    assert dealer.free_seats(T0 + timedelta(seconds=120)) == 0
    # away with a bet in play: the seat waits for the round
    closes = _at(_round(sessions, table_id, 1).closes_at)
    _bet(sessions, table_id, ann, {"banker": 100}, closes - timedelta(seconds=1))
    away = closes - timedelta(seconds=1)
    transaction(sessions, lambda s: seating.mark_away(s, table_id, ann, away))
    transaction(sessions, lambda s: seating.mark_away(s, table_id, ben, away))
    with sessions() as s:
        assert views.table_view(s, table_id, away)["players"]["1"]["away"] is True
    assert dealer.free_seats(closes - timedelta(seconds=0.5)) == 0
    late = away + timedelta(seconds=61)
    assert dealer.deal_due(now=late) == 1  # ben's seat is freed; ann's waits for her bet's round
    with sessions() as s:
        assert {seat.account_id for seat in s.scalars(select(Seat))} == {ann}
    assert dealer.deal_due(now=late + timedelta(seconds=1)) == 0  # the round is settled now: ann's seat goes too
    with sessions() as s:
        assert s.scalars(select(Seat)).all() == []
        view = views.table_view(s, table_id, late + timedelta(seconds=2))
        texts = [a["text"] for a in view["announcements"] if a["kind"] == "seat_freed"]
        assert texts == ["Seat 2 is free: ben was away for more than 60 seconds.",
                         "Seat 1 is free: ann was away for more than 60 seconds."]
        assert view["seats"] == {} and view["players"] == {}


def test_a_page_back_at_another_process_is_not_marked_away_by_the_process_it_left(sessions, ticks):
    """A rolling restart closes a socket with 1012 and the page reconnects at once, maybe to another process,
    whose mark_back can come before the old process's mark_away: the player's live socket there keeps the
    seat theirs.  Only a live lease counts, and only at this table."""
    table_id, (ann,) = _table(sessions, "ez", ("ann",))
    ticks.value = 9000.0
    left, other = (Leases(sessions, process=name, clock=ticks) for name in ("left", "other"))
    left.give_back(left.take(ann, table_id, most=8))  # the socket the restart closed
    elsewhere = left.process, left.alive_since()

    def away() -> bool:
        with sessions() as s:
            return bool(views.table_view(s, table_id, T0)["players"]["1"]["away"])

    assert other.take(ann, table_id + 1, most=8) is not None  # a socket at another table keeps nothing here
    transaction(sessions, lambda s: seating.mark_away(s, table_id, ann, T0, elsewhere=elsewhere))
    assert away()
    transaction(sessions, lambda s: seating.mark_back(s, table_id, ann))
    assert other.take(ann, table_id, most=8) is not None  # the page, back at the other process
    transaction(sessions, lambda s: seating.mark_away(s, table_id, ann, T0, elsewhere=elsewhere))
    assert not away()
    ticks.advance(TIMEOUT + 1)  # the other process died without giving its lease back: it no longer counts
    transaction(sessions, lambda s: seating.mark_away(s, table_id, ann, T0,
                                                      elsewhere=(left.process, left.alive_since())))
    assert away()


def test_a_player_who_sits_out_five_dealt_rounds_is_stood_up(sessions):
    table_id, (ann, ben) = _table(sessions, "ez", ("ann", "ben"), pace=Pace(0, 0, 0))
    for number in range(1, 6):
        closes = _at(_round(sessions, table_id, number).closes_at)
        _bet(sessions, table_id, ann, {"player": 100}, closes - timedelta(seconds=1))
        assert deal_due(sessions, now=closes) == 1
        with sessions() as s:
            seated = {seat.account_id for seat in s.scalars(select(Seat))}
        assert seated == ({ann, ben} if number < 5 else {ann})
    with sessions() as s:
        view = views.table_view(s, table_id, closes + timedelta(seconds=1))
        assert view["announcements"][-1]["kind"] == "stood_up"
        assert view["announcements"][-1]["text"] == "ben was stood up from seat 2 after sitting out 5 rounds."
        assert [a["kind"] for a in view["announcements"]] == ["seated", "seated", "stood_up"]


def test_rounds_nobody_bet_on_count_as_sat_out(sessions):
    """A round nobody bets on is never dealt, but its betting window went by: it counts (it once did not,
    and players who sat down and never bet held a table full for good; tests/server/playing/test_seating.py)."""
    table_id, (ann,) = _table(sessions, "ez", ("ann",))
    for window in range(1, 6):
        closes = _at(_round(sessions, table_id, 1).closes_at)
        deal_due(sessions, now=closes)  # an unwatched table deals nothing: round 1 takes bets again at once
        with sessions() as s:
            assert (s.scalar(select(Seat.account_id)) == ann) == (window < 5), window


def test_the_games_catalogue_names_every_wager_with_its_pays(sessions):
    catalogue = {(g["code"], g["paytable"]): g for g in game_info.games_json()}
    assert set(catalogue) == {("mini", None), ("ez", None), ("lucky-draw", 1), ("lucky-draw", 2)}
    mini = {w["code"]: w for w in catalogue[("mini", None)]["wagers"]}
    assert mini["banker"]["summary"] == "0.95:1" and mini["tie"]["summary"] == "8:1"
    assert mini["dragon_bonus_banker"]["name"] == "Dragon Bonus on Banker"
    assert mini["dragon_bonus_banker"]["summary"] == "up to 30:1"
    ez = {w["code"]: w for w in catalogue[("ez", None)]["wagers"]}
    assert ez["dragon_7"]["summary"] == "40:1" and ez["panda_8"]["summary"] == "25:1"
    assert {"event": "Dragon 7 (Banker pushes)", "odds": "0", "label": "push", "rule": None} in ez["banker"]["pays"]
    assert ez["banker"]["maximum"] == 2_500
    for paytable, lucky_7 in ((1, "2:1"), (2, "3:2")):
        draw = {w["code"]: w for w in catalogue[("lucky-draw", paytable)]["wagers"]}["draw"]
        pays = {p["event"]: p["label"] for p in draw["pays"]}
        assert pays["Lucky 9 (3-card 9)"] == "3:1" and pays["Lucky 7 (3-card 7)"] == lucky_7
    block = {w["code"]: w for w in catalogue[("lucky-draw", 1)]["wagers"]}["block_bonus"]
    assert [p["label"] for p in block["pays"]] == ["35:1", "10:1", "5:1", "2:1", "loses"]
    table_id, _ = _table(sessions, "lucky-draw", (), paytable=2)
    with sessions() as s:
        view = views.table_view(s, table_id, T0)
    assert view["wagers"] == catalogue[("lucky-draw", 2)]["wagers"]  # the table's own pay table


# --- a live server: WebSocket frames and REST views on the real clock -------------------------------------------


@pytest.fixture
def client(tmp_path: Path, database_url: str):
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600)
    yield from api_client(settings)


def _token(client: TestClient, name: str) -> str:
    client.post("/api/accounts", json={"username": name, "password": "correct horse"})
    return client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]


@pytest.mark.slow
def test_websocket_frames_and_rest_views_follow_the_timeline(client):
    # The accounts first (hashing their passwords is slow on a loaded machine), then the table, whose
    # first window opens as it is made: the seats, the socket and both bets must come within it.
    tokens = {name: _token(client, name) for name in ("zoe", "yan")}
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        table_id = transaction(sessions, lambda s: tables.create_table(
            s, "paced", "ez", betting_seconds=2.5, pace=Pace(0.4, 0.3, 1.0)).id)
    auth = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}
    for name in tokens:
        assert client.post(f"/api/tables/{table_id}/seats", json={}, headers=auth[name]).status_code == 201
    with client.websocket_connect(f"/ws/tables/{table_id}") as socket:
        socket.send_json({"type": "auth", "token": tokens["zoe"]})
        first = socket.receive_json()
        assert first["table"]["phase"] == "betting"
        number = first["table"]["round"]["number"]
        socket.send_json({"type": "bet", "key": "paced-0001", "bets": {"banker": 1_000}, "round": number})
        placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 500, "tie": 100}},
                             headers={**auth["yan"], "Idempotency-Key": "paced-0002"})
        assert placed.status_code == 201, placed.text
        frames, rest = [], []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            frame = socket.receive_json()
            if frame["type"] != "state":
                continue
            frames.append(frame)
            rest.append((client.get(f"/api/tables/{table_id}").json(),
                         client.get("/api/me", headers=auth["yan"]).json()["balance"],
                         client.get("/api/history", headers=auth["yan"]).json()))
            table = frame["table"]
            if table["phase"] == "betting" and table["round"]["number"] > number:
                break
    played = [f for f in frames if f["table"]["round_number"] == number]
    assert [f["table"]["phase"] for f in frames][-1] == "betting"
    deal = None
    for frame in played:
        table, you = frame["table"], frame["you"]
        assert you["balance"] in (100_000 - 1_000, None) or table["result"] is not None
        if table["result"] is not None:
            deal = deal or table["cards"]
            assert table["cards"] == deal  # the whole deal, with the result
    assert deal is not None and 4 <= len(deal) <= 6
    result_at = datetime.fromisoformat(next(f["table"]["result"]["at"] for f in played if f["table"]["result"]))
    for frame in played:
        table = frame["table"]
        assert table["cards"] == deal[:len(table["cards"])]  # in deal order, one by one
        assert (table["result"] is None) == (datetime.fromisoformat(table["server_time"]) < result_at)
    counts = [len(f["table"]["cards"]) for f in played]
    assert counts == sorted(counts) and len(set(counts)) >= 4  # the cards came one frame at a time
    nxt = frames[-1]["table"]
    assert datetime.fromisoformat(nxt["server_time"]) >= result_at + timedelta(seconds=1.0)  # after the pause
    for view, balance, history in rest:  # the REST views at the same moments keep to the same timeline
        now = datetime.fromisoformat(view["server_time"])
        if view["round_number"] == number and now < result_at:
            assert view["result"] is None and view["cards"] == deal[:len(view["cards"])]
            assert balance == 100_000 - 600 and history == []
            assert view["spots"]["banker"] == {"total": 1_500, "players": 2}
            assert view["players"]["1"]["name"] == "zoe" and view["players"]["2"]["bets"] == {"banker": 500, "tie": 100}
        if now >= result_at:
            assert [h["round"] for h in history] == [number]
            assert balance == history[0]["balance_after"]


def test_closing_every_socket_starts_the_grace_period_and_reconnecting_ends_it(manual_time, client):
    token = _token(client, "wes")
    headers = {"Authorization": f"Bearer {token}"}
    client.post("/api/tables/2/seats", json={}, headers=headers)

    def away() -> bool:
        with connect(client.settings.url) as sessions, sessions() as s:  # type: ignore[attr-defined]
            return s.scalar(select(Seat.away_since)) is not None

    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"
        assert not away()
    until(away)  # written on a thread of the app's as the socket's handler ended
    assert client.get("/api/tables/2").json()["players"]["1"]["away"] is True
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        assert socket.receive_json()["type"] == "state"
        assert not away()
        # the close of an earlier socket written late, after this one joined: the feed puts it right
        with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
            account = transaction(sessions, lambda s: s.scalar(select(Seat.account_id)))
            # read back in the same transaction: on PostgreSQL the feed may put it right before a later read
            marked = transaction(sessions, lambda s: (seating.mark_away(s, 2, account),
                                                      s.scalar(select(Seat.away_since)))[1])
        assert marked is not None and away()
        manual_time.advance(feed.RESYNC)  # the table's feed reads the seats again
        assert not away()


def test_refusals_carry_a_message_in_words(client):
    token = _token(client, "val")
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "words-0001"}
    client.post("/api/tables/2/seats", json={}, headers=headers)
    assert client.post("/api/tables/2/bets", json={"bets": {"banker": 1_000}}, headers=headers).status_code == 201
    over = client.post("/api/tables/2/bets", json={"bets": {"banker": 2_000}},
                       headers={**headers, "Idempotency-Key": "words-0002"})
    assert over.status_code == 409 and over.json()["error"] == "BetLimitError"
    assert over.json()["code"] == "bet.room_left"
    assert over.json()["params"] == {"wager": "banker", "amount": 1_500, "maximum": 2_500}
    assert over.json()["message"] == over.json()["detail"] == (
        "The most you can add on Banker is 15.00 (its maximum is 25.00): bet less.")
    short = client.post("/api/accounts", json={"username": "ursula", "password": "short"})
    assert short.status_code == 422 and "password" in short.json()["message"]
    assert isinstance(short.json()["detail"], list)  # the codes and details stay as they were
    with client.websocket_connect("/ws/tables/2") as socket:
        socket.send_json({"type": "auth", "token": token})
        socket.receive_json()
        socket.send_json({"type": "bet", "key": "words-0003", "bets": {"banker": 2_000}})
        answer = socket.receive_json()
        while answer["type"] == "state":
            answer = socket.receive_json()
        assert answer == {"type": "error", "error": "BetLimitError", "code": "bet.room_left",
                          "params": {"wager": "banker", "amount": 1_500, "maximum": 2_500},
                          "detail": "The most you can add on Banker is 15.00 (its maximum is 25.00): bet less.",
                          "message": "The most you can add on Banker is 15.00 (its maximum is 25.00): bet less."}


@pytest.mark.slow
def test_sockets_joining_a_table_at_once_share_one_feed(client, monkeypatch):
    """Every socket of a table is fed by one poller (a socket that awaited anything between finding
    the feed and joining it once made a poller of its own: ten sockets, ten times the reads)."""
    from contextlib import ExitStack

    from baccarat.server.live import sockets as live

    made: list[int] = []
    original = live.TableFeed.__init__

    def counting(self, sessions, table_id, **options):  # type: ignore[no-untyped-def]
        made.append(table_id)
        original(self, sessions, table_id, **options)

    monkeypatch.setattr(live.TableFeed, "__init__", counting)
    slow_back = seating.mark_back

    def mark_back(s, table_id, account_id):  # type: ignore[no-untyped-def]
        time.sleep(0.2)  # a slow write as a socket joins: the other sockets arrive meanwhile
        slow_back(s, table_id, account_id)

    monkeypatch.setattr(seating, "mark_back", mark_back)
    tokens = [_token(client, f"crowd{n}") for n in range(6)]
    for token in tokens:
        client.post("/api/tables/2/seats", json={}, headers={"Authorization": f"Bearer {token}"})
    with ExitStack() as stack:
        sockets = [stack.enter_context(client.websocket_connect("/ws/tables/2")) for _ in tokens]
        for socket, token in zip(sockets, tokens, strict=True):
            socket.send_json({"type": "auth", "token": token})  # all at once, before any answer is read
        for socket in sockets:
            assert socket.receive_json()["type"] == "state"
        assert made == [2]


@pytest.mark.slow
def test_a_dealt_round_s_moments_are_read_ahead_and_published_at_their_moment_never_before(client, monkeypatch):
    """The feed reads a dealt round's next card and its result shortly before their moments (every socket's
    frame made then) and publishes each at its moment: a crowd's pushes start at the moment, not after the
    reads; nothing is published early."""
    from baccarat.server.storage.models import now

    reads: list[tuple[datetime, datetime | None]] = []  # (when the read was made, the moment it was for)
    published: list[tuple[datetime, dict]] = []  # (when the sockets were woken, the view they were given)
    read, wake = feed.TableFeed._read, feed.TableFeed._wake

    def reading(self, accounts_, digests, at):  # type: ignore[no-untyped-def]
        reads.append((now(), at))
        return read(self, accounts_, digests, at)

    async def waking(self):  # type: ignore[no-untyped-def]
        published.append((now(), self.view))
        await wake(self)

    monkeypatch.setattr(feed.TableFeed, "_read", reading)
    monkeypatch.setattr(feed.TableFeed, "_wake", waking)
    token = _token(client, "ahead")  # before the table: its first window opens as it is made
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        table_id = transaction(sessions, lambda s: tables.create_table(
            s, "ahead", "mini", betting_seconds=3.0, pace=Pace(0.4, 0.4, 1.0)).id)  # room for the bet on a busy machine
    with client.websocket_connect(f"/ws/tables/{table_id}") as socket:
        socket.send_json({"type": "auth", "token": token})
        number = socket.receive_json()["table"]["round"]["number"]
        socket.send_json({"type": "bet", "key": "ahead-0001", "bets": {"player": 1_000}, "round": number})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            frame = socket.receive_json()
            assert frame["type"] != "error", frame  # the bet refused: nothing below would be about a bettor
            if frame["type"] == "state" and frame["table"]["round_number"] == number and frame["table"]["result"]:
                assert frame["you"]["settlement"] is not None  # the bettor's own state made with the view
                break
    deal = frame["table"]["cards"]
    result_at = datetime.fromisoformat(frame["table"]["result"]["at"])
    moments = {datetime.fromisoformat(card["at"]) for card in deal[1:]} | {result_at}
    ahead = [(made, at) for made, at in reads if at is not None]
    assert ahead and all(made < at for made, at in ahead)  # each read made before the moment it was for
    assert len(moments & {at for _, at in ahead}) >= len(moments) - 1  # (one may fall to a poll instead)
    for woken, view in published:  # never a card or a result before its moment
        assert all(datetime.fromisoformat(card["at"]) <= woken for card in view["cards"])
        assert view["result"] is None or datetime.fromisoformat(view["result"]["at"]) <= woken
        assert datetime.fromisoformat(view["server_time"]) <= woken
