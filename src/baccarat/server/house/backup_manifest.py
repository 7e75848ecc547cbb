"""A backup's signed manifest: what ``baccarat backup`` wrote, signed with the audit trail's key (which the
database never holds), checked by ``baccarat restore`` before it writes anything.

A backup is a file anyone holding it can edit: a wallet raised with ``sqlite3``, or a trigger that pays every bet
twice, restored as it was and ran.  So the backup is written with a manifest beside it (``FILE.manifest.json``):
the format, the database kind, the schema's revision, what the copy holds (accounts, ledger movements, the newest
one, the wallets' total, audit entries; :class:`~baccarat.server.storage.backup.Summary`), the row count and the
SHA-256 of the rows of every table (:func:`~baccarat.server.storage.backup.table_digest`), the SHA-256 of the file,
and an Ed25519 signature over all of it (a label of its own, the canonical JSON).
A restore refuses a backup whose manifest is missing, not signed by the trail's key, or does not match the file;
the schema check (:func:`baccarat.server.storage.backup.check_schema`) then refuses an object the migrations do not
make, however the manifest was obtained; after the restore, :func:`differences` names each table whose rows are not
the ones the manifest describes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from baccarat.server.house.audit import canonical
from baccarat.server.house.audit_keys import fingerprint, sign, signed_by
from baccarat.server.storage.backup import BackupProblem, Summary

#: What a manifest's signature covers: this label, then the manifest's canonical JSON without the signature.
LABEL = "baccarat backup manifest"
#: The manifest's format.
FORMAT = 1


def manifest_path(backup: Path) -> Path:
    """Where the manifest of the backup file ``backup`` is written: beside it."""
    return backup.with_name(backup.name + ".manifest.json")


def file_digest(path: Path) -> str:
    """The SHA-256 of the file ``path``, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as opened:
        for block in iter(lambda: opened.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _message(fields: dict[str, Any]) -> bytes:
    return f"{LABEL}\n{canonical(fields)}".encode()


def write(backup: Path, kind: str, summary: Summary, key: Ed25519PrivateKey) -> Path:
    """Write the signed manifest of the backup file ``backup`` (of a ``kind`` database holding ``summary``); returns
    its path.  Mode 0600, like the backup."""
    fields: dict[str, Any] = {
        "format": FORMAT, "kind": kind, "revision": summary.revision, "file": backup.name,
        "sha256": file_digest(backup), "rows": dict(sorted(summary.rows.items())),
        "digests": dict(sorted(summary.digests.items())),
        "holds": {"accounts": summary.accounts, "ledger_entries": summary.ledger_entries,
                  "newest_ledger_entry": summary.newest_ledger_entry, "wallets_total": summary.wallets_total,
                  "audit_entries": summary.audit_entries},
        "key": fingerprint(key.public_key()),
    }
    path = manifest_path(backup)
    text = json.dumps({**fields, "signature": sign(key, _message(fields))}, indent=1, sort_keys=True) + "\n"
    path.touch(mode=0o600, exist_ok=False)
    path.write_text(text, encoding="utf-8")
    return path


def check(backup: Path, public: Ed25519PublicKey) -> dict[str, Any]:
    """The manifest of ``backup``, checked: signed with ``public``'s key and naming this very file (its SHA-256);
    else :class:`BackupProblem` saying what is wrong (nothing has been written)."""
    path = manifest_path(backup)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackupProblem(f"{backup} has no manifest ({path.name} beside it): a restore takes only a backup made "
                            "by baccarat backup with its signed manifest; nothing was restored") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BackupProblem(f"the manifest {path} cannot be read ({error}): nothing was restored") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupProblem(f"the manifest {path} is not one baccarat backup writes: nothing was restored")
    fields = {name: value for name, value in manifest.items() if name != "signature"}
    if not signed_by(public, _message(fields), manifest.get("signature")):
        raise BackupProblem(f"the manifest {path} is not signed by the audit trail's key {fingerprint(public)} (it was "
                            "edited, or made with another key): nothing was restored")
    actual = file_digest(backup)
    if actual != manifest.get("sha256"):
        raise BackupProblem(f"{backup} is not the file its signed manifest describes (SHA-256 {actual}, the manifest "
                            f"says {manifest.get('sha256')}): it was changed after the backup; nothing was restored")
    return manifest


def differences(manifest: dict[str, Any], restored: Summary) -> list[str]:
    """The tables of a restored database whose rows are not those the manifest describes (a manifest written
    before the digests were: none checked)."""
    expected = manifest.get("digests") or {}
    return sorted(name for name, digest in expected.items() if restored.digests.get(name) != digest)
