"""The audit trail's signing key: an Ed25519 key pair the database never holds.

The hash chain (:mod:`baccarat.server.house.audit`) shows an edit only to someone who cannot recompute
it, and the formula is published: whoever can write the database can rewrite an entry and every digest
after it.  Each entry is therefore also signed with a private key kept outside the database (a file
outside the data directory, or an environment variable), and :func:`~baccarat.server.house.audit.verify`
checks the signatures with the public key alone.

The private key comes from ``BACCARAT_AUDIT_KEY`` (PEM, or the 32 raw bytes in base64) when set, else
from the key file (``BACCARAT_AUDIT_KEY_FILE``, by default ``audit-signing-key.pem`` in the user's
configuration directory), which :func:`ensure_key` creates (mode 0600, with the public key beside it as
``.pub``) when there is none.  What is signed carries a label of its own (an entry, a signed head), so
a signature made for one can never be passed off as the other.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import secrets
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from baccarat.core.errors import ConfigurationError
from baccarat.server.storage.settings import Settings

log = logging.getLogger("baccarat.server")

#: What an entry's signature covers: this label, the entry's id and its digest (which covers every field
#: and the digest of the entry before it).
ENTRY_LABEL = "baccarat audit entry"
#: What a signed head's signature covers: this label and the head's canonical JSON.
HEAD_LABEL = "baccarat audit head"


def entry_message(entry_id: int, digest: str) -> bytes:
    """The bytes an entry's signature is made over."""
    return f"{ENTRY_LABEL}\n{entry_id}\n{digest}".encode()


def sign(key: Ed25519PrivateKey, message: bytes) -> str:
    """The signature of ``message``, in hex (128 characters)."""
    return key.sign(message).hex()


def signed_by(public: Ed25519PublicKey, message: bytes, signature: str | None) -> bool:
    """Whether ``signature`` (hex) is ``public``'s signature of ``message``; a malformed one is not."""
    if not signature:
        return False
    try:
        public.verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def raw_public(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(public: Ed25519PublicKey) -> str:
    """The public key's SHA-256 fingerprint, as ``SHA256:`` and unpadded base64 (OpenSSH's form)."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(raw_public(public)).digest()).decode().rstrip("=")


def public_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def parse_private(text: str, *, where: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (PKCS#8) or from its 32 raw bytes in base64; refused in words
    naming ``where`` it came from."""
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(text, validate=True))
    except (ValueError, TypeError, binascii.Error):
        raise ConfigurationError(f"{where}: not an Ed25519 private key (PEM, or 32 bytes in base64); "
                                 "make one with `baccarat audit keygen`") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigurationError(f"{where}: the key is not an Ed25519 key; make one with `baccarat audit keygen`")
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    """The public key in ``path`` (PEM, as ``baccarat audit keygen`` writes it beside the private key);
    refused in words when it cannot be read or is not an Ed25519 public key."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigurationError(f"cannot read the public key {path}: {error.strerror or error}") from None
    try:
        public = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise ConfigurationError(f"{path}: not a public key in PEM (the .pub file `baccarat audit keygen` "
                                 "writes)") from None
    if not isinstance(public, Ed25519PublicKey):
        raise ConfigurationError(f"{path}: not an Ed25519 public key")
    return public


def read_secret_file(path: Path, what: str) -> str:
    """The text of the key file ``path`` (``what``: the key's name in a refusal), refused in words when it cannot be
    read or other users can read it (as ssh does: a private key others can read is not private; say so rather than
    use it).  The seed key's file is read the same way (:mod:`baccarat.server.house.seed_keys`)."""
    try:
        if os.name == "posix" and path.stat().st_mode & 0o077:
            raise ConfigurationError(f"{path}: the {what} can be read by other users: chmod 600 {path}")
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else "not a key file"
        raise ConfigurationError(f"cannot read the {what} {path}: {why}") from None


def _read_key_file(path: Path) -> Ed25519PrivateKey:
    return parse_private(read_secret_file(path, "audit signing key"), where=str(path))


def configured_key(settings: Settings) -> Ed25519PrivateKey | None:
    """The private key the settings give (``BACCARAT_AUDIT_KEY``, else the key file), or None when the
    key file does not exist yet."""
    if settings.audit_key is not None:
        return parse_private(settings.audit_key.get_secret_value(), where="BACCARAT_AUDIT_KEY")
    path = settings.audit_key_path
    if path.resolve().is_relative_to(settings.data_dir.resolve()):
        # whoever copies or edits the database file could then sign what they wrote
        raise ConfigurationError(f"BACCARAT_AUDIT_KEY_FILE: {path} is inside the data directory "
                                 f"{settings.data_dir}; keep the audit signing key outside it")
    if not path.exists():
        return None
    return _read_key_file(path)


def write_new(path: Path, data: bytes, mode: int) -> bool:
    """Write ``data`` to ``path`` only if there is no file there; False if there was one (the seed key's file
    is written the same way, :mod:`baccarat.server.house.seed_keys`).

    The file is written whole under a temporary name and then linked into place, which fails when the
    name is taken: two processes starting at once never read a half-written key, and one never
    replaces the other's."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
    finally:
        temporary.unlink(missing_ok=True)
    return True


def create_key(path: Path) -> Ed25519PrivateKey:
    """A new key pair: the private key written to ``path`` (mode 0600; its folder made 0700 when it
    is new) and the public key beside it (``path`` + ``.pub``).  Refused if ``path`` exists: a key
    that signed entries must never be replaced by accident."""
    key = Ed25519PrivateKey.generate()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not write_new(path, _private_pem(key), 0o600):
            raise ConfigurationError(f"{path} already exists: it may have signed entries, so it is not "
                                     "replaced; give another path")
        public_path = public_key_path(path)
        public_path.unlink(missing_ok=True)  # (a .pub left from an older key would name the wrong key)
        write_new(public_path, public_pem(key.public_key()), 0o644)
    except OSError as error:
        raise ConfigurationError(f"cannot write the audit signing key {path}: {error.strerror or error}") from None
    return key


def public_key_path(private_path: Path) -> Path:
    """Where the public key of the key file ``private_path`` is written."""
    return private_path.with_name(private_path.name + ".pub")


def ensure_key(settings: Settings) -> Ed25519PrivateKey:
    """The configured private key; when none is configured and the key file does not exist, a new one
    is made there (one log line says where, with its fingerprint).  Another process making it at the
    same moment is no problem: the one that loses the race reads the winner's."""
    key = configured_key(settings)
    if key is not None:
        return key
    path = settings.audit_key_path
    try:
        key = create_key(path)
    except ConfigurationError:
        if not path.exists():
            raise
        return _read_key_file(path)  # made by another process meanwhile
    log.warning("audit trail: created the signing key %s (public key %s, fingerprint %s); keep a copy of "
                "the public key away from this host", path, public_key_path(path),
                fingerprint(key.public_key()))
    return key
