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

Algorithm ``hmac-sha256-fisher-yates/1`` (shoes dealt before client seeds were
taken) is steps 3-6 with the server seed itself as the key; its records still verify.

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
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable

from baccarat.core.cards import Card, standard_deck
from baccarat.core.errors import ConfigurationError
from baccarat.core.messages import CATALOGUE
from baccarat.core.shoe import Shoe, check_decks, shuffle

#: The algorithm of every new shoe: the server seed and the players' client seeds.
ALGORITHM = "hmac-sha256-fisher-yates/2"
#: The first algorithm (the server seed alone), kept so that old shoes are dealt out and verify.
ALGORITHM_1 = "hmac-sha256-fisher-yates/1"
ALGORITHMS = (ALGORITHM_1, ALGORITHM)
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
    if algorithm == ALGORITHM:
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
