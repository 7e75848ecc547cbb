"""What a player can learn while a round is dealt: every view and every refusal reachable during the deal is the
same for a coup of 4, 5 and 6 cards that begin with the same cards, so none of them tells how many cards are still
to come (when the next window opens, when a result or an export will be ready); nor does a pit boss's recall of the
round (only surveillance's has every card)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baccarat.core.cards import Card
from baccarat.core.errors import BaccaratError
from baccarat.server.house import accounts, wallet
from baccarat.server.operator import lookup
from baccarat.server.playing import betting, dealing, fairness, history, scoreboards, seating, tables, views
from baccarat.server.playing.timeline import Pace
from baccarat.server.storage.db import make_engine, session_factory, transaction

from ...conftest import ON_BOTH

T0 = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
PACE = Pace(1.0, 0.6, 4.0)
SQUEEZE = 6.0
#: The turned card (an Ace: one more burned), the burned card, then Player 5 and Banker 6 (dealt first, shown
#: first) and the rest of each coup: Player 9 against Banker 6 (4 cards); Player 5 draws a 2, Banker 7 stands
#: (5 cards); Player 5 draws a 2, Banker 3 draws (6 cards).
COUPS = {4: "As 9h 5d 6d 4c Kc", 5: "As 9h 5d 6d Kh Ac 2s", 6: "As 9h 5d 6d Kh 7c 2s 3h"}


def _stacked(monkeypatch: pytest.MonkeyPatch, cards: str) -> None:
    """Every shoe begins with ``cards``, the rest of its order as shuffled."""
    real = fairness.shoe_cards
    front = [Card.parse(code) for code in cards.split()]

    def stacked(shoe: Any) -> tuple[Card, ...]:
        rest = list(real(shoe))
        for card in front:
            rest.remove(card)
        return (*front, *rest)
    monkeypatch.setattr(fairness, "shoe_cards", stacked)


def _same_shoe(answers: Any) -> Any:
    """``answers`` with what identifies each database's shoe left out (its seed's commitment and the Merkle root of
    its cards: a new random seed each): what is left must be the same for every coup."""
    if isinstance(answers, dict):
        return {key: "(this shoe's)" if key in ("commitment", "merkle_root") else _same_shoe(value)
                for key, value in answers.items()}
    if isinstance(answers, list):
        return [_same_shoe(value) for value in answers]
    return answers


def _outcome(call: Any) -> Any:
    """What a request would answer: its value, or its refusal's code and parameters."""
    try:
        return call()
    except BaccaratError as refused:
        return {"refused": refused.code, "params": refused.params}


def _everything(sessions: Any, table_id: int, ids: list[int], now: datetime) -> dict[str, Any]:
    """Every view and every answer a player (one who bet, one who is seated and did not, one who is neither) can get
    at ``now``."""
    with sessions() as s:
        view, state = views.table_view_at(s, table_id, now)
        seen = {"view": view, "you": views.yours(s, state, ids), "balances": wallet.shown_balances(s, ids, now),
                "recall": {a: scoreboards.recall(s, a, now=now) for a in ids},
                "roads": scoreboards.table_roads(s, table_id, now),
                "exports": {a: _outcome(lambda a=a: history.export(s, a, now=now)) for a in ids},
                # and the pit's: a pit boss's recall of the round (house/roles.py: only surveillance sees it all)
                "pit boss's recall": lookup.recall_round(s, table_id, 1, every_card=False, now=now)}
    for account in ids:
        seen[f"bet {account}"] = _outcome(lambda account=account: transaction(
            sessions, lambda s: betting.place_bets(s, table_id, account, {"banker": 100}, now=now)))
    return seen


def _play(sessions: Any, monkeypatch: pytest.MonkeyPatch, cards: str, squeeze: bool) -> tuple[dict[str, Any], int]:
    """A mini table whose shoe begins with ``cards``; alice bets and bob sits, carol only watches.  What each sees
    when the round's first two cards are shown (and no third yet), or at a squeeze table (alice squeezes the
    Player's cards) when the first four are face down, and how many cards the coup had."""
    _stacked(monkeypatch, cards)

    def setup(s: Any) -> tuple[int, list[int]]:
        table = tables.create_table(s, "deal-length", "mini", betting_seconds=10, pace=PACE, now=T0,
                                    squeeze_seconds=SQUEEZE if squeeze else 0.0)
        ids = [accounts.register(s, name, "correct horse", grant=100_000).id for name in ("alice", "bob", "carol")]
        seating.sit(s, table.id, ids[1], now=T0)
        return table.id, ids
    table_id, ids = transaction(sessions, setup)
    transaction(sessions, lambda s: betting.place_bets(s, table_id, ids[0], {"player": 1_000}, now=T0))
    closes = T0 + timedelta(seconds=10)
    transaction(sessions, lambda s: dealing.deal_round(s, 1, closes + betting.ON_THE_WAY))
    shown = closes + timedelta(seconds=PACE.no_more_bets + (4 if squeeze else 2) * PACE.card - PACE.card / 2)
    seen = _everything(sessions, table_id, ids, shown)
    with sessions() as s:
        dealt = len(json.loads(s.get(views.Round, 1).result)["deal"])
        every_card = lookup.recall_round(s, table_id, 1, every_card=True, now=shown)
    assert len(every_card["deal"]) == dealt and "winner" in every_card and not every_card["withheld"]  # surveillance
    return seen, dealt


@ON_BOTH
@pytest.mark.parametrize("squeeze", [False, True], ids=["dealt", "squeezed"])
def test_nothing_reachable_during_a_deal_tells_how_many_cards_are_coming(sessions, more_databases, monkeypatch,
                                                                         squeeze):
    """The 4-card coup on the test's database, the 5- and 6-card coups each on a fresh one: the same answers."""
    seen = {4: _play(sessions, monkeypatch, COUPS[4], squeeze)}
    for cards in (5, 6):
        engine = make_engine(more_databases())
        try:
            seen[cards] = _play(session_factory(engine), monkeypatch, COUPS[cards], squeeze)
            with session_factory(engine)() as s:
                assert wallet.check_ledger(s) == {"total": 0, "unbalanced": 0, "wallets": 0}
        finally:
            engine.dispose()
    assert {cards: dealt for cards, (_, dealt) in seen.items()} == {4: 4, 5: 5, 6: 6}
    first, _ = seen[4]
    view = first["view"]
    assert view["phase"] == "dealing" and [c["card"] for c in view["cards"]] == ([] if squeeze else ["5d", "6d"])
    if squeeze:
        assert [c["index"] for c in view["squeeze"]["cards"]] == [0, 1, 2, 3], view["squeeze"]
    assert {first[f"bet {a}"]["refused"] for a in (1, 2, 3)} == {"bet.dealing"}
    assert first["bet 1"]["params"] == {"round": 2}
    assert first["exports"][1] == {"refused": "history.still_dealing", "params": {}}
    recalled = first["pit boss's recall"]
    assert recalled["withheld"] and recalled["status"] == "dealing" and "winner" not in recalled
    assert [c["card"] for c in recalled["deal"]] == [c["card"] for c in view["cards"]]  # what the table shows
    assert recalled["house_net"] is None and [b["net"] for b in recalled["bets"]] == [None]
    said = {cards: json.dumps(_same_shoe(answers), default=str, sort_keys=True, indent=1)
            for cards, (answers, _) in seen.items()}
    assert said[5] == said[4] and said[6] == said[4]
