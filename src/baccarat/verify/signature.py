"""The house's signature on a history export, checked with the house's public key alone.

The table server signs each export (``GET /api/history/export``) with its Ed25519 key over the label
``baccarat history export``, a newline and the export's canonical JSON: the export without its ``signature``
member, keys sorted, no spaces, UTF-8 (``docs/fairness.md``, "Signed exports").  This module shares no code with the
server's: it rebuilds those bytes from the file and checks them with the key the house publishes
(``GET /api/fairness/key``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

LABEL = "baccarat history export"


def read_key(pem: bytes) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM (as ``GET /api/fairness/key`` gives it); ValueError in words otherwise."""
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError) as error:
        raise ValueError("it is not a PEM public key (save public_key from GET /api/fairness/key)") from error
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("it is not an Ed25519 key (the house signs exports with Ed25519)")
    return key


def fingerprint(key: Ed25519PublicKey) -> str:
    """``SHA256:`` and the unpadded base64 of the SHA-256 of the raw key (OpenSSH's form, as the server prints)."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "SHA256:" + base64.b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")


def signed_bytes(document: dict[str, Any]) -> bytes:
    """The bytes the house signed: the label and the export less its signature, as canonical JSON."""
    body = {name: value for name, value in document.items() if name != "signature"}
    return f"{LABEL}\n{json.dumps(body, sort_keys=True, separators=(',', ':'), ensure_ascii=False)}".encode()


def problem(document: dict[str, Any], key: Ed25519PublicKey) -> str | None:
    """Why ``document`` is not an export the holder of ``key`` signed, or None when it is."""
    signature = document.get("signature")
    if not isinstance(signature, dict):
        return "the export is not signed by the house: download it again (GET /api/history/export)"
    if signature.get("algorithm") != "ed25519" or not isinstance(signature.get("value"), str):
        return "the export's signature is not an Ed25519 signature in hex"
    if signature.get("key") != fingerprint(key):
        return (f"the export is signed with the key {signature.get('key')}, not with the key given "
                f"({fingerprint(key)})")
    try:
        key.verify(bytes.fromhex(signature["value"]), signed_bytes(document))
    except (InvalidSignature, ValueError):
        return "the export's signature does not match its contents: it was changed after the house signed it"
    return None
