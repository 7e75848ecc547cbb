"""The services' TypedDicts name what the services build: the keys of what they return at run time are the
keys their types name (the TypedDicts are the API's response models too, ``tests/server/api/test_responses.py``,
and a key a TypedDict does not name would be dropped from the answer)."""

from __future__ import annotations

from typing import Any, NotRequired, get_origin, get_type_hints

from baccarat.core import fair
from baccarat.server.house import accounts, protection
from baccarat.server.playing import betting, records, seating, shapes, tables, views
from baccarat.server.storage.db import transaction


def _keys(shape: Any) -> tuple[set[str], set[str]]:
    """A TypedDict's (required, optional) keys.  (Its own ``__required_keys__`` cannot see a ``NotRequired``
    written in a module with postponed annotations on Python 3.11: the hints are read instead.)"""
    hints = get_type_hints(shape, include_extras=True)
    optional = set(shape.__optional_keys__) | {key for key, hint in hints.items() if get_origin(hint) is NotRequired}
    return set(hints) - optional, optional


def test_keys_are_read_from_the_hints_where_the_class_cannot_see_not_required() -> None:
    assert _keys(shapes.RecallEntry)[1] == {"seat"}
    assert _keys(shapes.RoundDetail)[0] == set()  # total=False: every key optional
    assert {"server_seed", "merkle_root"} <= _keys(records.ShoeRecord)[1]


def test_a_card_proof_of_the_api_names_the_keys_of_the_cores() -> None:
    """The API's :class:`records.CardProof` is the core's again (the core's is a ``typing.TypedDict``)."""
    assert _keys(records.CardProof) == _keys(fair.CardProof)


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
