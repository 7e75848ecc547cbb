"""Provably fair shoes: a committed server seed and the players' client seeds decide every card.

Before the first bet on a shoe the house publishes ``SHA-256(server_seed)``
(the *commitment*) and the algorithm name.  During the shoe's first betting
window it takes the client seeds of the players who bet; the shuffle depends
on both, so the house, which committed to its seed before it saw theirs,
cannot choose the shoe alone.  When the shoe ends the house reveals its seed.
Anyone can then recompute the shoe and every round dealt from it
(``baccarat verify``, which shares no code with this module on purpose).

Algorithm ``hmac-sha256-fisher-yates/2`` (docs/fairness.md works an example through by hand):

1. Client seeds are 1 to 64 printable ASCII characters without spaces.  Their
   *combination* is ``SHA-256`` of the distinct seeds, sorted (byte order) and
   joined by one newline, written in lower-case hex; with no client seed it is
   ``SHA-256`` of nothing (``e3b0c442...b855``).
2. The *shuffle key* is ``HMAC-SHA256(key=server_seed, message=the combination's
   64 hex characters)``.
3. The stream: block ``k`` (k = 0, 1, 2, ...) is ``HMAC-SHA256(shuffle key,
   k as 8 bytes big-endian)``; the stream is the blocks one after another, read
   as 32-bit big-endian words.
4. An index below ``n``: take words ``w`` until ``w < 2**32 - 2**32 % n``
   (rejection sampling, so no index is favoured); the index is ``w % n``.
5. The shoe: ``decks`` copies of the deck in the order clubs, diamonds,
   hearts, spades, each Ace to King; then Fisher-Yates: for ``i`` from the last
   position down to 1, swap positions ``i`` and ``index below i + 1``.
6. The casino procedure of :mod:`baccarat.core.shoe` follows: the first card is
   turned and burned with as many more as it counts (tens ten).

Algorithm ``hmac-sha256-fisher-yates/3`` is steps 1-6 and a Merkle tree over the shuffled shoe,
whose root is published at the shoe's first deal (once the client seeds are fixed, before any card
is shown), so that every round is proven the moment it ends, not when the shoe does:

7. The *salt* of position ``i`` (0 for the shoe's first card, before the burn) is
   ``HMAC-SHA256(key=server_seed, message=b"salt" + i as 2 bytes big-endian)``: secret until the
   seed is revealed, so that a leaf says nothing of a card not yet dealt.
8. Leaf ``i`` is ``SHA-256(0x00 || i as 2 bytes big-endian || the card's two ASCII characters ||
   salt i)`` (39 bytes hashed); an inner node is ``SHA-256(0x01 || left || right)``; the tree over
   the ``52 * decks`` leaves has RFC 6962's shape (the left subtree holds the largest power of two
   below the count), and a card's proof is its RFC 6962 audit path.

Algorithm ``hmac-sha256-fisher-yates/2`` is steps 1-6 (no tree); ``hmac-sha256-fisher-yates/1``
(shoes dealt before client seeds were taken) is steps 3-6 with the server seed itself as the key;
their records still verify.

>>> seed = bytes(32)
>>> commitment(seed)
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> combination([])
'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
>>> combination(["b", "a", "b"]) == combination(["a", "b"])
True
>>> [str(c) for c in fair_cards(seed, 1)[:5]]
['Qd', '6d', '7h', '5c', '3d']
>>> [str(c) for c in fair_cards(shoe_key(ALGORITHM, seed, ["alice"]), 1)[:3]]
['Qd', 'Ks', '6h']
>>> tree = ShoeTree(seed, fair_cards(shoe_key(ALGORITHM, seed, ["alice"]), 1))
>>> proof = tree.proof(1)
>>> check_proof(tree.root, size=52, position=1, card="Ks", salt=proof["salt"], path=proof["path"])
True
>>> check_proof(tree.root, size=52, position=1, card="Kh", salt=proof["salt"], path=proof["path"])
False
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from typing import TypedDict

from baccarat.core.cards import Card, standard_deck
from baccarat.core.errors import ConfigurationError
from baccarat.core.messages import CATALOGUE
from baccarat.core.shoe import Shoe, check_decks, shuffle

#: The algorithm of every new shoe: the server seed, the players' client seeds and a Merkle tree.
ALGORITHM = "hmac-sha256-fisher-yates/3"
#: The shuffle of the server seed and the client seeds, without a tree: old shoes are dealt out and verify.
ALGORITHM_2 = "hmac-sha256-fisher-yates/2"
#: The first algorithm (the server seed alone), kept so that old shoes are dealt out and verify.
ALGORITHM_1 = "hmac-sha256-fisher-yates/1"
ALGORITHMS = (ALGORITHM_1, ALGORITHM_2, ALGORITHM)
#: The algorithms whose shoes take client seeds.
SEEDED = (ALGORITHM_2, ALGORITHM)
SEED_BYTES = 32
#: What a client seed may be: exact bytes everywhere (ASCII), and no separator of the combination.
CLIENT_SEED = re.compile(r"[\x21-\x7e]{1,64}")
CLIENT_SEED_RULE = CATALOGUE["fairness.client_seed"]


class HmacStream:
    """The random stream of a 32-byte key; a :class:`baccarat.core.shoe.RandomSource`."""

    def __init__(self, key: bytes):
        if not isinstance(key, bytes) or len(key) != SEED_BYTES:
            raise ConfigurationError(f"a server seed is {SEED_BYTES} bytes")
        self._key = key
        self._block = 0
        self._buffer = b""

    def _word(self) -> int:
        if len(self._buffer) < 4:
            self._buffer += hmac.new(self._key, self._block.to_bytes(8, "big"), hashlib.sha256).digest()
            self._block += 1
        word, self._buffer = self._buffer[:4], self._buffer[4:]
        return int.from_bytes(word, "big")

    def randrange(self, stop: int, /) -> int:
        """A uniform index in ``[0, stop)``, by rejection sampling."""
        if not 1 <= stop <= 2**32:
            raise ConfigurationError(f"an index bound must be 1 to 2**32, got {stop}")
        limit = 2**32 - 2**32 % stop
        while True:
            word = self._word()
            if word < limit:
                return word % stop


def new_server_seed() -> bytes:
    """A fresh server seed from the operating system's cryptographic generator."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """``SHA-256(server_seed)`` in hex: published before the first bet on the shoe."""
    return hashlib.sha256(server_seed).hexdigest()


def check_client_seed(seed: object) -> str:
    """``seed`` if it is a valid client seed, else :class:`ConfigurationError` saying what one is.

    >>> check_client_seed("lucky-7")
    'lucky-7'
    """
    if not isinstance(seed, str) or not CLIENT_SEED.fullmatch(seed):
        raise ConfigurationError.coded("fairness.client_seed")
    return seed


def combination(client_seeds: Iterable[str]) -> str:
    """Step 1: the order-independent combination of the client seeds (hex SHA-256)."""
    distinct = sorted({check_client_seed(seed) for seed in client_seeds})
    return hashlib.sha256("\n".join(distinct).encode("ascii")).hexdigest()


def shuffle_key(server_seed: bytes, client_seeds: Iterable[str]) -> bytes:
    """Step 2: ``HMAC-SHA256(server_seed, combination)``, the key of the shoe's stream."""
    return hmac.new(server_seed, combination(client_seeds).encode("ascii"), hashlib.sha256).digest()


def shoe_key(algorithm: str, server_seed: bytes, client_seeds: Iterable[str] = ()) -> bytes:
    """The stream key of a shoe dealt by ``algorithm``: the server seed itself for version 1."""
    if algorithm in SEEDED:  # version 3 shuffles as version 2 does; the tree is over its result
        return shuffle_key(server_seed, client_seeds)
    if algorithm == ALGORITHM_1:
        return server_seed
    raise ConfigurationError(f"unknown shuffle algorithm {algorithm!r}")


def fair_cards(key: bytes, decks: int) -> list[Card]:
    """The shoe's card order before the burn (steps 3-5) for the stream key ``key``."""
    return shuffle(standard_deck() * check_decks(decks), HmacStream(key))


def fair_shoe(server_seed: bytes, *, decks: int, cut_card: int, client_seeds: Iterable[str] = ()) -> Shoe:
    """The shoe of ``server_seed`` and ``client_seeds`` (algorithm 2), shuffled, burned and ready to deal."""
    return Shoe(fair_cards(shuffle_key(server_seed, client_seeds), decks), cut_card=cut_card, burn=True)


# --- algorithm 3: the Merkle tree over the shuffled shoe (steps 7 and 8) ---------------------------

_LEAF, _NODE = b"\x00", b"\x01"  # RFC 6962's domain separation: a leaf can never pass for a node


class CardProof(TypedDict):
    """What proves one card of a shoe against its published root: where it lay, its salt, its path."""

    position: int  #: in the shuffled shoe, 0 for its first card (the burn included)
    salt: str  #: hex
    path: list[str]  #: hex, the RFC 6962 audit path from the leaf up


def salt(server_seed: bytes, position: int) -> bytes:
    """Step 7: ``HMAC-SHA256(server_seed, b"salt" + position as 2 bytes big-endian)``."""
    return hmac.new(server_seed, b"salt" + position.to_bytes(2, "big"), hashlib.sha256).digest()


def leaf_hash(position: int, card: str, salt_: bytes) -> bytes:
    """Step 8: ``SHA-256(0x00 || position (2 bytes) || card (2 ASCII characters) || salt (32 bytes))``.

    >>> leaf_hash(0, "Ac", bytes(32)).hex()[:16]
    '5a14d2470c7a5a6d'
    """
    if len(card) != 2 or not card.isascii() or len(salt_) != SEED_BYTES or not 0 <= position < 2**16:
        raise ConfigurationError(f"a leaf is a position below 65536, a card like 'Qd' and a {SEED_BYTES}-byte salt")
    return hashlib.sha256(_LEAF + position.to_bytes(2, "big") + card.encode("ascii") + salt_).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE + left + right).digest()


def _split(size: int) -> int:
    """RFC 6962: the largest power of two below ``size`` (``size`` > 1) leaves go left."""
    return 1 << ((size - 1).bit_length() - 1)


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962's Merkle tree hash of the leaf hashes ``leaves`` (at least one)."""
    if len(leaves) == 1:
        return leaves[0]
    if not leaves:
        raise ConfigurationError("a Merkle tree needs at least one leaf")
    k = _split(len(leaves))
    return _node(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def merkle_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """RFC 6962's audit path of leaf ``index``: the sibling hashes from the leaf up to the root."""
    if not 0 <= index < len(leaves):
        raise ConfigurationError(f"no leaf {index} among {len(leaves)}")
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return [*merkle_path(leaves[:k], index), merkle_root(leaves[k:])]
    return [*merkle_path(leaves[k:], index - k), merkle_root(leaves[:k])]


def check_proof(root: str, *, size: int, position: int, card: str, salt: str, path: Sequence[str]) -> bool:
    """Whether ``card`` at ``position`` with ``salt`` and ``path`` (hex) leads to ``root`` in a
    tree of ``size`` leaves (RFC 9162, 2.1.3.2).  Bad hex or lengths are simply not a proof."""
    try:
        node = leaf_hash(position, card, bytes.fromhex(salt))
        siblings = [bytes.fromhex(p) for p in path]
    except (ValueError, ConfigurationError):
        return False
    if not 0 <= position < size or any(len(p) != 32 for p in siblings):
        return False
    index, last = position, size - 1
    for sibling in siblings:
        if last == 0:
            return False
        if index % 2 or index == last:
            node = _node(sibling, node)
            while index % 2 == 0 and index:  # a right edge: climb while it is a left child
                index, last = index >> 1, last >> 1
        else:
            node = _node(node, sibling)
        index, last = index >> 1, last >> 1
    return last == 0 and node.hex() == root.lower()


class ShoeTree:
    """The Merkle tree of a shuffled shoe (``cards`` before the burn) and its server seed."""

    def __init__(self, server_seed: bytes, cards: Sequence[Card]):
        self._salts = [salt(server_seed, i) for i in range(len(cards))]
        self._leaves = [leaf_hash(i, str(card), s) for i, (card, s) in enumerate(zip(cards, self._salts, strict=True))]
        #: The published root, in hex.
        self.root = merkle_root(self._leaves).hex()

    def proof(self, position: int) -> CardProof:
        """The proof of the card at ``position``: its salt and audit path."""
        return {"position": position, "salt": self._salts[position].hex(),
                "path": [p.hex() for p in merkle_path(self._leaves, position)]}

    def proofs(self, start: int, count: int) -> list[CardProof]:
        """The proofs of ``count`` cards dealt one after another from ``start``."""
        return [self.proof(position) for position in range(start, start + count)]
