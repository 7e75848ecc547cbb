"""Provably fair shoes: a committed server seed decides every card.

Before the first bet on a shoe the house publishes ``SHA-256(server_seed)``
(the *commitment*) and the algorithm name; when the shoe ends it reveals the
seed.  Anyone can then recompute the shoe and check every card dealt from it
(``baccarat verify``, which shares no code with this module on purpose).

Algorithm ``hmac-sha256-fisher-yates/1``:

1. The stream: block ``k`` (k = 0, 1, 2, ...) is ``HMAC-SHA256(server_seed,
   k as 8 bytes big-endian)``; the stream is the blocks one after another, read
   as 32-bit big-endian words.
2. An index below ``n``: take words ``w`` until ``w < 2**32 - 2**32 % n``
   (rejection sampling, so no index is favoured); the index is ``w % n``.
3. The shoe: ``decks`` copies of the deck in the order clubs, diamonds,
   hearts, spades, each Ace to King; then Fisher-Yates: for ``i`` from the last
   position down to 1, swap positions ``i`` and ``index below i + 1``.
4. The casino procedure of :mod:`baccarat.shoe` follows: the first card is
   turned and burned with as many more as it counts (tens ten).

>>> seed = bytes(32)
>>> commitment(seed)
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> [str(c) for c in fair_cards(seed, 1)[:5]]
['Qd', '6d', '7h', '5c', '3d']
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from baccarat.cards import Card, standard_deck
from baccarat.errors import ConfigurationError
from baccarat.shoe import Shoe, check_decks, shuffle

ALGORITHM = "hmac-sha256-fisher-yates/1"
SEED_BYTES = 32


class HmacStream:
    """The random stream of a server seed; a :class:`baccarat.shoe.RandomSource`."""

    def __init__(self, server_seed: bytes):
        if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
            raise ConfigurationError(f"a server seed is {SEED_BYTES} bytes")
        self._key = server_seed
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


def fair_cards(server_seed: bytes, decks: int) -> list[Card]:
    """The shoe's card order before the burn (steps 1-3 of the algorithm)."""
    return shuffle(standard_deck() * check_decks(decks), HmacStream(server_seed))


def fair_shoe(server_seed: bytes, *, decks: int, cut_card: int) -> Shoe:
    """The shoe of ``server_seed``, shuffled, burned and ready to deal."""
    return Shoe(fair_cards(server_seed, decks), cut_card=cut_card, burn=True)
