"""The operator audit trail: every operator action (who, when, what, before and after), appended in
the same transaction as the action, each entry chained to the one before by SHA-256 (as GLI-19's
significant-event log asks).

An entry's digest is the SHA-256 of its canonical JSON (id, time, actor, action, target, before,
after) together with the digest of the entry before it (64 zeros for the first).  Editing any
field of any entry, deleting one or reordering them changes a digest that a later entry (or the
entry itself) holds, and :func:`verify` names the first entry where the chain breaks.

The published formula lets whoever can write the database recompute every digest after an edit, so
each entry is also signed, in the transaction that writes it, with an Ed25519 key the database never
holds (:mod:`baccarat.server.house.audit_keys`): :func:`verify` checks every signature with the public
key alone and names an edited entry ("bad signature").  Entries made before the key existed hold no
signature and are counted as unsigned; an unsigned entry after a signed one is named (a signature was
removed).  Removing the newest entries leaves a shorter chain that checks: the heads that each server
signs into a file of its own (:mod:`baccarat.server.house.audit_heads`) catch that.

A staff movement of money (a credit, a debit, a void's refund: :data:`AUDITED_KINDS`) is recorded in the same
transaction as its entry, linked both ways: the entry names the movement in its signed record (``after["movement"]``)
and the movement names the entry (``ledger_transactions.audit_id``).  :func:`verify` then finds a movement whose
entry was removed (with the triggers and constraints turned off, and even if no signed head covered it), a link
changed, or an entry naming a movement that is not linked to it.  The ledger's credits and debits are also counted
against the trail's credit and debit entries (each has always had one); refunds made before the links existed
(before the first entry naming a movement) are not checked.

Appends are serialised: on PostgreSQL a transaction-scoped advisory lock is taken before the last
entry is read; SQLite has one writer at a time; and ``previous`` is unique, so even without the
lock two entries could never both follow the same one (the chain cannot fork).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session, sessionmaker
from typing_extensions import TypedDict

from baccarat.server.house.audit_keys import entry_message, fingerprint, sign, signed_by
from baccarat.server.storage import metrics
from baccarat.server.storage.db import on_postgresql
from baccarat.server.storage.models import Account, AuditEntry, LedgerTransaction, aware
from baccarat.server.storage.models import now as _now

T = TypeVar("T")
GENESIS = "0" * 64
#: The advisory lock key that serialises appends on PostgreSQL (any fixed 64-bit number).
_LOCK_KEY = 0x6175646974  # "audit"
#: Where a session holds the signing key (``Session.info``): set on the session factory by :func:`use_key`.
_KEY = "audit_signing_key"
#: What runs once a transaction that recorded an entry commits (``Session.info``, set by :func:`after_entry`).
_AFTER = "audit_after_entry"
#: The ledger movements only staff make, each with its audit entry (a refund: a void, by an operator or by the
#: dealer after repeated failures).
AUDITED_KINDS = ("credit", "debit", "refund")


class AuditEntryJson(TypedDict):
    """One entry of the trail as the console and ``baccarat audit`` show it."""

    id: int
    at: str
    actor: str
    action: str
    target: str
    # free-form JSON, different for every action, so truly Any
    before: Any
    """the state the action changed, as it was before: free-form JSON as the action recorded it (a table's
    settings, a balance, a round's status)"""
    after: Any
    """that state after the action"""
    previous: str
    digest: str
    # the API answers the keys in the order written here: this one last, as it always has
    actor_id: int | None
    """the operator's account (none for the command line)"""


class ChainBreak(TypedDict):
    id: int | None
    """the first entry found wrong (None: a ledger movement without its entry)"""
    problem: str


class ChainCheck(TypedDict):
    """:func:`verify`'s answer: the chain checked, and the first broken entry if any."""

    ok: bool
    entries: int
    broken: ChainBreak | None
    head: str | None
    signed: int
    """entries signed (each signature checked when a key was given: the server checks with its public key)"""
    unsigned: int
    """entries made before the signing key existed (all before the first signed entry)"""
    key: str | None
    """the SHA-256 fingerprint of the public key the signatures were checked with (None: not checked)"""
    heads: int
    """signed heads checked: none over the API (`baccarat audit verify` checks the heads file)"""
    movements: int
    """staff movements of money (credits, debits, refunds) checked against their entries"""


class SignedHead(TypedDict):
    """A head signed into the heads file whose signature has been checked
    (:func:`baccarat.server.house.audit_heads.read_heads`)."""

    line: int
    entry: int
    digest: str
    at: str
    signed_from: int | None


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: the form that is hashed."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest_of(entry_id: int, at: datetime, actor_id: int | None, actor: str, action: str, target: str,
              before: str, after: str, previous: str) -> str:
    """The SHA-256 an entry must hold, from its fields and its predecessor's digest."""
    body = canonical({"id": entry_id, "at": aware(at).isoformat(), "actor_id": actor_id, "actor": actor,
                       "action": action, "target": target, "before": before, "after": after})
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def use_key(sessions: sessionmaker[Session], key: Ed25519PrivateKey) -> None:
    """Sign every entry that sessions of ``sessions`` record with ``key`` (kept in ``Session.info``: in
    this process's memory, never in the database)."""
    info = dict(sessions.kw.get("info") or {})
    info[_KEY] = key
    sessions.configure(info=info)


def after_entry(sessions: sessionmaker[Session], then: Callable[[dict[str, Any]], None]) -> None:
    """Call ``then`` with the trail's new head (``entry``, ``digest``, ``at``, ``signed_from``) once each transaction
    of ``sessions`` that recorded an entry has committed (the server signs it into its heads file at once,
    :mod:`baccarat.server.house.audit_heads`: the head is read in the entry's own transaction, so signing it needs
    no connection of its own, and a transaction rolled back signs nothing)."""
    info = dict(sessions.kw.get("info") or {})
    info[_AFTER] = then
    sessions.configure(info=info)


def signing_key(s: Session) -> Ed25519PrivateKey | None:
    """The key that signs what ``s`` records (:func:`use_key`), if any."""
    key = s.info.get(_KEY)
    return key if isinstance(key, Ed25519PrivateKey) else None


def public_key(sessions: sessionmaker[Session]) -> Ed25519PublicKey | None:
    """The public half of the key that sessions of ``sessions`` sign with (:func:`use_key`), if any."""
    key = (sessions.kw.get("info") or {}).get(_KEY)
    return key.public_key() if isinstance(key, Ed25519PrivateKey) else None


def record(s: Session, actor: Account | str, action: str, target: str, before: Any, after: Any,
           now: datetime | None = None, *, movement: int | None = None) -> AuditEntry:
    """Append one entry (in the caller's transaction: it commits or rolls back with the action), signed
    with the session's key (:func:`use_key`); without one the entry is unsigned, which :func:`verify`
    names once signed entries precede it.  ``actor`` is the operator's account, or words for the
    command line.  ``movement``: the ledger movement the action made, linked both ways with the entry."""
    at = now or _now()
    if movement is not None:
        after = {**after, "movement": movement}
    if on_postgresql(s.get_bind()):
        s.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    last = s.execute(select(AuditEntry.id, AuditEntry.digest).order_by(AuditEntry.id.desc()).limit(1)).first()
    entry_id, previous = (last.id + 1, last.digest) if last is not None else (1, GENESIS)
    actor_id, actor_name = (actor.id, actor.username) if isinstance(actor, Account) else (None, actor[:64])
    before_json, after_json = canonical(before), canonical(after)
    digest = digest_of(entry_id, at, actor_id, actor_name, action, target[:64], before_json, after_json, previous)
    key = signing_key(s)
    entry = AuditEntry(id=entry_id, at=at, actor_id=actor_id, actor=actor_name, action=action, target=target[:64],
                       before=before_json, after=after_json, previous=previous, digest=digest,
                       signature=sign(key, entry_message(entry_id, digest)) if key is not None else None)
    s.add(entry)
    s.flush()
    then = s.info.get(_AFTER)
    if then is not None:
        signed_from = s.scalar(select(func.min(AuditEntry.id)).where(AuditEntry.signature.is_not(None)))
        head = {"entry": entry_id, "digest": digest, "at": aware(_now()).isoformat(), "signed_from": signed_from}
        metrics.after_commit(s, lambda: then(head))
    if movement is not None:
        s.execute(update(LedgerTransaction).where(LedgerTransaction.id == movement).values(audit_id=entry_id))
    return entry


def audited(s: Session, actor: Account | str, action: str, target: str, look: Callable[[], Any],
            act: Callable[[], T], *, extra: Callable[[T], Mapping[str, object]] | None = None,
            movement: Callable[[T], int | None] | None = None) -> T:
    """Do ``act`` and record it: ``look()`` before and after gives the state it changed; ``extra``
    adds what the answer says (a refund's amount) to the after side; ``movement`` gives the ledger movement it
    made (linked with the entry)."""
    before = look()
    result = act()
    after = look()
    if extra is not None:
        after = {**after, **extra(result)} if isinstance(after, dict) else {"state": after, **extra(result)}
    record(s, actor, action, target, before, after, movement=None if movement is None else movement(result))
    return result


def entry_json(entry: AuditEntry) -> AuditEntryJson:
    return {"id": entry.id, "at": aware(entry.at).isoformat(), "actor": entry.actor, "actor_id": entry.actor_id,
            "action": entry.action, "target": entry.target, "before": json.loads(entry.before),
            "after": json.loads(entry.after), "previous": entry.previous, "digest": entry.digest}


def trail(s: Session, *, after_id: int = 0, limit: int = 200) -> list[AuditEntryJson]:
    """Entries after ``after_id``, oldest first."""
    rows = s.scalars(select(AuditEntry).where(AuditEntry.id > after_id).order_by(AuditEntry.id).limit(limit))
    return [entry_json(entry) for entry in rows]


def verify(s: Session, *, public: Ed25519PublicKey | None = None,
           heads: Sequence[SignedHead] = ()) -> ChainCheck:
    """Check the whole chain: each entry's place, its link to the one before, its digest, and (with
    ``public``) its signature; then that every signed head in ``heads`` is still in the chain with the
    same digest.  ``broken`` names the first entry found wrong (``{"id", "problem"}``), else None.

    Entries without a signature are counted as ``unsigned`` while no signed entry came before them (made
    before the key existed); after one, or at or after the entry a signed head says signing began at,
    an unsigned entry is named: its signature was removed.  Without ``public`` signatures are counted,
    not checked (``key`` is None)."""
    heads_at: dict[int, list[SignedHead]] = {}
    for head in heads:
        heads_at.setdefault(head["entry"], []).append(head)
    # the first entry a signed head says was signed: none at or after it may be unsigned
    signed_since = min((head["signed_from"] for head in heads if head["signed_from"] is not None), default=None)
    previous, expected_id, count, signed, unsigned = GENESIS, 1, 0, 0, 0

    named: dict[int, int] = {}  # movement -> the entry naming it
    actions: Counter[str] = Counter()
    movements = 0

    def answer(broken: ChainBreak | None, head: str | None) -> ChainCheck:
        return {"ok": broken is None, "entries": count, "broken": broken, "head": head, "signed": signed,
                "unsigned": unsigned, "key": fingerprint(public) if public is not None else None,
                "heads": len(heads), "movements": movements}

    for entry in s.scalars(select(AuditEntry).order_by(AuditEntry.id).execution_options(yield_per=500)):
        count += 1
        problem = _problem(entry, expected_id, previous, public, signed=signed, signed_since=signed_since)
        if problem is None:
            for head in heads_at.get(entry.id, ()):
                if head["digest"] != entry.digest:
                    problem = (f"it is not the entry signed as the head at {head['at']} (heads file line "
                               f"{head['line']}): the trail was rewritten")
                    break
        if problem is not None:
            return answer({"id": expected_id, "problem": problem}, None)
        if entry.signature is None:
            unsigned += 1
        else:
            signed += 1
        actions[entry.action] += 1
        if '"movement"' in entry.after:
            moved = json.loads(entry.after).get("movement")
            if isinstance(moved, int):
                named[moved] = entry.id
        previous, expected_id = entry.digest, expected_id + 1
    beyond = [head for head in heads if head["entry"] > count]
    if beyond:  # the newest entries were removed: the chain still checks, but a signed head held more
        newest = max(beyond, key=lambda head: head["entry"])
        return answer({"id": count + 1, "problem": (
            f"it is missing, yet entry {newest['entry']} was signed as the head at {newest['at']} (heads file "
            f"line {newest['line']}): the newest entries were removed")}, None)
    movements, broken = _check_movements(s, named, actions)
    return answer(broken, None if broken is not None else previous)


def _check_movements(s: Session, named: dict[int, int], entries: Counter[str]) -> tuple[int, ChainBreak | None]:
    """The staff movements checked against the trail, and the first problem found.  ``named``: movement -> the
    entry naming it; ``entries``: the trail's entries by action.

    Every credit and debit has always had its entry: their counts in the ledger and in the trail must agree (an
    entry removed from the end leaves the chain whole, but one movement more than entries).  Then every link: a
    movement from the first one an entry names on is named by the entry it names, and that entry names it."""
    counts = Counter(dict(s.execute(select(LedgerTransaction.kind, func.count()).where(
        LedgerTransaction.kind.in_(("credit", "debit"))).group_by(LedgerTransaction.kind)).all()))
    for kind in ("credit", "debit"):
        if counts[kind] != entries[kind]:
            return 0, {"id": None, "problem": (
                f"the ledger holds {counts[kind]} {kind} movements and the trail {entries[kind]} {kind} entries: "
                f"{'an entry was removed' if counts[kind] > entries[kind] else 'a movement was removed'}")}
    first = min(named, default=None)
    checked = 0
    rows = s.execute(select(LedgerTransaction.id, LedgerTransaction.kind, LedgerTransaction.audit_id)
                     .where(LedgerTransaction.kind.in_(AUDITED_KINDS)).order_by(LedgerTransaction.id)
                     .execution_options(yield_per=1000))
    for movement, kind, audit_id in rows:
        if (first is None or movement < first) and audit_id is None:
            continue  # made before the links existed
        checked += 1
        entry = named.pop(movement, None)
        if entry is None:
            return checked, {"id": audit_id, "problem": (
                f"ledger movement {movement} ({kind}) has no audit entry naming it: its entry was removed, or it "
                "was written outside the server")}
        if audit_id != entry:
            return checked, {"id": entry, "problem": (
                f"it names ledger movement {movement} ({kind}), which names "
                f"{'no entry' if audit_id is None else f'entry {audit_id}'}: the link was changed")}
    if named:
        movement, entry = min(named.items())
        return checked, {"id": entry, "problem": (
            f"it names ledger movement {movement}, which is not a credit, debit or refund in the ledger: the "
            "movement was removed or changed")}
    return checked, None


def _problem(entry: AuditEntry, expected_id: int, previous: str, public: Ed25519PublicKey | None, *,
             signed: int, signed_since: int | None) -> str | None:
    """What is wrong with ``entry`` at its place in the chain, or None."""
    if entry.id != expected_id:
        return f"entry {expected_id} is missing (the next one is {entry.id})"
    if entry.previous != previous:
        return "it does not hold the digest of the entry before it (an entry was removed or replaced)"
    if entry.digest != digest_of(entry.id, entry.at, entry.actor_id, entry.actor, entry.action, entry.target,
                                 entry.before, entry.after, entry.previous):
        return "its contents do not match its digest (it was edited)"
    if entry.signature is None:
        if signed:
            return "it is unsigned after signed entries (its signature was removed)"
        if signed_since is not None and entry.id >= signed_since:
            return (f"it is unsigned, yet a signed head says entries are signed from entry {signed_since} "
                    "(its signature was removed)")
        return None
    if public is not None and not signed_by(public, entry_message(entry.id, entry.digest), entry.signature):
        # the digests check, so they were recomputed after an edit (or the key is not the trail's)
        return "bad signature"
    return None
