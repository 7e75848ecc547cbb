"""Dealing rounds (:mod:`baccarat.server.playing.dealing`): bets settled against their own accounts even when
two share a seat number, a voided round's stakes refunded and its shown cards skipped, deadlines written
under a clock ahead pulled in at start, refused voids that change nothing, and a Lucky Draw decision that
names its round."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from baccarat import verify as verifier
from baccarat.cli.app import main
from baccarat.core.cards import Card
from baccarat.core.coup import deal_coup
from baccarat.core.errors import BaccaratError, IllegalActionError
from baccarat.core.registry import get_game, unregister
from baccarat.core.strikes import coup_factor, strike_from_json
from baccarat.server.house import accounts, wallet
from baccarat.server.playing import betting, dealing, definitions, history, seating, tables, views
from baccarat.server.playing.dealer import deal_due
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import read, transaction
from baccarat.server.storage.models import Bet, Round, Settlement, ShoeRow

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _table(sessions, game: str, name: str, players: tuple[str, ...], **options):
    def work(s):
        # these are the reliability tests: cards are shown at once (the timeline has its own tests)
        table = tables.create_table(s, name, game, betting_seconds=10, now=T0, **{"pace": Pace(0, 0, 0), **options})
        ids = [accounts.register(s, player, "correct horse", grant=100_000).id for player in players]
        for account_id in ids:
            seating.sit(s, table.id, account_id)
        return table.id, ids
    return transaction(sessions, work)


def _closes_at(sessions, table_id: int) -> datetime:
    with sessions() as s:
        closes = tables.open_round(s, table_id).closes_at
    return closes if closes.tzinfo else closes.replace(tzinfo=UTC)


def _bet(sessions, table_id, account_id, bets, at, **options):
    return transaction(sessions, lambda s: betting.place_bets(s, table_id, account_id, bets, now=at, **options))


# --- rounds that must never stop a table (attack: a seat shared by two accounts' bets) ----------------------


def test_bets_belong_to_accounts_even_when_two_share_a_seat_number(sessions):
    """Bets stored with the same seat number by two accounts (as the race once left them) are dealt
    as two players: each is settled against its own account, and Lucky Draw's decisions too."""
    table_id, (ann, ben) = _table(sessions, "lucky-draw", "shared", ("ann", "ben"), paytable=1)
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"enter": 1_000}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    with sessions.begin() as s:  # ben's bet now says seat 1, as ann's does
        s.query(Bet).filter(Bet.account_id == ben).update({Bet.seat: 1})
    assert deal_due(sessions, now=closes) == 1
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=closes))
    transaction(sessions, lambda s: dealing.decide(s, table_id, ben, "stand", now=closes))
    assert deal_due(sessions, now=closes + timedelta(seconds=1)) == 1
    with sessions() as s:
        rows = s.execute(select(Bet.account_id, Bet.wager, Bet.amount, Settlement.net)
                         .join(Settlement, Settlement.bet_id == Bet.id)).all()
        assert sorted((a, w, amount) for a, w, amount, _ in rows) == [
            (ann, "draw", 1_000), (ann, "enter", 1_000), (ben, "enter", 2_000)]
        for account_id in (ann, ben):
            net = sum(n for a, _, _, n in rows if a == account_id)
            assert wallet.balance(s, account_id) == 100_000 + net


# --- rounds that must never stop a table: a round voided ----------------------------------------------------


def test_voiding_a_lucky_draw_round_after_its_first_deal_refunds_and_skips_the_shown_cards(sessions):
    table_id, (ann, ben) = _table(sessions, "lucky-draw", "ld-void", ("ann", "ben"), paytable=2)
    closes = _closes_at(sessions, table_id)
    _bet(sessions, table_id, ann, {"enter": 1_000, "block_bonus": 500}, closes - timedelta(seconds=1))
    _bet(sessions, table_id, ben, {"enter": 2_000}, closes - timedelta(seconds=1))
    deal_due(sessions, now=closes)
    transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", now=closes))
    with sessions() as s:
        current = s.scalar(select(Round).where(Round.table_id == table_id, Round.number == 1))
        shown = json.loads(current.result)["cards"]
        position = dealing.round_shoe(s, current).position
        block = s.scalar(select(Settlement.net).join(Bet, Bet.id == Settlement.bet_id)
                         .where(Bet.wager == "block_bonus"))
    answer = transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="dealer's error", now=closes))
    assert answer["refunded"] == 1_000 + 1_000 + 2_000 and answer["bets_refunded"] == 3
    with sessions() as s:
        assert wallet.balance(s, ann) == 100_000 + block  # the Block Bonus was settled before the void
        assert wallet.balance(s, ben) == 100_000
        assert dealing.round_shoe(s, current).position == position + len(shown)
        nxt = tables.open_round(s, table_id)
        assert nxt.number == 2
    with pytest.raises(IllegalActionError, match="already void"):
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="again", now=closes))


# --- rounds that must never stop a table: the clock ---------------------------------------------------------


def test_deadlines_written_under_a_clock_ahead_are_pulled_in_at_start(sessions):
    table_id, (_ann,) = _table(sessions, "ez", "ahead", ("ann",))
    ahead = T0 + timedelta(hours=13)
    with sessions.begin() as s:  # the round was opened while the wall clock was 13 h ahead
        s.query(Round).filter(Round.table_id == table_id).update({Round.closes_at: ahead})
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, T0)) == 1
    assert _closes_at(sessions, table_id) == T0 + timedelta(seconds=10)
    assert transaction(sessions, lambda s: dealing.repair_deadlines(s, T0)) == 0  # within one window: untouched


# --- rounds that must never stop a table: operators void rounds ---------------------------------------------


def test_refusals_change_nothing(sessions):
    table_id, (_ann,) = _table(sessions, "ez", "refusals", ("ann",))
    for bad in ({"reason": ""}, {"reason": "   "}):
        with pytest.raises(BaccaratError):
            transaction(sessions, lambda s, b=bad: dealing.void_round(s, table_id, 1, now=T0, **b))
    with pytest.raises(BaccaratError, match="no round 9"):
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 9, reason="nope", now=T0))
    with sessions() as s:
        assert tables.open_round(s, table_id).number == 1


# --- review findings (attack: a decision resent after a reconnect) ------------------------------------------
# (red-team findings: each test failed before its fix; see the commit that brought it)


def test_a_draw_meant_for_an_earlier_round_never_lands_on_a_later_one(manual_clock, sessions):
    """The page resends a command held while the socket was down with the same key; a bet names its
    round, so a late one is refused, but a decision does not: a Draw chosen for round 1 and resent
    during round 2's decisions stakes a Draw wager on a hand the player never saw."""
    from baccarat.core.errors import IllegalActionError
    from baccarat.server.playing import betting, dealing, seating, tables
    from baccarat.server.playing.dealer import deal_due
    from baccarat.server.playing.timeline import Pace

    start = manual_clock.now()  # 2026-11-22 12:00 UTC
    held = manual_clock

    def setup(s):
        table = tables.create_table(s, "ld-d", "lucky-draw", paytable=1, betting_seconds=10, decision_seconds=10,
                                    pace=Pace(0, 0, 0), now=start)
        ann = accounts.register(s, "ann", "correct horse", grant=100_000).id
        seating.sit(s, table.id, ann)
        return table.id, ann
    table_id, ann = transaction(sessions, setup)
    for number in (1, 2):  # round 1's decision times out (she stands); round 2 reaches its decisions
        transaction(sessions, lambda s: betting.place_bets(s, table_id, ann, {"enter": 1_000}))
        held.advance(seconds=11)
        deal_due(sessions, now=held.now())  # the first deal: decisions open
        held.advance(seconds=1)
        if number == 1:
            held.advance(seconds=11)
            deal_due(sessions, now=held.now())  # nobody decided: round 1 is finished
    with sessions() as s:
        in_play = tables.round_in_play(s, table_id)
        assert in_play is not None and (in_play.number, in_play.status) == (2, "decision")
    with pytest.raises(IllegalActionError, match="round 1"):
        transaction(sessions, lambda s: dealing.decide(s, table_id, ann, "draw", round_number=1))


# --- struck cards: drawn with the shoe, shown from the close, multiplying the winning hand's pays -------------

#: a game with struck cards and a fee of 20% on Player and Banker, twenty cards struck at 2x or 3x each coup, so
#: that most rounds multiply a win
STRUCK = """[game]
code = "struck"
name = "Struck"
procedure = "punto_banco"
minimum = "1.00"

[[wagers]]
code = "player"
name = "Player"
maximum = "5000.00"
fee = "1/5"
events = [
  { event = "Player wins", when = { winner = "player" }, pays = "1" },
  { event = "Tie", when = { winner = "tie" }, pays = "push" },
  { event = "Banker wins", pays = "lose" },
]

[[wagers]]
code = "banker"
name = "Banker"
maximum = "5000.00"
fee = "20%"
events = [
  { event = "Banker wins", when = { winner = "banker" }, pays = "19/20" },
  { event = "Tie", when = { winner = "tie" }, pays = "push" },
  { event = "Player wins", pays = "lose" },
]

[[wagers]]
code = "tie"
name = "Tie"
maximum = "500.00"
events = [
  { event = "Tie", when = { winner = "tie" }, pays = "5" },
  { event = "No tie", pays = "lose" },
]

[multipliers]
wagers = ["player", "banker", "tie"]
cap = 512
struck = [{ cards = 20, weight = 1 }]
values = [{ multiplier = 2, weight = 1 }, { multiplier = 3, weight = 1 }]
"""


def _shoe_ended(sessions, table_id: int) -> bool:
    with sessions() as s:
        return s.scalar(select(ShoeRow.id).where(ShoeRow.table_id == table_id, ShoeRow.number == 2)) is not None


def test_struck_cards_are_drawn_with_the_shoe_shown_from_the_close_and_multiply_the_winning_hand(sessions,
                                                                                                  tmp_path):
    def setup(s):
        definitions.store(s, STRUCK, origin="struck.toml")
        table = tables.create_table(s, "struck-1", "struck", decks=1, betting_seconds=10, pace=Pace(2, 0, 1), now=T0)
        return table.id, accounts.register(s, "ann", "correct horse", grant=1_000_000).id

    bets = {"player": 1_000, "banker": 1_000, "tie": 100}
    multiplied = 0
    try:
        table_id, ann = transaction(sessions, setup)
        game = get_game("struck")
        while not _shoe_ended(sessions, table_id):
            closes = _closes_at(sessions, table_id)
            before = read(sessions, lambda s: wallet.balance(s, ann))
            _bet(sessions, table_id, ann, bets, closes - timedelta(seconds=1))
            # the stakes and the fees of Player and Banker (2.00 each) leave the wallet with the bet
            assert read(sessions, lambda s: wallet.balance(s, ann)) == before - 2_100 - 400
            with sessions() as s:  # while betting, no strike is shown
                assert views.table_view(s, table_id, closes - timedelta(seconds=1))["strike"] is None
            deal_due(sessions, closes)
            with sessions() as s:
                done = s.scalars(select(Round).where(Round.table_id == table_id, Round.status == "settled")
                                 .order_by(Round.id.desc())).first()
                stored = json.loads(done.result)
                shown = views.table_view(s, table_id, closes + timedelta(seconds=1))  # the first card comes at 2 s
                assert shown["strike"] == stored["strike"] and shown["cards"] == []  # shown before the first card
                net = {bet.wager: s.scalar(select(Settlement.net).where(Settlement.bet_id == bet.id))
                       for bet in s.scalars(select(Bet).where(Bet.round_id == done.id))}
            strike = strike_from_json(stored["strike"])
            assert len(strike) == 20 and {m for _, m in strike} <= {2, 3}
            coup = deal_coup(iter(Card.parse(c) for c in stored["cards"]).__next__)
            factor = stored["factor"]
            assert factor == coup_factor(strike, coup, game.multipliers)
            for code, stake in bets.items():  # a win is its odds times the factor, rounded down; a loss the stake
                odds = game.wager(code).odds(coup)
                assert net[code] == (-stake if odds < 0 else math.floor(stake * odds * (factor if odds else 1))), code
            multiplied += factor > 1
            # settled: the stakes come back with the nets, the fees stay with the house
            assert read(sessions, lambda s: wallet.balance(s, ann)) == before - 400 + sum(net.values())
        assert multiplied >= 1  # (each round's win is multiplied with probability about 0.7)
        assert read(sessions, lambda s: wallet.check_ledger(s)) == {"total": 0, "unbalanced": 0, "wallets": 0}
        with sessions() as s:
            doc = json.loads(json.dumps(history.export(s, ann, now=T0 + timedelta(days=1))))
    finally:
        unregister("struck")
    assert all("strike" in r for r in doc["rounds"] if r["table_id"] == table_id)
    report = verifier.verify_document(doc)
    assert report.ok and report.rounds >= 5, report.problems
    # a multiplier changed in the export: the seed draws another strike, and the verifier says so (exit 3)
    forged = json.loads(json.dumps(doc))
    first = next(r for r in forged["rounds"] if r["table_id"] == table_id)
    first["strike"][0]["multiplier"] = 5 - first["strike"][0]["multiplier"]
    assert any("struck cards" in problem for problem in verifier.verify_document(forged).problems)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert main(["verify", str(path)]) == 3
    # a fee left out of the export's movements: the stakes no longer come to the bets and their fees
    forged = json.loads(json.dumps(doc))
    stake = next(m for m in forged["movements"] if m.get("table_id") == table_id and m["kind"] == "stake")
    stake["amount"] += 400
    assert any("the bets and their fees come to" in p for p in verifier.verify_document(forged).problems)


def test_a_void_hands_back_the_stakes_and_their_fees(sessions):
    def setup(s):
        definitions.store(s, STRUCK, origin="struck.toml")
        table = tables.create_table(s, "struck-void", "struck", betting_seconds=10, pace=Pace(0, 0, 0), now=T0)
        return table.id, accounts.register(s, "ben", "correct horse", grant=100_000).id

    try:
        table_id, ben = transaction(sessions, setup)
        closes = _closes_at(sessions, table_id)
        _bet(sessions, table_id, ben, {"player": 1_001}, closes - timedelta(seconds=1))
        assert read(sessions, lambda s: wallet.balance(s, ben)) == 100_000 - 1_001 - 201  # 20% of 10.01, rounded up
        _bet(sessions, table_id, ben, {"player": 1_001}, closes - timedelta(seconds=1))  # the spot's fee: 20% of 20.02
        assert read(sessions, lambda s: wallet.balance(s, ben)) == 100_000 - 2_002 - 401
        transaction(sessions, lambda s: dealing.void_round(s, table_id, 1, reason="a misdeal", now=closes))
        assert read(sessions, lambda s: wallet.balance(s, ben)) == 100_000
        assert read(sessions, lambda s: wallet.check_ledger(s)) == {"total": 0, "unbalanced": 0, "wallets": 0}
    finally:
        unregister("struck")
