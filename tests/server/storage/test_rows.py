"""Rows written in one statement (:func:`baccarat.server.storage.db.insert_rows`: PostgreSQL's rows as one JSON
parameter,
SQLite's executemany) and ids taken ahead from PostgreSQL's sequences (:func:`baccarat.server.storage.db.new_ids`):
every row as given, whatever its text, size or order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import cast

import pytest
from sqlalchemy import Table, select
from sqlalchemy.exc import DBAPIError

from baccarat.server.storage import db
from baccarat.server.storage.db import session_factory, transaction
from baccarat.server.storage.models import LedgerTransaction, Posting

from ...conftest import ON_BOTH

ENTRIES = cast(Table, LedgerTransaction.__table__)
POSTINGS = cast(Table, Posting.__table__)
NOW = datetime(2026, 11, 23, 22, 0, tzinfo=UTC)
#: text a quoting or encoding mistake would change: quotes, braces, commas, backslashes, NULL, JSON's escapes,
#: control characters, non-ASCII and beyond the BMP
AWKWARD = ['plain', 'it\'s "quoted"', "{braces}, commas", "back\\slash", "NULL", "", "百家乐 ♠", " spaced ",
           "\\u0041 is not A", "tab\tand\nnewline", "🂡 ace", "null"]


@ON_BOTH
def test_insert_rows_writes_every_row_as_given(engine):
    sessions = session_factory(engine)

    def work(s) -> list[int]:  # type: ignore[no-untyped-def]
        connection = s.connection()
        count = len(AWKWARD)
        if db.on_postgresql(connection):
            ids = db.new_ids(connection, ENTRIES, count)
        else:
            ids = [1000 + i for i in range(count)]
        db.insert_rows(connection, ENTRIES, [{"id": entry, "kind": "stake", "memo": memo,
                                              "created_at": NOW + timedelta(microseconds=i)}
                                             for i, (entry, memo) in enumerate(zip(ids, AWKWARD, strict=True))])
        # each entry balanced (the database refuses one that is not: migration 0014), its amounts near the limit
        db.insert_rows(connection, POSTINGS, [{"transaction_id": entry, "account": account, "amount": sign * amount}
                                              for i, entry in enumerate(ids) for amount in [(-1) ** i * (2**62 + i)]
                                              for account, sign in ((f"wallet:{i}", 1), ("house", -1))])
        db.insert_rows(connection, POSTINGS, [])  # nothing to write: no statement
        return ids
    ids = transaction(sessions, work)
    assert len(set(ids)) == len(AWKWARD)

    def back(s):  # type: ignore[no-untyped-def]
        connection = s.connection()
        entries = {row.id: (row.memo, row.created_at) for row in connection.execute(
            select(ENTRIES.c.id, ENTRIES.c.memo, ENTRIES.c.created_at).where(ENTRIES.c.id.in_(ids)))}
        postings = {row.transaction_id: (row.account, row.amount) for row in connection.execute(
            select(POSTINGS.c.transaction_id, POSTINGS.c.account, POSTINGS.c.amount)
            .where(POSTINGS.c.transaction_id.in_(ids), POSTINGS.c.account.like("wallet:%")))}
        return entries, postings
    entries, postings = db.read(sessions, back)
    for i, (entry, memo) in enumerate(zip(ids, AWKWARD, strict=True)):
        written_memo, written_at = entries[entry]
        assert written_memo == memo
        assert written_at.replace(tzinfo=written_at.tzinfo or UTC) == NOW + timedelta(microseconds=i)
        assert postings[entry] == (f"wallet:{i}", (-1) ** i * (2**62 + i))


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite has no sequences
def test_ids_taken_ahead_are_never_given_to_another_row(engine):
    """Ids taken from the sequence are skipped by the rows inserted without an id after them."""
    sessions = session_factory(engine)

    def work(s) -> tuple[list[int], int]:  # type: ignore[no-untyped-def]
        connection = s.connection()
        taken = db.new_ids(connection, ENTRIES, 50)
        later = connection.execute(ENTRIES.insert().values(kind="grant", memo="", created_at=NOW)
                                   .returning(ENTRIES.c.id)).scalar_one()
        db.insert_rows(connection, ENTRIES, [{"id": entry, "kind": "stake", "memo": "", "created_at": NOW}
                                             for entry in taken])
        return taken, later
    taken, later = transaction(sessions, work)
    assert len(set(taken)) == 50
    assert later not in taken


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # SQLite does not keep lengths
def test_a_string_too_long_for_its_column_is_refused_not_cut_short(engine):
    """As a row written alone: the JSON rows carry strings of any length, the column refuses a longer one."""
    sessions = session_factory(engine)

    def work(s) -> None:  # type: ignore[no-untyped-def]
        connection = s.connection()
        entry = db.new_ids(connection, ENTRIES, 1)[0]
        db.insert_rows(connection, ENTRIES, [{"id": entry, "kind": "stake", "memo": "", "created_at": NOW}])
        db.insert_rows(connection, POSTINGS, [{"transaction_id": entry, "account": "w" * 65, "amount": 1}])
    with pytest.raises(DBAPIError, match="too long"):
        transaction(sessions, work)
    assert db.read(sessions, lambda s: s.connection().execute(select(POSTINGS.c.id)).all()) == []
