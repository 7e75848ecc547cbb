"""Provably fair shoes at the table server: client seeds taken during a shoe's first betting window
and mixed into its shuffle, and a player's exported history that ``baccarat verify`` checks round
by round (cards, hands, results, payouts) and movement by movement (stakes, returns, balances),
for whole shoes of every game; tampering with the export is named."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from baccarat import verify as verifier
from baccarat.cli.app import main
from baccarat.core.errors import ConfigurationError, IllegalActionError
from baccarat.core.fair import ALGORITHM, ALGORITHM_1, ALGORITHM_2, fair_cards, shoe_key
from baccarat.core.shoe import Shoe
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, fairness, records, seating, tables, views
from baccarat.server.playing import history as played
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Round, ShoeRow, aware

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _players(sessions, *names: str, seeds: dict[str, str] | None = None) -> list[int]:
    def work(s):
        ids = [accounts.register(s, name, "correct horse", grant=1_000_000).id for name in names]
        for name, account_id in zip(names, ids, strict=True):
            if (seeds or {}).get(name):
                fairness.set_client_seed(s, account_id, seeds[name])
        return ids
    return transaction(sessions, work)


def _table(sessions, game: str, name: str, players: list[int], *, decks: int = 1, paytable: int | None = None) -> int:
    def work(s):
        table = tables.create_table(s, name, game, paytable=paytable, decks=decks, betting_seconds=10,
                                    decision_seconds=5, pace=Pace(0, 0, 0), now=T0)  # no pauses between rounds
        for account_id in players:
            seating.sit(s, table.id, account_id)
        return table.id
    return transaction(sessions, work)


def _open(sessions, table_id: int) -> tuple[int, datetime]:
    current = read(sessions, lambda s: tables.open_round(s, table_id))
    return current.id, aware(current.closes_at)


def _round(sessions, table_id: int, bets: dict[int, dict[str, int]], *, decisions: dict[int, str] | None = None,
           void: bool = False) -> None:
    """One round: the bets, the deal at the close of its window, Lucky Draw's decisions (a player
    who has none stands when the window ends) or an operator's void after the first deal."""
    round_id, closes = _open(sessions, table_id)
    for account_id, stakes in bets.items():
        transaction(sessions, lambda s, a=account_id, b=stakes: betting.place_bets(s, table_id, a, b,
                                                                                   now=closes - timedelta(seconds=1)))
    transaction(sessions, lambda s: dealing.deal_round(s, round_id, closes))
    with sessions() as s:
        current = s.get(Round, round_id)
        status, number = current.status, current.number
    if status != "decision":
        return
    if void:
        transaction(sessions, lambda s: dealing.void_round(s, table_id, number, reason="a card fell", now=closes))
        return
    for account_id, action in (decisions or {}).items():
        transaction(sessions, lambda s, a=account_id, act=action: dealing.decide(s, table_id, a, act, now=closes))
    transaction(sessions, lambda s: dealing.deal_round(s, round_id, closes + timedelta(seconds=5)))


def _export(sessions, account_id: int, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    with sessions() as s:
        doc = json.loads(json.dumps(played.export(s, account_id)))
    path = tmp_path / "history.json"
    path.write_text(json.dumps(doc))
    return doc, path


def _shoe_root(sessions, table_id: int, number: int) -> str | None:
    return read(sessions, lambda s: fairness.merkle_root(s.scalar(select(ShoeRow).where(
        ShoeRow.table_id == table_id, ShoeRow.number == number))))


def _shoe(sessions, table_id: int, number: int) -> ShoeRow | None:
    return read(sessions, lambda s: s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id,
                                                                    ShoeRow.number == number)))


# --- client seeds ---------------------------------------------------------------------------


def test_a_shoe_takes_the_seeds_of_its_first_window_and_is_fixed_at_its_first_deal(sessions):
    ann, ben, cid = _players(sessions, "ann", "ben", "cid", seeds={"ann": "ann-seed", "ben": "ben's:seed!"})
    table_id = _table(sessions, "ez", "ez-seeds", [ann, ben, cid])
    view = read(sessions, lambda s: views.table_view(s, table_id))
    shoe = _shoe(sessions, table_id, 1)
    # the commitment is on the table before any bet; no card is taken yet, not even the burn
    assert view["shoe"]["commitment"] == shoe.commitment and view["shoe"]["algorithm"] == ALGORITHM
    assert view["shoe"]["taking_client_seeds"] is True and view["shoe"]["client_seeds"] is None
    assert view["shoe"]["cards_dealt"] == 0
    _round(sessions, table_id, {ann: {"banker": 100}, ben: {"player": 100}, cid: {"tie": 100}})
    shoe = _shoe(sessions, table_id, 1)
    seeds = ["ann-seed", "ben's:seed!"]  # cid set no seed: nothing of his goes in
    assert json.loads(shoe.client_seeds) == seeds
    with sessions() as s:
        view = views.table_view(s, table_id)
        first = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
    assert view["shoe"]["taking_client_seeds"] is False and view["shoe"]["client_seeds"] == seeds
    key = shoe_key(ALGORITHM, bytes.fromhex(fairness.server_seed(shoe)), seeds)
    cards = [str(c) for c in fair_cards(key, 1)]
    burn = len(Shoe(fair_cards(key, 1), burn=True).burned)
    assert json.loads(first.result)["cards"] == cards[burn:burn + len(json.loads(first.result)["cards"])]
    # a seed set later counts from the next shoe: this one's seeds are fixed
    transaction(sessions, lambda s: fairness.set_client_seed(s, cid, "late"))
    _round(sessions, table_id, {cid: {"tie": 100}})
    assert json.loads(_shoe(sessions, table_id, 1).client_seeds) == seeds


def test_the_seed_taken_is_the_one_at_the_bet_even_if_changed_before_the_deal(sessions):
    (ann,) = _players(sessions, "ann", seeds={"ann": "first"})
    table_id = _table(sessions, "mini", "mini-seeds", [ann])
    round_id, closes = _open(sessions, table_id)
    before = closes - timedelta(seconds=1)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"banker": 100}, now=before))
    transaction(sessions, lambda s: fairness.set_client_seed(s, ann, "second"))
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"tie": 100}, now=before))
    # the deal is repeated after a crash (here: rolled back) and again for real: the same seeds, the same cards
    results = []
    for _ in range(2):
        with sessions() as s:
            s.begin()
            dealing.deal_round(s, round_id, closes)
            results.append((s.get(Round, round_id).result, _shoe_seeds(s, table_id)))
            s.rollback()
    transaction(sessions, lambda s: dealing.deal_round(s, round_id, closes))
    assert results[0] == results[1] and json.loads(results[0][1]) == ["first"]
    assert json.loads(_shoe(sessions, table_id, 1).client_seeds) == ["first"]


def _shoe_seeds(s, table_id: int) -> str | None:
    return s.scalar(select(ShoeRow.client_seeds).where(ShoeRow.table_id == table_id, ShoeRow.number == 1))


def test_the_shuffle_depends_on_the_client_seeds(sessions, monkeypatch):
    """The same server seed: one client seed changed, and the shoe is another."""
    monkeypatch.setattr(tables, "new_server_seed", lambda: bytes(range(32)))
    ann, ben = _players(sessions, "ann", "ben", seeds={"ann": "alpha", "ben": "beta"})
    dealt, committed = {}, set()
    for name, seed in (("one", "beta"), ("two", "beta"), ("three", "gamma")):
        transaction(sessions, lambda s, sd=seed: fairness.set_client_seed(s, ben, sd))
        table_id = _table(sessions, "ez", name, [ann, ben])
        _round(sessions, table_id, {ann: {"banker": 100}, ben: {"player": 100}})
        with sessions() as s:
            dealt[name] = json.loads(s.scalar(select(Round.result).where(Round.table_id == table_id,
                                                                         Round.number == 1)))["cards"]
        committed.add(_shoe(sessions, table_id, 1).commitment)
    assert len(committed) == 1  # one server seed for all three
    assert dealt["one"] == dealt["two"]
    assert dealt["one"] != dealt["three"]


@pytest.mark.parametrize("seed", ["", "has space", "x" * 65, "é", "line\nbreak"])
def test_a_bad_client_seed_is_refused_and_changes_nothing(sessions, seed):
    (ann,) = _players(sessions, "ann", seeds={"ann": "kept"})
    with pytest.raises(ConfigurationError, match="client seed is 1 to 64"):
        transaction(sessions, lambda s: fairness.set_client_seed(s, ann, seed))
    with sessions() as s:
        assert fairness.client_seed(s, ann)["client_seed"] == "kept"


# --- whole shoes, exported and verified --------------------------------------------------------


@pytest.mark.parametrize(("game", "paytable"), [("mini", None), ("ez", None), ("lucky-draw", 1), ("lucky-draw", 2)])
def test_every_round_of_a_server_shoe_verifies_through_the_export(sessions, game, paytable, tmp_path, capsys):
    ann, ben = _players(sessions, "ann", "ben", seeds={"ann": "ann-seed", "ben": "ben-seed"})
    table_id = _table(sessions, game, f"{game}-whole", [ann, ben], paytable=paytable, decks=2)
    wagers = {"mini": ({"banker": 1_250, "dragon_bonus_banker": 500, "tie": 100}, {"player": 700,
                                                                                 "dragon_bonus_player": 300}),
              "ez": ({"banker": 1_000, "dragon_7": 100, "panda_8": 100}, {"player": 2_500, "tie": 100}),
              "lucky-draw": ({"enter": 1_000, "block_bonus": 300}, {"enter": 500})}[game]
    number = 0
    while (shoe := _shoe(sessions, table_id, 2)) is None or shoe.position == 0:  # shoe 1 over, shoe 2 dealing
        number += 1
        if number % 5 == 0:  # a round only ben bets on: not ann's, but in the shoe
            _round(sessions, table_id, {ben: wagers[1]})
            continue
        _round(sessions, table_id, {ann: wagers[0], ben: wagers[1]},
               decisions={ann: "draw" if number % 2 else "stand"},  # ben never decides: he stands at the end
               void=game == "lucky-draw" and number == 3)
    _round(sessions, table_id, {ann: wagers[0]}, decisions={ann: "stand"})  # one of ann's rounds on shoe 2
    first = _shoe(sessions, table_id, 1)
    # a Lucky Draw table keeps 24 cards for seven seats: it may run short before the cut card comes out
    assert first.revealed_at is not None and first.ended in ("last hand", "too few cards")
    assert first.ended == "last hand" or game == "lucky-draw"
    doc, path = _export(sessions, ann, tmp_path)
    assert doc["format"] == played.EXPORT_FORMAT == verifier.EXPORT_FORMAT
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    report = verifier.verify_document(doc)
    mine = [r for r in doc["rounds"] if r["status"] in ("settled", "void")]
    on_shoe_1 = [r for r in mine if r["shoe"] == 1]
    assert report.ok and report.rounds == len(mine) and len(on_shoe_1) >= 5, report.problems
    # shoe 2 is in play: its round is proven now, against the Merkle root published at its first deal
    assert report.proven == len(mine) - len(on_shoe_1) >= 1 and not report.pending
    assert f"{len(mine)} of your rounds dealt again from their shoes ({report.proven} of them proven now" in out
    assert "table " + f"{game}-whole shoe 1: seed matches its commitment" in out
    assert "table " + f"{game}-whole shoe 2: in play; " in out
    in_play = doc["shoes"][1]
    assert "server_seed" not in in_play and in_play["merkle_root"] == _shoe_root(sessions, table_id, 2)
    record = doc["shoes"][0]
    assert record["your_client_seed"] == "ann-seed" and record["client_seeds"] == ["ann-seed", "ben-seed"]
    assert len(record["rounds"]) > len(on_shoe_1)  # ben's own rounds are in the shoe too
    if game == "lucky-draw":
        assert any(r["status"] == "void" for r in on_shoe_1)
        assert any("draw" in r["bets"] for r in on_shoe_1) and any("void" in r for r in record["rounds"])
    # the public shoe record on its own verifies too, and so does its round-by-round dealing
    with sessions() as s:
        assert verifier.verify_shoe(records.shoe_record(s, table_id, 1)).ok


def test_a_player_at_two_tables_at_once_verifies(sessions, tmp_path):
    """Rounds at two tables overlap: the balance is followed through the wallet's movements."""
    ann, ben = _players(sessions, "ann", "ben", seeds={"ann": "mine"})
    mini, ez = _table(sessions, "mini", "m2", [ann, ben]), _table(sessions, "ez", "e2", [ann])
    for _ in range(10):
        mini_round, mini_closes = _open(sessions, mini)
        ez_round, ez_closes = _open(sessions, ez)
        transaction(sessions, lambda s, c=mini_closes: betting.place_bets(s, mini, ann, {"banker": 1_000},
                                                                          now=c - timedelta(seconds=2)))
        transaction(sessions, lambda s, c=ez_closes: betting.place_bets(s, ez, ann, {"player": 500, "tie": 100},
                                                                        now=c - timedelta(seconds=2)))
        transaction(sessions, lambda s, c=mini_closes: betting.place_bets(s, mini, ben, {"player": 100},
                                                                          now=c - timedelta(seconds=1)))
        transaction(sessions, lambda s, r=ez_round, c=ez_closes: dealing.deal_round(s, r, c))
        transaction(sessions, lambda s, r=mini_round, c=mini_closes: dealing.deal_round(s, r, c))
    transaction(sessions, lambda s: tables.close_table(s, mini, now=T0 + timedelta(hours=1)))
    transaction(sessions, lambda s: tables.close_table(s, ez, now=T0 + timedelta(hours=1)))
    doc, _ = _export(sessions, ann, tmp_path)
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds == 20 and not report.pending, report.problems
    assert {r["ended"] for r in doc["shoes"]} <= {"last hand", "table closed"}
    with sessions() as s:
        assert doc["balance"] == wallet.balance(s, ann) == doc["movements"][-1]["balance"]


def test_a_round_voided_before_its_deal_verifies_as_handed_back(sessions, tmp_path):
    (ann,) = _players(sessions, "ann", seeds={"ann": "mine"})
    table_id = _table(sessions, "mini", "voids", [ann])
    _round(sessions, table_id, {ann: {"banker": 500}})
    _, closes = _open(sessions, table_id)
    before = closes - timedelta(seconds=1)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"player": 700}, now=before))
    transaction(sessions, lambda s: dealing.void_round(s, table_id, 2, reason="the shoe fell", now=closes))
    _round(sessions, table_id, {ann: {"tie": 100}})
    transaction(sessions, lambda s: tables.close_table(s, table_id, now=T0 + timedelta(hours=1)))
    doc, _ = _export(sessions, ann, tmp_path)
    voided = next(r for r in doc["rounds"] if r["round"] == 2)
    assert voided["status"] == "void" and voided["events"] == {"player": "Void"} and not voided["cards"]
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds == 3 and not report.pending, report.problems
    voided["net"]["player"] = 700  # a refund turned into a win
    assert "round 2, payout of player: the record says 700, the seed gives 0" in "\n".join(
        verifier.verify_document(doc).problems)


def test_a_shoe_of_the_first_algorithm_is_dealt_out_and_verifies(sessions, tmp_path):
    """A shoe made before client seeds (its row says algorithm 1) goes on being dealt as it was."""
    (ann,) = _players(sessions, "ann", seeds={"ann": "ignored"})
    table_id = _table(sessions, "ez", "old-shoe", [ann])

    def downgrade(s):
        shoe = s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id))
        shoe.algorithm = ALGORITHM_1
        shoe.position = len(Shoe(fair_cards(bytes.fromhex(fairness.server_seed(shoe)), 1), burn=True).burned)
    transaction(sessions, downgrade)
    for _ in range(4):
        _round(sessions, table_id, {ann: {"banker": 100}})
    transaction(sessions, lambda s: tables.close_table(s, table_id, now=T0 + timedelta(hours=1)))
    doc, _ = _export(sessions, ann, tmp_path)
    assert doc["shoes"][0]["algorithm"] == ALGORITHM_1 and "client_seeds" not in doc["shoes"][0]
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds == 4, report.problems


# --- a tampered export ------------------------------------------------------------------------


def _money(doc: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return [r for r in doc["rounds"] if r["shoe"] == 1 and r["status"] == "settled"][index]


def _set_round(field: str, change: Any) -> Any:
    def tamper(doc: dict[str, Any]) -> None:
        target = _money(doc)
        *parents, last = field.split(".")
        for part in parents:
            target = target[part]
        target[last] = change(target[last])
    return tamper


def _drop_round(doc: dict[str, Any]) -> None:
    doc["rounds"].remove(_money(doc, 1))


def _add_round(doc: dict[str, Any]) -> None:
    extra = copy.deepcopy(_money(doc, 1))
    extra["round"] = 999
    doc["rounds"].append(extra)


def _bigger_stake(doc: dict[str, Any]) -> None:
    """5 cents more staked on the first settled round, every balance after it lowered to match: the
    chain still adds up, only the round's stakes against its bets tell."""
    first = _money(doc)
    stake = next(m for m in doc["movements"] if m.get("round") == first["round"] and m["kind"] == "stake")
    stake["amount"] -= 5
    for later in doc["movements"][doc["movements"].index(stake):]:
        later["balance"] -= 5
    doc["balance"] -= 5


def _movement_balance(doc: dict[str, Any]) -> None:
    doc["movements"][3]["balance"] += 100


def _movement_amount(doc: dict[str, Any]) -> None:
    doc["movements"][3]["amount"] += 100


EXPORT_TAMPERING = {
    "a card": (_set_round("cards", lambda cards: [cards[1], cards[0], *cards[2:]]), ", cards: the record says"),
    "a result": (_set_round("result", lambda r: "tie" if r != "tie" else "banker"), ", result: the record says"),
    "an event": (_set_round("events.banker", lambda e: "Tie" if e != "Tie" else "Banker wins"),
                 ", event of banker: the record says"),
    "a payout": (_set_round("net.banker", lambda n: n + 5), ", payout of banker: the record says"),
    "a stake": (_bigger_stake, ", stakes: the record says"),
    "a movement's balance": (_movement_balance, ", balance: the record says"),
    "a movement's amount": (_movement_amount, ", balance: the record says"),
    "a removed round": (_drop_round, ", which is not among the rounds"),
    "an added round": (_add_round, "round 999: not in the shoe's record"),
    "a round number": (_set_round("round", lambda n: n + 1000), ": not in the shoe's record"),
    "your client seed": (lambda doc: doc["shoes"][0].update(your_client_seed="not-mine"),
                         "client seeds: the record says [ann-seed], and your client seed not-mine is not among them"),
    "a client seed": (lambda doc: doc["shoes"][0].update(client_seeds=["ann-seed", "planted"]),
                      "table ez-t shoe 1, client seeds: the record says [ann-seed planted], with the revealed server "
                      "seed they deal another shoe than the one recorded"),
    "the commitment": (lambda doc: doc["shoes"][0].update(commitment="f" * 64),
                       "table ez-t shoe 1, commitment: the record says"),
    "the wallet's balance": (lambda doc: doc.update(balance=doc["balance"] + 1),
                             "your wallet, balance: the record says"),
    # an ended shoe's record left out: not "not yet verifiable" (it was, before the export listed the shoes in play)
    "an ended shoe's record": (lambda doc: doc["shoes"].pop(0),
                               "the record of its shoe is missing, and the export does not list the shoe as still "
                               "being dealt"),
}


@pytest.fixture
def exported(sessions, tmp_path) -> dict[str, Any]:
    ann, ben = _players(sessions, "ann", "ben", seeds={"ann": "ann-seed"})
    table_id = _table(sessions, "ez", "ez-t", [ann, ben])
    while _shoe(sessions, table_id, 2) is None:
        _round(sessions, table_id, {ann: {"banker": 1_000, "dragon_7": 100}, ben: {"player": 500}})
    doc, _ = _export(sessions, ann, tmp_path)
    assert verifier.verify_document(doc).ok
    return doc


@pytest.mark.parametrize("what", EXPORT_TAMPERING)
def test_tampering_with_an_export_is_named_with_exit_3(exported, what, tmp_path, capsys):
    tamper, message = EXPORT_TAMPERING[what]
    tamper(exported)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(exported))
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out
    assert "MISMATCH " in out and message in out, out


# --- the routes ---------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path, database_url: str):
    from fastapi.testclient import TestClient

    from baccarat.server.api.app import create_app
    from baccarat.server.storage.settings import Settings

    with TestClient(create_app(Settings(data_dir=tmp_path, database_url=database_url, grant=50_000))) as test_client:
        yield test_client


def _auth(client, name: str) -> dict[str, str]:
    assert client.post("/api/accounts", json={"username": name, "password": "correct horse"}).status_code == 201
    token = client.post("/api/sessions", json={"username": name, "password": "correct horse"}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_the_client_seed_and_export_routes(client):
    auth = _auth(client, "zoe")
    assert client.get("/api/fairness/client-seed", headers=auth).json() == {"client_seed": None,
                                                                           "algorithm": ALGORITHM}
    put = client.put("/api/fairness/client-seed", json={"seed": "zoe's-lucky-seed"}, headers=auth)
    assert put.status_code == 200 and put.json() == {"client_seed": "zoe's-lucky-seed"}
    for bad in ({"seed": "two words"}, {"seed": ""}, {"seed": "x" * 65}, {"seed": 12345}, {"seed": "ok", "x": 1}, {}):
        refused = client.put("/api/fairness/client-seed", json=bad, headers=auth)
        assert refused.status_code == 422, bad
    refused = client.put("/api/fairness/client-seed", json={"seed": "two words"}, headers=auth).json()
    assert refused["detail"][0]["problem"] == "A client seed is 1 to 64 letters, digits or punctuation marks, " \
                                              "without spaces."
    assert client.get("/api/fairness/client-seed", headers=auth).json()["client_seed"] == "zoe's-lucky-seed"
    assert client.put("/api/fairness/client-seed", json={"seed": "x"}).status_code == 401
    assert client.get("/api/history/export").status_code == 401
    export = client.get("/api/history/export", headers=auth).json()
    signature = export.pop("signature")
    assert export == {"format": played.EXPORT_FORMAT, "account": "zoe", "balance": 50_000, "rounds": [],
                      "movements": [], "shoes": [], "in_play": []}
    assert signature["algorithm"] == "ed25519" and signature["key"] == client.get("/api/fairness/key").json()[
        "fingerprint"]
    assert client.get("/api/history/export?limit=0", headers=auth).status_code == 422
    # every table shows its shoe's commitment before the first bet, and that it takes client seeds
    for table in client.get("/api/tables").json():
        assert len(table["shoe"]["commitment"]) == 64 and table["shoe"]["taking_client_seeds"] is True
        assert "server_seed" not in json.dumps(table)


def test_the_export_never_tells_a_result_before_the_table_shows_it(sessions):
    """At the table's real pace the settlement is in the ledger at the deal but shown seconds later:
    until then the export is refused, with no time to ask again (it would tell how many cards are to come)."""
    def work(s):
        table = tables.create_table(s, "paced", "ez", betting_seconds=10, now=T0)  # the default pace
        ann = accounts.register(s, "paula", "correct horse", grant=100_000).id
        seating.sit(s, table.id, ann)
        return table.id, ann
    table_id, ann = transaction(sessions, work)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"banker": 100}, now=T0))
    deal_due(sessions, now=T0 + timedelta(seconds=10))
    with pytest.raises(IllegalActionError, match="still being dealt: export again once its result is shown"):
        read(sessions, lambda s: played.export(s, ann, now=T0 + timedelta(seconds=11)))
    later = T0 + timedelta(seconds=60)
    assert read(sessions, lambda s: played.export(s, ann, now=later))["rounds"][0]["round"] == 1


# --- a shoe in play: every round proven at once (algorithm 3) -------------------------------------


def _proof_round(doc: dict[str, Any], index: int = 1) -> dict[str, Any]:
    entry: dict[str, Any] = doc["shoes"][0]["rounds"][index]
    return entry


def _changed_card(doc: dict[str, Any]) -> None:
    """A card of round 2 changed in the shoe's record and in the round alike."""
    entry = _proof_round(doc)
    changed = "Ah" if entry["cards"][0] != "Ah" else "Kh"
    entry["cards"][0] = changed
    mine = next(r for r in doc["rounds"] if r["round"] == entry["round"])
    mine["cards"][0] = changed


def _swapped(doc: dict[str, Any]) -> None:
    entry = _proof_round(doc)
    for key in ("cards", "proof"):
        entry[key][0], entry[key][1] = entry[key][1], entry[key][0]


def _skipped(doc: dict[str, Any]) -> None:
    """Round 2's proofs (valid ones) moved on by a card: a position skipped."""
    entry, after = _proof_round(doc, 1), _proof_round(doc, 2)
    entry["cards"], entry["proof"] = [*entry["cards"][1:], after["cards"][0]], [*entry["proof"][1:], after["proof"][0]]


def _reused(doc: dict[str, Any]) -> None:
    entry, before = _proof_round(doc, 1), _proof_round(doc, 0)
    entry["cards"][0], entry["proof"][0] = before["cards"][0], copy.deepcopy(before["proof"][0])


IN_PLAY_TAMPERING = {
    **{what: EXPORT_TAMPERING[what] for what in EXPORT_TAMPERING if what not in ("a client seed", "the commitment")},
    "a changed card": (_changed_card, "round 2, card 1: the record says"),
    "swapped positions": (_swapped, "round 2, position of card 1: the record says"),
    "a skipped position": (_skipped, "round 2, position of card 1: the record says"),
    "a reused position": (_reused, "round 2, position of card 1: the record says"),
    "a wrong salt": (lambda doc: _proof_round(doc)["proof"][1].update(salt="0" * 64),
                     "round 2, card 2: the record says"),
    "a wrong path": (lambda doc: _proof_round(doc)["proof"][1]["path"].reverse(), "round 2, card 2: the record says"),
    "a changed root": (lambda doc: doc["shoes"][0].update(merkle_root="f" * 64),
                       "table ez-t shoe 1, Merkle root: none of the"),
    "the turned card": (lambda doc: doc["shoes"][0].update(turned="Tc" if doc["shoes"][0]["turned"] != "Tc" else "9c"),
                        "table ez-t shoe 1, turned card 1: the record says"),
}


@pytest.fixture
def exported_in_play(sessions, tmp_path) -> dict[str, Any]:
    ann, ben = _players(sessions, "ann", "ben", seeds={"ann": "ann-seed"})
    table_id = _table(sessions, "ez", "ez-t", [ann, ben])
    for _ in range(5):
        _round(sessions, table_id, {ann: {"banker": 1_000, "dragon_7": 100}, ben: {"player": 500}})
    assert _shoe(sessions, table_id, 1).revealed_at is None  # the shoe is in play
    doc, _ = _export(sessions, ann, tmp_path)
    record = doc["shoes"][0]
    assert "server_seed" not in record and "ended" not in record and len(record["rounds"]) == 5
    # of the burn, only the turned card is shown (the others are face down until the shoe ends)
    assert "burned" not in record and "burn_proof" not in record and record["turned_proof"]["position"] == 0
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds == report.proven == 5 and not report.pending, report.problems
    return doc


def test_a_shoe_in_play_verifies_at_once(exported_in_play, tmp_path, capsys):
    path = tmp_path / "history.json"
    path.write_text(json.dumps(exported_in_play))
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "table ez-t shoe 1: in play; 5 rounds" in out and "proven now against its Merkle root" in out
    assert "5 of your rounds dealt again from their shoes (5 of them proven now" in out and "not yet" not in out


@pytest.mark.parametrize("what", IN_PLAY_TAMPERING)
def test_tampering_with_an_export_of_a_shoe_in_play_is_named_at_once(exported_in_play, what, tmp_path, capsys):
    tamper, message = IN_PLAY_TAMPERING[what]
    tamper(exported_in_play)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(exported_in_play))
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out
    assert "MISMATCH " in out and message in out, out


def test_the_root_is_published_at_the_first_deal_and_rounds_not_yet_shown_are_not_in_the_record(sessions):
    (ann,) = _players(sessions, "ann", seeds={"ann": "ann-seed"})
    table_id = _table(sessions, "mini", "roots", [ann])
    shoe = read(sessions, lambda s: views.table_view(s, table_id))["shoe"]
    assert shoe["algorithm"] == ALGORITHM and shoe["merkle_root"] is None  # still taking client seeds
    round_id, closes = _open(sessions, table_id)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"banker": 100},
                                                       now=closes - timedelta(seconds=1)))
    transaction(sessions, lambda s: dealing.deal_round(s, round_id, closes))
    root = _shoe_root(sessions, table_id, 1)
    assert root is not None
    with sessions() as s:
        current = s.get(Round, round_id)
        shown_at = aware(current.result_at)
        # the view at the deal, before any card is shown, already carries the root
        assert views.table_view(s, table_id, now=closes)["shoe"]["merkle_root"] == root
        before = records.shoe_record(s, table_id, 1, in_play_at=shown_at - timedelta(seconds=1))
        after = records.shoe_record(s, table_id, 1, in_play_at=shown_at)
        with pytest.raises(IllegalActionError):
            records.shoe_record(s, table_id, 1)  # the public record stays refused until the shoe ends
    assert before["rounds"] == [] and [r["round"] for r in after["rounds"]] == [1]
    assert "server_seed" not in after and after["merkle_root"] == root
    assert verifier.verify_shoe(dict(after)).proven


def test_a_shoe_of_algorithm_2_in_play_waits_for_its_end(sessions, tmp_path):
    (ann,) = _players(sessions, "ann", seeds={"ann": "ann-seed"})
    table_id = _table(sessions, "ez", "v2", [ann])

    def downgrade(s):
        s.scalar(select(ShoeRow).where(ShoeRow.table_id == table_id)).algorithm = ALGORITHM_2
    transaction(sessions, downgrade)
    for _ in range(3):
        _round(sessions, table_id, {ann: {"banker": 100}})
    doc, _ = _export(sessions, ann, tmp_path)
    report = verifier.verify_document(doc)
    assert doc["shoes"] == [] and report.ok and report.rounds == 0
    assert doc["in_play"] == [{"table_id": table_id, "shoe": 1}]
    assert report.pending == ["table v2 shoe 1: 3 of your rounds, verifiable when the shoe ends"]
    # the shoe not listed as still dealt: its record is missing, not awaited
    unlisted = verifier.verify_document({**doc, "in_play": []})
    assert any("the record of its shoe is missing" in problem for problem in unlisted.problems), unlisted.problems
    transaction(sessions, lambda s: tables.close_table(s, table_id, now=T0 + timedelta(hours=1)))
    doc, _ = _export(sessions, ann, tmp_path)
    assert doc["shoes"][0]["algorithm"] == ALGORITHM_2 and "merkle_root" not in doc["shoes"][0]
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds == 3 and not report.pending, report.problems


def test_an_export_is_signed_by_the_house_and_verify_checks_it_with_the_published_key(client, tmp_path, capsys):
    """A third party checks a player's export with the house's public key alone (GET /api/fairness/key, its
    fingerprint printed by serve): signed, it verifies; edited or unsigned, it is a mismatch (exit 3)."""
    auth = _auth(client, "amy")
    house = client.get("/api/fairness/key").json()  # no account needed: the key is public
    assert house["algorithm"] == "ed25519" and house["fingerprint"].startswith("SHA256:")
    key = tmp_path / "house.pem"
    key.write_text(house["public_key"])
    export = client.get("/api/history/export", headers=auth).json()
    assert export["signature"]["key"] == house["fingerprint"]
    path = tmp_path / "export.json"

    def verify(document: dict[str, Any], *options: str) -> tuple[int, str]:
        path.write_text(json.dumps(document, ensure_ascii=False))
        code = main(["verify", str(path), *options])
        return code, capsys.readouterr().out

    code, out = verify(export, "--key", str(key))
    assert code == 0 and f"signed by the house's key {house['fingerprint']}\n" in out, out
    code, out = verify(export)  # without the key: checked otherwise, and said not to be signed-checked
    assert code == 0 and "the house's signature: not checked" in out
    for change, words in [
        (lambda doc: doc.update(balance=doc["balance"] + 100_000), "changed after the house signed it"),
        (lambda doc: doc.update(account="someone-else"), "changed after the house signed it"),
        (lambda doc: doc.pop("signature"), "the export is not signed by the house"),
        (lambda doc: doc["signature"].update(key="SHA256:another"), "not with the key given"),
        (lambda doc: doc["signature"].update(value="00" * 64), "changed after the house signed it"),
    ]:
        edited = copy.deepcopy(export)
        change(edited)
        code, out = verify(edited, "--key", str(key))
        assert (code == 3 and f"MISMATCH {words}" in out) or (code == 3 and words in out), out
    # a key that is not one is refused before anything is checked (exit 2)
    key.write_text("not a key")
    assert main(["verify", str(path), "--key", str(key)]) == 2
