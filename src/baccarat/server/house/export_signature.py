"""The house's signature on a player's history export (``GET /api/history/export``): evidence a third party accepts.

A player's export is what ``baccarat verify`` (and anyone's verifier written from ``docs/fairness.md``) checks the
house against; signed, it is also what the house said, so that a player cannot show an edited one as the house's
and the house cannot deny one it gave.  The signature is the audit trail's Ed25519 key's
(:mod:`baccarat.server.house.audit_keys`, kept outside the database) over a label of its own and the export's
canonical JSON (sorted keys, no spaces, the ``signature`` member left out), so that it can never be passed off as
an audit entry's or a backup manifest's.  The public key is served at ``GET /api/fairness/key`` and printed by
``baccarat serve``.

>>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
>>> key = Ed25519PrivateKey.generate()
>>> signed = {"format": "baccarat history export/1", "rounds": []}
>>> signed["signature"] = signature(signed, key)
>>> signed["signature"]["algorithm"], len(signed["signature"]["value"])
('ed25519', 128)
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from typing_extensions import TypedDict

from baccarat.server.house.audit import canonical
from baccarat.server.house.audit_keys import fingerprint, public_pem, sign

#: What an export's signature covers: this label and the export's canonical JSON without its signature.
LABEL = "baccarat history export"


class ExportSignature(TypedDict):
    """The house's signature on an export."""

    algorithm: str
    """ed25519"""
    key: str
    """the signing key's fingerprint (SHA256:..., as GET /api/fairness/key gives it)"""
    value: str
    """the signature, in hex (128 characters), over "baccarat history export", a newline and the export's
    canonical JSON (sorted keys, no spaces, UTF-8, the signature member left out)"""


def message(export: Mapping[str, object]) -> bytes:
    """The bytes the signature is made over: the label and the export as JSON carries it, less its signature."""
    body = {name: value for name, value in json.loads(json.dumps(export, default=str)).items() if name != "signature"}
    return f"{LABEL}\n{canonical(body)}".encode()


def signature(export: Mapping[str, object], key: Ed25519PrivateKey) -> ExportSignature:
    """The house's signature on ``export``."""
    return {"algorithm": "ed25519", "key": fingerprint(key.public_key()), "value": sign(key, message(export))}


class HouseKey(TypedDict):
    """``GET /api/fairness/key``: the key the house signs history exports with."""

    algorithm: str
    """ed25519"""
    fingerprint: str
    """SHA256: and the unpadded base64 of the SHA-256 of the raw public key (OpenSSH's form; serve prints it)"""
    public_key: str
    """the public key, PEM (SubjectPublicKeyInfo): give it to baccarat verify --key"""


def house_key(public: Ed25519PublicKey) -> HouseKey:
    """The public key's description, as the route serves it."""
    return {"algorithm": "ed25519", "fingerprint": fingerprint(public), "public_key": public_pem(public).decode()}
