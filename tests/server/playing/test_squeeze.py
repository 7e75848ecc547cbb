"""The squeeze (issue 31 item 11): at a squeeze table the largest stake on Player and the largest on Banker
(a tie: the earlier bet) each peel their side's cards face down; the dealer turns a card at the squeeze time.
Every view a client could get (table view, each player's state, balances, history, roads), sampled every
50 ms of simulated time, shows a card's face only from the moment it is turned, and the result only after
the last; the squeezers' peels and early turns move the timeline for every view alike; the WebSocket frames
of a live server keep to it too."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from baccarat.core import card_face
from baccarat.core.cards import Card
from baccarat.core.errors import BaccaratError, ConfigurationError
from baccarat.core.events import CardDealt
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, scoreboards, squeeze, tables, views
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import connect, transaction
from baccarat.server.storage.models import Announcement, GameTable, Round
from baccarat.server.storage.settings import Settings

from ...conftest import api_client
from ...core.test_card_face import SIDES

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
STEP = timedelta(milliseconds=50)
SQUEEZE = 6.0
PACE = Pace(1.0, 0.6, 4.0)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _setup(sessions, names=("alice", "bob", "carol", "dave"), seconds: float = SQUEEZE):
    def work(s):
        table = tables.create_table(s, "squeeze-t", "mini", betting_seconds=10, pace=PACE, squeeze_seconds=seconds,
                                    now=T0)
        return table.id, [accounts.register(s, name, "correct horse", grant=100_000).id for name in names]
    return transaction(sessions, work)


def _bet(sessions, table_id, account_id, bets, at):
    transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets, now=at))


def _round(sessions, table_id, number) -> Round:
    with sessions() as s:
        found = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == number))
        assert found is not None
        return found


def _deal(sessions, table_id, number) -> tuple[Round, datetime]:
    current = _round(sessions, table_id, number)
    closes = _aware(current.closes_at)
    transaction(sessions, lambda s: dealing.deal_round(s, current.id, closes))
    return _round(sessions, table_id, number), closes


def _stored(sessions, table_id, number) -> tuple[list[dict], datetime]:
    current = _round(sessions, table_id, number)
    assert current.result_at is not None
    return json.loads(current.result or "{}")["deal"], _aware(current.result_at)


def _sample(sessions, table_id, ids, moment):
    with sessions() as s:
        view, state = views.table_view_at(s, table_id, moment)
        return {"now": moment, "view": view, "you": views.yours(s, state, ids),
                "balances": wallet.shown_balances(s, ids, moment),
                "history": {a: scoreboards.recall(s, a, now=moment) for a in ids},
                "roads": scoreboards.table_roads(s, table_id, moment)}


def _run(sessions, table_id, ids, start, end, actions=()):
    """Samples every 50 ms from ``start`` to ``end``; ``actions``: (moment, account, kind, card, lift) done as
    the clock passes them (a refusal is kept as its code); a lift given as (lift, edge) is lifted from that edge."""
    samples, done = [], []
    pending = sorted(actions, key=lambda a: a[0])
    moment = start
    while moment <= end:
        while pending and pending[0][0] <= moment:
            at, account, kind, card, lift = pending.pop(0)
            try:
                def act(s, account=account, card=card, lift=lift, at=at, kind=kind):
                    if kind == "turn":
                        return squeeze.turn(s, table_id, account, card, at)
                    height, edge = lift if isinstance(lift, tuple) else (lift, "corner")
                    return squeeze.peel(s, table_id, account, card, height, at, edge)
                answer = transaction(sessions, act)
                done.append((at, kind, answer))
            except BaccaratError as error:
                done.append((at, kind, error.code))
        samples.append(_sample(sessions, table_id, ids, moment))
        moment += STEP
    return samples, done


def _check_no_face_early(samples, deal, result_at, ids, staked):
    """``deal`` holds the moments the cards were really turned (the stored deal after every squeeze)."""
    faces = [d["card"] for d in deal]
    for sample in samples:
        now, view = sample["now"], sample["view"]
        if view["round_number"] != 1:
            continue
        turned = [d for d in deal if datetime.fromisoformat(d["at"]) <= now]
        assert [c["card"] for c in view["cards"]] == [d["card"] for d in turned], now  # each face at its turn
        codes = {c for hand in view["hands"].values() for c in hand["cards"]}
        assert codes <= {d["card"] for d in turned}
        squeezed = view["squeeze"]
        assert squeezed is not None and all(set(c) == {"index", "to", "by", "down_at", "turns_at",
                                                                    "squeezed_from", "lift", "edge", "shows"}
                                            for c in squeezed["cards"])
        for c in squeezed["cards"]:  # of a face, only what its lift uncovers
            face = Card.parse(deal[c["index"]]["card"])
            assert c["shows"] == card_face.shows(face, c["edge"], c["lift"]), (now, c)
            assert {tuple(p) for p in c["shows"]["pips"]} <= set(card_face.PIPS.get(face.rank, ()))
            if c["lift"] == 0:
                assert c["shows"] == card_face.nothing()
        down = [i for i, d in enumerate(deal)
                if datetime.fromisoformat(d["down"]) <= now < datetime.fromisoformat(d["at"])]
        assert [c["index"] for c in squeezed["cards"]] == down, now
        if now < result_at:
            assert view["result"] is None and view["last_result"] is None, now
            assert all(you["settlement"] is None for you in sample["you"].values())
            assert sample["balances"] == staked and sample["history"] == {a: [] for a in ids}
            assert sample["roads"]["stats"]["hands"] == 0
        else:
            assert view["result"] is not None and [c["card"] for c in view["cards"]] == faces
    assert any(s["view"]["squeeze"]["cards"] for s in samples)


@pytest.mark.slow
def test_two_squeezers_and_a_watcher_see_no_face_before_it_is_turned(sessions):
    table_id, (alice, bob, carol, dave) = _setup(sessions)
    _bet(sessions, table_id, alice, {"player": 1_000}, T0 + timedelta(seconds=1))
    _bet(sessions, table_id, carol, {"player": 1_000, "banker": 500}, T0 + timedelta(seconds=2))  # a tie: alice first
    _bet(sessions, table_id, bob, {"banker": 2_000}, T0 + timedelta(seconds=3))
    _, closes = _deal(sessions, table_id, 1)
    current = _round(sessions, table_id, 1)
    assert json.loads(current.squeeze or "{}")["player"]["name"] == "alice"
    assert json.loads(current.squeeze or "{}")["banker"]["name"] == "bob"
    planned, _ = _stored(sessions, table_id, 1)
    start = closes + timedelta(seconds=PACE.no_more_bets)
    assert [d["by"] for d in planned[:4]] == ["alice", "bob", "alice", "bob"]
    assert datetime.fromisoformat(planned[0]["at"]) == start + timedelta(seconds=4 * PACE.card + SQUEEZE)
    first = datetime.fromisoformat(planned[0]["at"])
    second_down = first - timedelta(seconds=3)  # the second card's squeeze begins when alice turns the first
    actions = [
        (start + timedelta(seconds=1), alice, "squeeze", 0, 0.3),  # before the four cards are down: refused
        (first - timedelta(seconds=4), alice, "squeeze", 0, 0.4),
        (first - timedelta(seconds=3.9), dave, "squeeze", 0, 0.5),  # the watcher
        (first - timedelta(seconds=3.8), carol, "turn", 0, None),  # the other Player bettor
        (first - timedelta(seconds=3.7), bob, "turn", 0, None),  # the Banker's squeezer, on a Player card
        (first - timedelta(seconds=3.6), alice, "squeeze", 0, 1.7),  # no such lift
        (first - timedelta(seconds=3.55), alice, "squeeze", 0, (0.5, "top")),  # no such edge
        (first - timedelta(seconds=3.5), alice, "squeeze", 1, 0.5),  # not the card being squeezed
        (first - timedelta(seconds=3), alice, "turn", 0, None),  # turned 3 s early
        (second_down, bob, "squeeze", 1, (0.35, "long")),  # the sides
        (second_down + timedelta(seconds=1), bob, "squeeze", 1, 1.0),  # a full peel turns it
    ]
    staked = {alice: 99_000, bob: 98_000, carol: 98_500, dave: 100_000}
    samples, done = _run(sessions, table_id, [alice, bob, carol, dave], closes - timedelta(seconds=0.5),
                         first + timedelta(seconds=40), actions)
    codes = [answer for _, _, answer in done]
    assert codes[:8] == ["squeeze.not_now", {"card": 0, "lift": 0.4, "edge": "corner"}, "squeeze.not_yours",
                         "squeeze.not_yours", "squeeze.not_yours", "squeeze.lift", "squeeze.edge", "squeeze.not_now"]
    assert codes[8] == {"card": 0, "lift": 1.0, "edge": "corner"}
    assert codes[9] == {"card": 1, "lift": 0.35, "edge": "long"}
    assert codes[10] == {"card": 1, "lift": 1.0, "edge": "corner"}
    deal, result_at = _stored(sessions, table_id, 1)
    assert datetime.fromisoformat(deal[0]["at"]) == first - timedelta(seconds=3)  # turned when alice turned it
    assert datetime.fromisoformat(deal[1]["at"]) == first - timedelta(seconds=3) + timedelta(seconds=1)
    assert datetime.fromisoformat(deal[2]["at"]) == datetime.fromisoformat(deal[1]["at"]) + timedelta(seconds=SQUEEZE)
    assert result_at == datetime.fromisoformat(deal[-1]["at"]) + timedelta(seconds=PACE.card)
    _check_no_face_early(samples, deal, result_at, [alice, bob, carol, dave], staked)
    # everyone saw alice's corner lift, on the card being squeezed only: the index first
    lifted = [s for s in samples if any(c["lift"] == 0.4 for c in s["view"]["squeeze"]["cards"])]
    assert lifted and all(s["view"]["squeeze"]["cards"][0]["index"] == 0 for s in lifted)
    assert all(s["view"]["squeeze"]["cards"][0]["shows"]["index"] == deal[0]["card"][0] for s in lifted)
    # and bob's card lifted from its long edge: the sides a squeezer counts (2: a 4 or 5; 3: 6 to 8; 4: 9 or 10)
    sides = [c for s in samples for c in s["view"]["squeeze"]["cards"] if c["index"] == 1 and c["lift"] == 0.35]
    rank = deal[1]["card"][0]
    assert sides and all(c["edge"] == "long" and c["shows"]["index"] is None for c in sides)
    assert all(len(c["shows"]["pips"]) == SIDES.get(rank, 0) and c["shows"]["court"] == (rank in "JQK") for c in sides)
    assert all(s["view"]["squeeze"]["squeezers"] == {"player": "alice", "banker": "bob"}
               for s in samples if s["view"]["squeeze"]["cards"])
    # the table news says who squeezes
    words = {a["text"] for s in samples for a in s["view"]["announcements"]}
    assert {"alice squeezes the Player's cards.", "bob squeezes the Banker's cards."} <= words
    # the next window opens the results pause after the (earlier) result
    upcoming = _round(sessions, table_id, 2)
    assert _aware(upcoming.opens_at) == result_at + timedelta(seconds=PACE.results)


def test_staff_learn_no_result_before_the_table_shows_it(sessions):
    """The rerun's insider attack: while a round is squeezed (settled when dealt, its cards face down), a player's
    statement read by a cashier or pit boss named the settlement's event, net and balance, and the console's and
    the reports' win moved at the deal.  Now the statement, the balance staff read and every report count the
    settlement only once the table shows the result."""
    from baccarat.server.operator import lookup, reports

    table_id, (alice, bob) = _setup(sessions, ("alice", "bob"))
    _bet(sessions, table_id, alice, {"banker": 1_000}, T0 + timedelta(seconds=1))
    _bet(sessions, table_id, bob, {"player": 1_000}, T0 + timedelta(seconds=2))
    _deal(sessions, table_id, 1)
    _, result_at = _stored(sessions, table_id, 1)
    during, after = result_at - timedelta(seconds=1), result_at + timedelta(seconds=1)
    with sessions() as s:
        listed = {found["id"]: found["balance"] for found in lookup.find_players(s, "", now=during)}
        assert listed[alice] == listed[bob] == 99_000  # the player list: the balances shown, not the settled ones
        for account in (alice, bob):
            seen = lookup.player(s, account, now=during)
            assert seen["balance"] == 99_000 and [line["kind"] for line in seen["statement"]] == ["stake", "grant"]
            assert seen["statement"][0]["bets"][0]["event"] is None and seen["statement"][0]["balance"] == 99_000
        day = datetime.now(UTC).date()  # the reports' day is the movement's, written on the wall clock
        assert reports.day_by_table(s, day, now=during) == {}
        assert reports.tables_report(s, day, day, now=during)["total"]["win"] == 0
        assert reports.wagers_report(s, day, day, now=during)["rows"] == []
        shown = [lookup.player(s, account, now=after) for account in (alice, bob)]
        # the winner's (both, at a tie: the bets push) settlement is on their statement, with their balance
        assert any(record["statement"][0]["kind"] == "settle" and record["balance"] > 99_000 for record in shown)
        assert reports.day_by_table(s, day, now=after)[table_id]["bets"] == 2


@pytest.mark.slow
def test_a_squeezer_who_does_nothing_gets_the_dealer_s_turn_at_the_squeeze_time(sessions):
    table_id, (alice, bob) = _setup(sessions, ("alice", "bob"))
    _bet(sessions, table_id, alice, {"player": 1_000}, T0 + timedelta(seconds=1))
    _, closes = _deal(sessions, table_id, 1)
    deal, result_at = _stored(sessions, table_id, 1)
    start = closes + timedelta(seconds=PACE.no_more_bets)
    moment = start + timedelta(seconds=4 * PACE.card)
    for card in deal:  # nobody bet Banker: the dealer turns those after one beat; alice's at the squeeze time
        down = datetime.fromisoformat(card["down"])
        moment = max(moment, down)
        moment += timedelta(seconds=SQUEEZE if card["to"] == "player" else PACE.card)
        assert datetime.fromisoformat(card["at"]) == moment
        assert card["by"] == ("alice" if card["to"] == "player" else None)
    samples, _ = _run(sessions, table_id, [alice, bob], closes, result_at + timedelta(seconds=1))
    _check_no_face_early(samples, deal, result_at, [alice, bob], {alice: 99_000, bob: 100_000})


def test_third_cards_are_put_down_after_the_turn_before_and_squeezed():
    events = [CardDealt(1, to, Card.parse(code), "")
              for to, code in (("player", "2c"), ("banker", "3d"), ("player", "Kh"), ("banker", "Ts"),
                               ("player", "4h"), ("banker", "5s"))]
    start = T0
    chosen = {"player": {"account": 1, "name": "alice"}, "banker": {"account": 2, "name": "bob"}}
    deal = squeeze.schedule(events, start, 0.5, 6.0, chosen)
    at = [datetime.fromisoformat(d["at"]) for d in deal]
    down = [datetime.fromisoformat(d["down"]) for d in deal]
    assert down[:4] == [T0 + timedelta(seconds=0.5 * i) for i in range(4)]
    assert at[0] == T0 + timedelta(seconds=2 + 6)
    assert all(at[i] == at[i - 1] + timedelta(seconds=6) for i in (1, 2, 3))
    assert down[4] == at[3] + timedelta(seconds=0.5) and at[4] == down[4] + timedelta(seconds=6)
    assert down[5] == at[4] + timedelta(seconds=0.5) and at[5] == down[5] + timedelta(seconds=6)
    assert [d["by"] for d in deal] == ["alice", "bob"] * 3


def test_a_third_card_is_squeezed_by_its_side_s_squeezer(sessions):
    table_id, (alice, bob) = _setup(sessions, ("alice", "bob"), seconds=2.0)
    number = 1
    for number in range(1, 30):
        current = _round(sessions, table_id, number)
        opens = _aware(current.opens_at) if current.opens_at is not None else T0
        _bet(sessions, table_id, alice, {"player": 100}, opens + timedelta(seconds=0.1))
        _bet(sessions, table_id, bob, {"banker": 100}, opens + timedelta(seconds=0.1))
        _deal(sessions, table_id, number)
        deal, _ = _stored(sessions, table_id, number)
        if len(deal) > 4:
            break
    assert len(deal) > 4, "no third card in 29 coups"
    third = deal[4]
    assert third["by"] == {"player": "alice", "banker": "bob"}[third["to"]]
    down = datetime.fromisoformat(third["down"])
    assert down == datetime.fromisoformat(deal[3]["at"]) + timedelta(seconds=PACE.card)
    with sessions() as s:  # not on the table before the fourth card is turned
        before = views.table_view(s, table_id, down - STEP)
        assert 4 not in [c["index"] for c in before["squeeze"]["cards"]]
        on = views.table_view(s, table_id, down)
        assert [c["index"] for c in on["squeeze"]["cards"]] == [4] and len(on["cards"]) == 4
    squeezer = alice if third["to"] == "player" else bob
    other = bob if squeezer == alice else alice
    with pytest.raises(BaccaratError) as refused:
        transaction(sessions, lambda s: squeeze.turn(s, table_id, other, 4, down + STEP))
    assert refused.value.code == "squeeze.not_yours"
    transaction(sessions, lambda s: squeeze.turn(s, table_id, squeezer, 4, down + STEP))
    deal, _ = _stored(sessions, table_id, number)
    assert datetime.fromisoformat(deal[4]["at"]) == down + STEP
    with sessions() as s:
        assert [c["card"] for c in views.table_view(s, table_id, down + STEP)["cards"]][4] == third["card"]


def test_the_squeeze_is_a_table_setting_with_its_refusals(sessions):
    def make(seconds, game="mini", name="sq"):
        return transaction(sessions, lambda s: tables.create_table(s, name, game, squeeze_seconds=seconds).id)
    for seconds in (0.5, 31, -1):
        with pytest.raises(ConfigurationError) as refused:
            make(seconds)
        assert refused.value.code == "table.squeeze"
    with pytest.raises(ConfigurationError) as refused:
        make(6, "lucky-draw")
    assert refused.value.code == "table.squeeze_game"
    plain = make(0, name="plain")
    with sessions() as s:
        assert views.table_view(s, plain)["squeeze"] is None
        assert s.scalar(select(Announcement.id)) is None


def test_a_fresh_database_gets_one_mini_squeeze_table_among_the_defaults(sessions):
    transaction(sessions, lambda s: tables.ensure_default_tables(s))
    with sessions() as s:
        rows = {t.name: t for t in s.scalars(select(GameTable))}
        assert rows[tables.SQUEEZE_TABLE].game == "mini" and rows[tables.SQUEEZE_TABLE].squeeze_seconds == 6.0
        assert sum(1 for t in rows.values() if t.squeeze_seconds) == 1
        assert views.table_view(s, rows[tables.SQUEEZE_TABLE].id)["squeeze"] == {
            "seconds": 6.0, "squeezers": {"player": None, "banker": None}, "cards": []}
    transaction(sessions, lambda s: tables.ensure_default_tables(s))  # once only
    with sessions() as s:
        assert sum(1 for t in s.scalars(select(GameTable)) if t.squeeze_seconds) == 1


# --- a live server: the operator's form, the socket commands and every frame ------------------------------------


@pytest.fixture
def client(tmp_path: Path, database_url: str):
    settings = Settings(data_dir=tmp_path, database_url=database_url, betting_seconds=600)
    yield from api_client(settings)


def _token(client: TestClient, name: str) -> str:
    client.post("/api/accounts", json={"username": name, "password": "correct horse"})
    return client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]


def test_the_operator_opens_a_squeeze_table(client):
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        transaction(sessions, lambda s: accounts.register(s, "boss", "correct horse", grant=0, role="pit_boss"))
    boss = {"Authorization": f"Bearer {_token(client, 'boss')}"}
    made = client.post("/api/operator/tables", json={"name": "sq-2", "game": "mini", "squeeze_seconds": 8},
                       headers=boss)
    assert made.status_code == 201, made.text
    assert made.json()["squeeze"] == {"seconds": 8.0, "squeezers": {"player": None, "banker": None}, "cards": []}
    refused = client.post("/api/operator/tables", json={"name": "sq-3", "game": "lucky-draw",
                                                        "squeeze_seconds": 8}, headers=boss)
    assert refused.status_code == 409 and refused.json()["code"] == "table.squeeze_game"
    listed = {t["name"] for t in client.get("/api/tables").json()}
    assert {"mini-squeeze", "sq-2"} <= listed


@pytest.mark.slow
def test_socket_frames_show_the_peel_live_and_no_face_before_its_turn(client):
    tokens = {name: _token(client, name) for name in ("zoe", "yan", "xia")}
    with connect(client.settings.url) as sessions:  # type: ignore[attr-defined]
        table_id = transaction(sessions, lambda s: tables.create_table(
            s, "sq-live", "mini", betting_seconds=2.5, pace=Pace(0.3, 0.2, 1.0), squeeze_seconds=1.5).id)
    auth = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}
    with (client.websocket_connect(f"/ws/tables/{table_id}") as zoe,
          client.websocket_connect(f"/ws/tables/{table_id}") as xia):
        zoe.send_json({"type": "auth", "token": tokens["zoe"]})
        xia.send_json({"type": "auth", "token": tokens["xia"]})  # the watcher
        number = zoe.receive_json()["table"]["round"]["number"]
        zoe.send_json({"type": "bet", "key": "squeeze-0001", "bets": {"player": 1_000}, "round": number})
        placed = client.post(f"/api/tables/{table_id}/bets", json={"bets": {"banker": 500}},
                             headers={**auth["yan"], "Idempotency-Key": "squeeze-0002"})
        assert placed.status_code == 201, placed.text
        frames, answers, rest, refusals = [], [], [], []
        peeled = turned = False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            frame = xia.receive_json()
            if frame["type"] == "error":
                refusals.append(frame["code"])
            if frame["type"] != "state":
                continue
            frames.append(frame)
            rest.append(client.get(f"/api/tables/{table_id}").json())
            table = frame["table"]
            mine = [c for c in (table.get("squeeze") or {}).get("cards", []) if c["by"] == "zoe" and c["squeezed_from"]
                    and c["squeezed_from"] <= table["server_time"]]
            if mine and not peeled:
                zoe.send_json({"type": "squeeze", "card": mine[0]["index"], "lift": 0.5})
                peeled = True
            elif mine and mine[0]["lift"] == 0.5 and not turned:
                zoe.send_json({"type": "turn", "card": mine[0]["index"]})
                turned = True
                xia.send_json({"type": "turn", "card": mine[0]["index"]})  # the watcher may not
            if table["phase"] == "betting" and table["round"]["number"] > number:
                break
        assert peeled and turned, [(f["table"]["phase"], f["table"].get("squeeze")) for f in frames]
        while True:  # zoe's answers
            answer = zoe.receive_json()
            if answer["type"] in ("ok", "error") and answer.get("key") != "squeeze-0001":
                answers.append(answer)
            if len(answers) == 2:
                break
    assert peeled and turned and refusals == ["squeeze.not_yours"]
    assert [a["type"] for a in answers] == ["ok", "ok"]
    turned_card = answers[1]["result"]["card"]
    played = [f["table"] for f in frames if f["table"]["round_number"] == number]
    deal = next(t["cards"] for t in played if t["result"] is not None)
    assert any(c["lift"] == 0.5 for t in played for c in (t["squeeze"] or {"cards": []})["cards"])  # seen live
    result_at = datetime.fromisoformat(next(t["result"]["at"] for t in played if t["result"]))
    for table in [*played, *[v for v in rest if v["round_number"] == number]]:
        now = datetime.fromisoformat(table["server_time"])
        assert table["cards"] == [c for c in deal if datetime.fromisoformat(c["at"]) <= now]  # no face early
        assert (table["result"] is None) == (now < result_at)
    # zoe's turn came before the dealer's would have (the deadline every frame showed for that card)
    deadlines = {c["turns_at"] for t in played for c in (t["squeeze"] or {"cards": []})["cards"]
                 if c["index"] == turned_card and c["turns_at"]}
    assert len(deadlines) == 1
    assert datetime.fromisoformat(deal[turned_card]["at"]) < datetime.fromisoformat(deadlines.pop())


def test_a_restart_mid_squeeze_keeps_the_timeline_and_turns_what_is_past_its_deadline(sessions):
    table_id, (alice, bob) = _setup(sessions, ("alice", "bob"))
    _bet(sessions, table_id, alice, {"player": 1_000}, T0 + timedelta(seconds=1))
    _bet(sessions, table_id, bob, {"banker": 1_000}, T0 + timedelta(seconds=1))
    _deal(sessions, table_id, 1)
    deal, result_at = _stored(sessions, table_id, 1)
    opens = _aware(_round(sessions, table_id, 2).opens_at)
    mid = datetime.fromisoformat(deal[1]["at"]) + timedelta(seconds=1)  # the server stops here and starts again
    # at start-up the deadlines are repaired: a window waiting for a squeezed round is not pulled into it
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, mid)) == 0
    assert _aware(_round(sessions, table_id, 2).opens_at) == opens
    with sessions() as s:  # the views read the stored moments: the cards past their deadline are turned
        view = views.table_view(s, table_id, mid)
        assert [c["card"] for c in view["cards"]] == [d["card"] for d in deal[:2]]
        assert next(c["index"] for c in view["squeeze"]["cards"]) == 2 and view["result"] is None
        assert views.table_view(s, table_id, result_at)["result"] is not None


def test_a_peel_or_turn_that_is_not_the_squeezer_s_to_make_now_is_refused_and_changes_nothing(sessions):
    """What the squeezer sends is checked before anything moves: a card that is not a card's number, a lift outside
    0 to 1, a table that does not squeeze, no round being squeezed, before the card's squeeze time, a card other than
    the one being squeezed; each is refused with its code and the round's timeline is as it was."""
    table_id, (alice,) = _setup(sessions, ("alice",))
    plain = transaction(sessions, lambda s: tables.create_table(s, "plain", "mini", betting_seconds=10, now=T0).id)

    def refusal(act) -> str:
        with pytest.raises(BaccaratError) as refused:
            transaction(sessions, act)
        return refused.value.code

    at = T0 + timedelta(seconds=1)
    assert refusal(lambda s: squeeze.peel(s, table_id, alice, "0", 0.5, at)) == "squeeze.card"
    assert refusal(lambda s: squeeze.turn(s, table_id, alice, True, at)) == "squeeze.card"
    for lift in (-0.1, 1.5, True, "0.5"):
        assert refusal(lambda s, lift=lift: squeeze.peel(s, table_id, alice, 0, lift, at)) == "squeeze.lift"
    assert refusal(lambda s: squeeze.turn(s, plain, alice, 0, at)) == "squeeze.not_now"  # the table does not squeeze
    assert refusal(lambda s: squeeze.turn(s, table_id, alice, 0, at)) == "squeeze.not_now"  # nothing dealt yet
    _bet(sessions, table_id, alice, {"player": 1_000}, at)
    _, closes = _deal(sessions, table_id, 1)
    planned, result_at = _stored(sessions, table_id, 1)
    first = datetime.fromisoformat(planned[0]["at"])
    start = closes + timedelta(seconds=PACE.no_more_bets)
    assert refusal(lambda s: squeeze.peel(s, table_id, alice, 0, 0.5, start + timedelta(seconds=1))
                   ) == "squeeze.not_now"  # the four cards are not down yet
    assert refusal(lambda s: squeeze.peel(s, table_id, alice, 2, 0.5, first - timedelta(seconds=1))
                   ) == "squeeze.not_now"  # the card being squeezed is the first
    assert refusal(lambda s: squeeze.turn(s, table_id, alice, 0, result_at + timedelta(seconds=1))
                   ) == "squeeze.not_now"  # the round's result is out: nothing to squeeze
    assert _stored(sessions, table_id, 1) == (planned, result_at)
    assert json.loads(_round(sessions, table_id, 1).squeeze or "{}")["peel"] is None


def test_a_flood_of_peels_is_taken_at_most_one_every_tenth_of_a_second(sessions, monkeypatch):
    """50 peels in 50 ms (a client that sends a frame per pointer event, or on purpose): the first is taken, the
    others are answered with the peel on show and write nothing, push nothing; the next after 0.1 s is taken, and a
    full lift (a turn) is never passed over."""
    from baccarat.server.storage import notify

    table_id, (alice,) = _setup(sessions, ("alice",))
    _bet(sessions, table_id, alice, {"player": 1_000}, T0 + timedelta(seconds=1))
    _deal(sessions, table_id, 1)
    planned, _ = _stored(sessions, table_id, 1)
    at = datetime.fromisoformat(planned[0]["at"]) - timedelta(seconds=3)  # card 0 being squeezed
    pushes: list[int] = []
    monkeypatch.setattr(notify, "changed", lambda s, table: pushes.append(table))

    def peel(lift: float, after_ms: int) -> dict:
        return transaction(sessions, lambda s: squeeze.peel(s, table_id, alice, 0, lift, at + timedelta(
            milliseconds=after_ms)))

    assert [peel(n / 100, n) for n in range(1, 51)] == [{"card": 0, "lift": 0.01, "edge": "corner"}] * 50
    assert pushes == [table_id]
    assert json.loads(_round(sessions, table_id, 1).squeeze or "{}")["peel"] == {"card": 0, "lift": 0.01,
                                                                                 "edge": "corner"}
    assert peel(0.6, 101) == {"card": 0, "lift": 0.6, "edge": "corner"} and len(pushes) == 2  # 0.1 s after
    assert peel(1.0, 102) == {"card": 0, "lift": 1.0, "edge": "corner"}  # turned at once
    deal, _ = _stored(sessions, table_id, 1)
    assert datetime.fromisoformat(deal[0]["at"]) == at + timedelta(milliseconds=102)
