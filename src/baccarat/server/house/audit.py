"""The operator audit trail: every operator action (who, when, what, before and after), appended in
the same transaction as the action, each entry chained to the one before by SHA-256 (as GLI-19's
significant-event log asks).

An entry's digest is the SHA-256 of its canonical JSON (id, time, actor, action, target, before,
after) together with the digest of the entry before it (64 zeros for the first).  Editing any
field of any entry, deleting one or reordering them changes a digest that a later entry (or the
entry itself) holds, and :func:`verify` names the first entry where the chain breaks.

Appends are serialised: on PostgreSQL a transaction-scoped advisory lock is taken before the last
entry is read; SQLite has one writer at a time; and ``previous`` is unique, so even without the
lock two entries could never both follow the same one (the chain cannot fork).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypedDict, TypeVar

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from baccarat.server.storage.db import on_postgresql
from baccarat.server.storage.models import Account, AuditEntry, aware
from baccarat.server.storage.models import now as _now

T = TypeVar("T")
GENESIS = "0" * 64
#: The advisory lock key that serialises appends on PostgreSQL (any fixed 64-bit number).
_LOCK_KEY = 0x6175646974  # "audit"


class AuditEntryJson(TypedDict):
    """One entry of the trail as the console and ``baccarat audit`` show it."""

    id: int
    at: str
    actor: str
    actor_id: int | None
    action: str
    target: str
    # The state the action changed, as the action recorded it: free-form JSON (a table's settings, a
    # balance, a round's status), different for every action, so truly Any.
    before: Any
    after: Any
    previous: str
    digest: str


class ChainBreak(TypedDict):
    id: int
    problem: str


class ChainCheck(TypedDict):
    """:func:`verify`'s answer."""

    ok: bool
    entries: int
    broken: ChainBreak | None
    head: str | None


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: the form that is hashed."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest_of(entry_id: int, at: datetime, actor_id: int | None, actor: str, action: str, target: str,
              before: str, after: str, previous: str) -> str:
    """The SHA-256 an entry must hold, from its fields and its predecessor's digest."""
    body = canonical({"id": entry_id, "at": aware(at).isoformat(), "actor_id": actor_id, "actor": actor,
                       "action": action, "target": target, "before": before, "after": after})
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def record(s: Session, actor: Account | str, action: str, target: str, before: Any, after: Any,
           now: datetime | None = None) -> AuditEntry:
    """Append one entry (in the caller's transaction: it commits or rolls back with the action).
    ``actor`` is the operator's account, or words for the command line."""
    at = now or _now()
    if on_postgresql(s.get_bind()):
        s.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    last = s.execute(select(AuditEntry.id, AuditEntry.digest).order_by(AuditEntry.id.desc()).limit(1)).first()
    entry_id, previous = (last.id + 1, last.digest) if last is not None else (1, GENESIS)
    actor_id, actor_name = (actor.id, actor.username) if isinstance(actor, Account) else (None, actor[:64])
    before_json, after_json = canonical(before), canonical(after)
    entry = AuditEntry(id=entry_id, at=at, actor_id=actor_id, actor=actor_name, action=action, target=target[:64],
                       before=before_json, after=after_json, previous=previous,
                       digest=digest_of(entry_id, at, actor_id, actor_name, action, target[:64], before_json,
                                        after_json, previous))
    s.add(entry)
    s.flush()
    return entry


def audited(s: Session, actor: Account | str, action: str, target: str, look: Callable[[], Any],
            act: Callable[[], T], *, extra: Callable[[T], Mapping[str, object]] | None = None) -> T:
    """Do ``act`` and record it: ``look()`` before and after gives the state it changed; ``extra``
    adds what the answer says (a refund's amount) to the after side."""
    before = look()
    result = act()
    after = look()
    if extra is not None:
        after = {**after, **extra(result)} if isinstance(after, dict) else {"state": after, **extra(result)}
    record(s, actor, action, target, before, after)
    return result


def entry_json(entry: AuditEntry) -> AuditEntryJson:
    return {"id": entry.id, "at": aware(entry.at).isoformat(), "actor": entry.actor, "actor_id": entry.actor_id,
            "action": entry.action, "target": entry.target, "before": json.loads(entry.before),
            "after": json.loads(entry.after), "previous": entry.previous, "digest": entry.digest}


def trail(s: Session, *, after_id: int = 0, limit: int = 200) -> list[AuditEntryJson]:
    """Entries after ``after_id``, oldest first."""
    rows = s.scalars(select(AuditEntry).where(AuditEntry.id > after_id).order_by(AuditEntry.id).limit(limit))
    return [entry_json(entry) for entry in rows]


def verify(s: Session) -> ChainCheck:
    """Check the whole chain: ``{"ok", "entries", "broken"}``, ``broken`` naming the first entry
    whose place, link or digest is wrong (``{"id", "problem"}``), else None."""
    previous, expected_id, count = GENESIS, 1, 0
    for entry in s.scalars(select(AuditEntry).order_by(AuditEntry.id).execution_options(yield_per=500)):
        count += 1
        problem = None
        if entry.id != expected_id:
            problem = f"entry {expected_id} is missing (the next one is {entry.id})"
        elif entry.previous != previous:
            problem = "it does not hold the digest of the entry before it (an entry was removed or replaced)"
        elif entry.digest != digest_of(entry.id, entry.at, entry.actor_id, entry.actor, entry.action, entry.target,
                                       entry.before, entry.after, entry.previous):
            problem = "its contents do not match its digest (it was edited)"
        if problem is not None:
            return {"ok": False, "entries": count, "broken": {"id": expected_id, "problem": problem}, "head": None}
        previous, expected_id = entry.digest, expected_id + 1
    # Removing the newest entries leaves a shorter chain that still checks: compare the head digest
    # with one written down elsewhere (the command prints it) to catch that.
    return {"ok": True, "entries": count, "broken": None, "head": previous}
