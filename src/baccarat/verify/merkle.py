"""Algorithm ``hmac-sha256-fisher-yates/3``'s Merkle tree, written again from docs/fairness.md (steps 7
and 8), sharing nothing with the house: the root is built bottom-up (a node left without a partner
is carried up unchanged, which gives RFC 6962's shape), and a proof is checked by walking down from
the root's split, where the house walks up (RFC 9162); two computations that must agree.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Any


def salt_of(seed: bytes, position: int) -> bytes:
    """Step 7: the salt of a position, ``HMAC-SHA256(seed, "salt" || position as 2 bytes big-endian)``."""
    return hmac.new(seed, b"salt" + bytes((position >> 8, position & 0xFF)), hashlib.sha256).digest()


def leaf(position: int, card: str, salt: bytes) -> bytes:
    """Step 8: ``SHA-256(0x00, position as 2 bytes, the card's 2 ASCII characters, the 32-byte salt)``."""
    return hashlib.sha256(bytes((0, position >> 8, position & 0xFF)) + card.encode("ascii") + salt).digest()


def _parent(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def tree_root(leaves: Sequence[bytes]) -> bytes:
    """The root over ``leaves``, level by level: pairs joined, an odd one out carried up as it is."""
    level = list(leaves)
    while len(level) > 1:
        joined = [_parent(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = joined + level[len(joined) * 2:]
    return level[0]


def shoe_root(seed: bytes, order: Sequence[str]) -> str:
    """The Merkle root (hex) of a shoe's card order, before the burn, salted by its server seed."""
    return tree_root([leaf(i, card, salt_of(seed, i)) for i, card in enumerate(order)]).hex()


def _climb(node: bytes, index: int, size: int, path: list[bytes]) -> bytes | None:
    """The root that ``node`` (leaf ``index`` of ``size``) and the ``path`` (leaf up) lead to;
    None when the path's length does not fit the tree.  The tree splits at the largest power of two
    below its size; the path's last hash is the other side of that split."""
    if size == 1:
        return node if not path else None
    if not path:
        return None
    split = 1
    while split * 2 < size:
        split *= 2
    if index < split:
        below = _climb(node, index, split, path[:-1])
        return None if below is None else _parent(below, path[-1])
    below = _climb(node, index - split, size - split, path[:-1])
    return None if below is None else _parent(path[-1], below)


def _hex32(value: object) -> bytes | None:
    if not isinstance(value, str) or len(value) != 64:
        return None
    try:
        return bytes.fromhex(value)
    except ValueError:
        return None


def proves(root: str, size: int, position: int, card: str, proof: Any) -> bool:
    """Whether ``proof`` (its ``salt`` and ``path``, hex) shows ``card`` at ``position`` of a shoe of
    ``size`` cards under ``root``.  Anything malformed is simply no proof."""
    if not isinstance(proof, dict) or not 0 <= position < size:
        return False
    salt, path = _hex32(proof.get("salt")), proof.get("path")
    if salt is None or not isinstance(path, list) or not card.isascii() or len(card) != 2:
        return False
    hashes = [_hex32(p) for p in path]
    if any(h is None for h in hashes):
        return False
    reached = _climb(leaf(position, card, salt), position, size, [h for h in hashes if h is not None])
    return reached is not None and reached.hex() == root.lower()
