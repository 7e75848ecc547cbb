"""Server seeds sealed: a shoe's seed is stored encrypted under a key the database never holds, in clear only
once the shoe ends and its seed is revealed.

The commitment a table shows is the SHA-256 of its shoe's server seed; whoever reads the seed learns every card
to come.  So a shoe in play keeps its seed in ``shoes.server_seed`` sealed (AES-256-GCM): ``sealed1:KEY:DATA``,
``KEY`` the first 8 hex digits of the SHA-256 of the sealing key (which key sealed it), ``DATA`` the 12-byte nonce
and the ciphertext with its tag, in base64; the shoe's commitment is the associated data, so a sealed seed moved
to another shoe does not open.  The database, a copy of it and every backup hold only that; :func:`reveal` writes
the seed in clear when the shoe ends, as the verifier needs it.

The key (32 random bytes) comes from ``BACCARAT_SEED_KEY`` (base64) when set, else from the key file
(``BACCARAT_SEED_KEY_FILE``, by default ``seed-key`` in the user's configuration directory, refused inside the
data directory), which ``baccarat seeds keygen`` or the server's first start makes (mode 0600).  A server whose
database holds shoes sealed with a key it does not have refuses to start, naming that key: it never replaces a
shoe in play.  ``baccarat seeds reseal --new-key-file`` seals every shoe in play again under a new key.

Each process keeps the key in memory (:func:`use`); what opens a seed (:func:`opened`) reads it from there.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import secrets
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy import select
from sqlalchemy.orm import Session

from baccarat.core.errors import ConfigurationError
from baccarat.server.house.audit_keys import read_secret_file, write_new
from baccarat.server.storage.models import ShoeRow
from baccarat.server.storage.settings import Settings

log = logging.getLogger("baccarat.server")

#: A sealed seed's prefix (the format's version).
SEALED = "sealed1:"
#: What the sealed form of a seed is bound to besides its shoe's commitment.
_LABEL = b"baccarat server seed\n"

_key: bytes | None = None


def key_id(key: bytes) -> str:
    """Which key: the first 8 hex digits of its SHA-256 (stored with each seed it seals)."""
    return hashlib.sha256(key).hexdigest()[:8]


def use(key: bytes | None) -> None:
    """This process seals and opens seeds with ``key`` (None: with none, for a process that deals nothing)."""
    global _key
    _key = key
    opened.cache_clear()


def is_sealed(stored: str) -> bool:
    return stored.startswith(SEALED)


def seal(seed_hex: str, commitment: str, key: bytes | None = None) -> str:
    """The sealed form of the server seed ``seed_hex`` of the shoe committed to ``commitment``."""
    key = key if key is not None else _require()
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(key).encrypt(nonce, bytes.fromhex(seed_hex), _LABEL + commitment.encode())
    return f"{SEALED}{key_id(key)}:{base64.b64encode(nonce + sealed).decode()}"


@lru_cache(maxsize=256)
def opened(stored: str, commitment: str) -> str:
    """The server seed in hex of a shoe's stored seed (sealed, or in clear once revealed)."""
    if not is_sealed(stored):
        return stored
    return _open(stored, commitment, _require())


def _open(stored: str, commitment: str, key: bytes) -> str:
    which, _, data = stored[len(SEALED):].partition(":")
    if which != key_id(key):
        raise ConfigurationError(f"a shoe's seed is sealed with the seed key {which}, not with this process's "
                                 f"({key_id(key)}): give the key that sealed it (BACCARAT_SEED_KEY or "
                                 "BACCARAT_SEED_KEY_FILE)")
    try:
        raw = base64.b64decode(data, validate=True)
        return AESGCM(key).decrypt(raw[:12], raw[12:], _LABEL + commitment.encode()).hex()
    except (InvalidTag, binascii.Error, ValueError):
        raise ConfigurationError("a shoe's sealed seed does not open under its commitment: it was altered or moved "
                                 "from another shoe") from None


def _require() -> bytes:
    if _key is None:
        raise ConfigurationError("no seed key in this process: a shoe's seed can be neither sealed nor opened")
    return _key


# --- the key ---------------------------------------------------------------------------------------------------


def parse_key(text: str, *, where: str) -> bytes:
    """A seed key from its base64 text (32 bytes), refused in words otherwise."""
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != 32:
        raise ConfigurationError(f"{where}: not a seed key (32 random bytes in base64, as `baccarat seeds keygen` "
                                 "writes)")
    return key


def read_key_file(path: Path) -> bytes:
    """The seed key in the file ``path`` (refused when others can read it)."""
    return parse_key(read_secret_file(path, "seed key"), where=str(path))


def configured_key(settings: Settings) -> bytes | None:
    """The seed key the settings give (``BACCARAT_SEED_KEY``, else the key file), or None when the key file does
    not exist yet."""
    if settings.seed_key is not None:
        return parse_key(settings.seed_key.get_secret_value(), where="BACCARAT_SEED_KEY")
    path = settings.seed_key_path
    if path.resolve().is_relative_to(settings.data_dir.resolve()):
        raise ConfigurationError(f"BACCARAT_SEED_KEY_FILE: {path} is inside the data directory {settings.data_dir}: "
                                 "keep the seed key outside it (a copy of the data would open every seed)")
    return read_key_file(path) if path.exists() else None


def create_key(path: Path) -> bytes:
    """A new seed key written to ``path`` (mode 0600; its folder made 0700 when new); refused if ``path`` exists
    (a key that sealed shoes in play must never be replaced by accident)."""
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not write_new(path, base64.b64encode(key) + b"\n", 0o600):
            raise ConfigurationError(f"{path} already exists: it may seal shoes in play, so it is not replaced; "
                                     "give another path")
    except OSError as error:
        raise ConfigurationError(f"cannot write the seed key {path}: {error.strerror or error}") from None
    return key


def sealed_with(s: Session) -> set[str]:
    """The keys (:func:`key_id`) the database's shoes in play are sealed with."""
    stored = s.scalars(select(ShoeRow.server_seed).where(ShoeRow.revealed_at.is_(None)))
    return {seed[len(SEALED):].partition(":")[0] for seed in stored if is_sealed(seed)}


def ready_key(s: Session, settings: Settings) -> bytes:
    """The seed key this server seals and opens with: the configured one, which must be the one the shoes in play
    were sealed with; when none is configured, a new key file is made, unless a shoe in play is sealed (then the
    start is refused, naming the key that is missing: a shoe in play is never replaced)."""
    key = configured_key(settings)
    needed = sealed_with(s)
    if key is None:
        if needed:
            raise ConfigurationError(
                f"the shoes in play are sealed with the seed key {', '.join(sorted(needed))}, which this server does "
                f"not have: give it (BACCARAT_SEED_KEY, or the file BACCARAT_SEED_KEY_FILE; looked for "
                f"{settings.seed_key_path}); the shoes in play are not replaced")
        path = settings.seed_key_path
        try:
            key = create_key(path)
        except ConfigurationError:
            if not path.exists():
                raise
            return ready_key(s, settings)  # made by another process meanwhile
        log.warning("seeds: created the seed key %s (key %s); keep a copy away from this host: without it the "
                    "shoes in play cannot be dealt", path, key_id(key))
        return key
    wrong = needed - {key_id(key)}
    if wrong:
        raise ConfigurationError(
            f"the shoes in play are sealed with the seed key {', '.join(sorted(wrong))}, and this server's is "
            f"{key_id(key)}: give the key that sealed them (or reseal them: baccarat seeds reseal)")
    return key


def seal_in_clear(s: Session, key: bytes) -> int:
    """Seal the seeds of the shoes in play still stored in clear (made before seeds were sealed); returns how
    many."""
    rows = list(s.scalars(select(ShoeRow).where(ShoeRow.revealed_at.is_(None))))
    clear = [row for row in rows if not is_sealed(row.server_seed)]
    for row in clear:
        row.server_seed = seal(row.server_seed, row.commitment, key)
    return len(clear)


def reseal(s: Session, old: bytes, new: bytes) -> int:
    """Seal every shoe in play again under ``new`` (opened with ``old``); returns how many."""
    rows = [row for row in s.scalars(select(ShoeRow).where(ShoeRow.revealed_at.is_(None)))
            if is_sealed(row.server_seed)]
    for row in rows:
        row.server_seed = seal(_open(row.server_seed, row.commitment, old), row.commitment, new)
    return len(rows)
