"""Signed heads of the audit trail, appended to a file outside the database.

Removing the newest entries of a hash chain leaves a shorter chain that checks, and signatures do not
help: every entry left is genuine.  So each server process signs the newest entry (its id and digest,
the time, and the first signed entry) as soon as a transaction of its own that recorded one commits, every
:attr:`~baccarat.server.storage.settings.Settings.audit_head_seconds` (the entries other processes recorded)
and when it stops, as one JSON line appended to the heads file; ``baccarat audit verify`` checks each
line's signature and that the chain still holds every signed head with the same digest
(:func:`baccarat.server.house.audit.verify`).

Several processes (``serve --workers``, several hosts on one PostgreSQL database) may append to one file:
each line is written by a single ``write`` on a descriptor opened with ``O_APPEND``, which the
operating system places at the end whole, so lines never interleave.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import TypedDict, cast

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from baccarat.core.errors import BaccaratError, ConfigurationError
from baccarat.server.house import audit
from baccarat.server.house.audit import SignedHead, canonical
from baccarat.server.house.audit_keys import HEAD_LABEL, sign, signed_by
from baccarat.server.storage import clock, faults
from baccarat.server.storage.db import read
from baccarat.server.storage.models import AuditEntry, aware
from baccarat.server.storage.models import now as _now

log = logging.getLogger("baccarat.server")


class BadHeads(BaccaratError, ValueError):
    """A line of the heads file is not a head signed by the key given: the file was tampered with (or
    the key is not the trail's)."""


class Head(TypedDict):
    """The newest entry as a head line states it (without its signature)."""

    entry: int
    digest: str
    at: str
    signed_from: int | None


def head_message(head: Head) -> bytes:
    """The bytes a head's signature is made over: a label of its own, then the head's canonical JSON."""
    fields = {"entry": head["entry"], "digest": head["digest"], "at": head["at"], "signed_from": head["signed_from"]}
    return f"{HEAD_LABEL}\n{canonical(fields)}".encode()


def current_head(s: Session, *, now: datetime | None = None) -> Head | None:
    """The newest entry of the trail (None while it is empty), with the first signed entry's id."""
    newest = s.execute(select(AuditEntry.id, AuditEntry.digest).order_by(AuditEntry.id.desc()).limit(1)).first()
    if newest is None:
        return None
    signed_from = s.scalar(select(func.min(AuditEntry.id)).where(AuditEntry.signature.is_not(None)))
    return {"entry": newest.id, "digest": newest.digest, "at": aware(now or _now()).isoformat(),
            "signed_from": signed_from}


def head_line(key: Ed25519PrivateKey, head: Head) -> bytes:
    """One line of the heads file: the head and its signature, JSON, ending in a newline."""
    return (json.dumps({**head, "signature": sign(key, head_message(head))}, sort_keys=True) + "\n").encode()


def append_line(path: Path, line: bytes) -> None:
    """Append ``line`` to ``path`` (made, with its folder, when absent) in one ``write`` with ``O_APPEND``,
    flushed to disk before returning."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(descriptor, line)
        if written != len(line):  # (a full disk): a torn line is refused by the reader, never trusted
            raise OSError(f"only {written} of {len(line)} bytes of a signed head were written to {path}")
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def sign_head(s: Session, key: Ed25519PrivateKey, path: Path, *, last: Head | None = None) -> Head | None:
    """Sign the trail's newest entry into ``path``, unless it is the one ``last`` (what this process
    signed before) names; returns the head now signed (``last`` when nothing changed)."""
    head = current_head(s)
    if head is None or (last is not None and (head["entry"], head["digest"]) == (last["entry"], last["digest"])):
        return last
    append_line(path, head_line(key, head))
    return head


def read_heads(path: Path, public: Ed25519PublicKey) -> list[SignedHead]:
    """Every head in the heads file ``path``, each checked against ``public``.  A line that is not a head
    signed by that key is refused, naming it (:class:`BadHeads`); a file that cannot be read too
    (:class:`~baccarat.core.errors.ConfigurationError`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else "it is not a heads file"
        raise ConfigurationError(f"cannot read the heads file {path}: {why}") from None
    heads: list[SignedHead] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        head = _parsed(line)
        if head is None and number == len(lines) and not text.endswith("\n"):
            continue  # a last line cut short (the disk filled, the host stopped mid-write): it states nothing
        if head is None:
            raise BadHeads(f"heads file {path} line {number}: not a signed head")
        if not signed_by(public, head_message(head), head["signature"]):
            raise BadHeads(f"heads file {path} line {number}: bad signature")
        heads.append({"line": number, "entry": head["entry"], "digest": head["digest"], "at": head["at"],
                      "signed_from": head["signed_from"]})
    return heads


class _Line(Head):
    signature: str


def _parsed(line: str) -> _Line | None:
    """A head line's fields, or None when it is not one (torn, or not JSON of the right shape)."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    entry, digest, at = value.get("entry"), value.get("digest"), value.get("at")
    signed_from, signature = value.get("signed_from"), value.get("signature")
    if not (type(entry) is int and isinstance(digest, str) and isinstance(at, str) and isinstance(signature, str)
            and (signed_from is None or type(signed_from) is int)):
        return None
    return {"entry": entry, "digest": digest, "at": at, "signed_from": signed_from, "signature": signature}


@asynccontextmanager
async def signing(sessions: sessionmaker[Session], key: Ed25519PrivateKey, path: Path, *,
                  every: float) -> AsyncIterator[None]:
    """While the block runs, sign the trail's head into ``path`` right after each transaction of ``sessions`` that
    recorded an entry commits (the head it read, :func:`~baccarat.server.house.audit.after_entry`), every ``every``
    seconds, and once more when it ends (the server stopping).  A head that cannot be signed (the database or the
    file away) is logged and tried again at the next turn: the server goes on serving."""
    last: Head | None = None

    def turn() -> None:
        nonlocal last
        try:
            last = read(sessions, lambda s: sign_head(s, key, path, last=last))
        except Exception as error:  # the loop must survive: what went wrong is logged
            problem = faults.storage_problem(error)
            if problem is None and not isinstance(error, OSError):
                log.exception("audit trail: cannot sign the head into %s", path)
            else:
                log.warning("audit trail: cannot sign the head into %s: %s", path, problem or error)

    async def forever() -> None:
        while True:
            await clock.sleep(every)
            await asyncio.to_thread(turn)

    def sign_at_once(head: dict[str, object]) -> None:  # the head an entry's transaction read, once committed
        nonlocal last
        try:
            append_line(path, head_line(key, cast(Head, head)))
            last = cast(Head, head)  # the loop signs it no second time
        except OSError as error:  # the entry's request must not fail for it: logged, signed at the next turn
            log.warning("audit trail: cannot sign the head into %s: %s", path, error)

    audit.after_entry(sessions, sign_at_once)
    task = clock.spawn(forever())
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(turn)
