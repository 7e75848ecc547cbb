"""The services' TypedDicts and the API's response models describe the same answers: each pair names the
same keys (optional in one exactly where optional in the other), and what the services build at run time
has those keys."""

from __future__ import annotations

from typing import Any, NotRequired, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from baccarat.server.api import responses
from baccarat.server.api.routers import oversight
from baccarat.server.api.routers import protection as protection_routes
from baccarat.server.house import accounts, audit, protection
from baccarat.server.operator import lookup, reports
from baccarat.server.playing import betting, dealing, fairness, history, records, seating, shapes, tables, views
from baccarat.server.storage.db import transaction


def _keys(shape: Any) -> tuple[set[str], set[str]]:
    """A TypedDict's (required, optional) keys.  (Its own ``__required_keys__`` cannot see a ``NotRequired``
    written in a module with postponed annotations on Python 3.11: the hints are read instead.)"""
    hints = get_type_hints(shape, include_extras=True)
    optional = set(shape.__optional_keys__) | {key for key, hint in hints.items() if get_origin(hint) is NotRequired}
    return set(hints) - optional, optional


def _fields(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """A response model's (required, optional) fields, by the names they have in the JSON."""
    required, optional = set(), set()
    for name, field in model.model_fields.items():
        (required if field.is_required() else optional).add(field.alias or name)
    return required, optional


PAIRS = [
    (shapes.TableView, responses.TableView),
    (betting.BetAnswer, responses.BetsPlaced),
    (protection.ProtectionStatus, protection_routes.ProtectionOut),
    (protection.LimitStatus, protection_routes.LimitOut),
    (protection.SessionResult, protection_routes.SessionOut),
    (dealing.DecisionAnswer, responses.Decided),
    (dealing.VoidedRound, responses.VoidedRound),
    (shapes.YourState, responses.YourState),
    (shapes.YourSettlement, responses.YourSettlement),
    (shapes.ShownCard, responses.ShownCard),
    (shapes.SeatedPlayer, responses.SeatedPlayer),
    (shapes.Announcement, responses.Announcement),
    (shapes.ShoeInPlay, responses.ShoeInPlay),
    (shapes.DecisionWindow, responses.DecisionWindow),
    (shapes.VoidResult, responses.VoidResult),
    (shapes.CoupResult, responses.CoupResult),
    (shapes.SeatsResult, responses.SeatsResult),
    (shapes.GameInfo, responses.GameInfo),
    (shapes.WagerInfo, responses.WagerInfo),
    (shapes.TableRoads, responses.Roads),
    (shapes.RoadStats, responses.RoadStats),
    (shapes.RecallEntry, responses.RoundRecall),
    (shapes.RoundDetail, responses.RoundDetail),
    (records.StrategyCard, responses.Strategy),
    (records.ShoeRecord, responses.ShoeRecord),
    (records.ShoeRound, responses.ShoeRound),
    (history.HistoryExport, responses.HistoryExport),
    (history.ExportedRound, responses.ExportedRound),
    (history.ExportedShoe, responses.ExportedShoe),
    (fairness.ClientSeed, responses.ClientSeed),
    (lookup.ConsoleTable, oversight.ConsoleTable),
    (lookup.FoundPlayer, oversight.PlayerFound),
    (lookup.PlayerRecord, oversight.PlayerOut),
    (lookup.StatementLine, oversight.StatementLine),
    (lookup.RecalledRound, oversight.RecalledRound),
    (reports.TablesReport, oversight.TablesReport),
    (reports.TableDay, oversight.TableDay),
    (reports.WagerTotals, oversight.WagerTotals),
    (audit.AuditEntryJson, oversight.AuditEntryOut),
    (audit.ChainCheck, oversight.ChainCheck),
]


@pytest.mark.parametrize(("shape", "model"), PAIRS, ids=[model.__name__ for _, model in PAIRS])
def test_a_typed_dict_and_its_response_model_name_the_same_keys(shape: Any, model: type[BaseModel]) -> None:
    assert _keys(shape) == _fields(model)


def test_a_wallet_movement_is_exported_without_the_round_id_it_is_read_with() -> None:
    required, optional = _keys(history.Movement)
    assert (required, optional - {"round_id"}) == _fields(responses.WalletMovement)


def test_what_the_services_build_has_the_keys_their_types_name(sessions: Any) -> None:
    def work(s: Any) -> None:
        table = tables.create_table(s, "typed", "ez", betting_seconds=10)
        player = accounts.register(s, "typist", "correct horse", grant=10_000).id
        seating.sit(s, table.id, player)
        view = views.table_view(s, table.id)
        assert set(view) == _keys(shapes.TableView)[0]
        answer = betting.place_bets(s, table.id, player, {"banker": 500})
        assert set(answer) == _keys(betting.BetAnswer)[0]
        mine = views.you(s, table.id, player)
        assert set(mine) == _keys(shapes.YourState)[0]
        protection.set_limit(s, player, "loss", "day", 5_000)
        status = protection.status(s, player)
        assert set(status) == _keys(protection.ProtectionStatus)[0]  # the route adds the optional session
        assert set(status["limits"][0]) == _keys(protection.LimitStatus)[0]
    transaction(sessions, work)
