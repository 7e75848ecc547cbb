"""The verifier's own random stream (docs/fairness.md, steps 3 and 4): block ``k`` is ``HMAC-SHA256(key, k as 8
bytes big-endian)``, read as 32-bit big-endian words, and an index below ``n`` is taken by rejection sampling.
The shuffle (:mod:`baccarat.verify.shoe`) and the struck cards (:mod:`baccarat.verify.strikes`) both read it."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator


def words(key: bytes) -> Iterator[int]:
    """The stream of ``key``, word by word."""
    block = 0
    while True:
        digest = hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest()
        block += 1
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i:i + 4], "big")


def below(stream: Iterator[int], n: int) -> int:
    """An index in ``[0, n)``: words are taken until one is below ``2**32 - 2**32 % n`` (none favoured)."""
    limit = 2**32 - 2**32 % n
    word = next(stream)
    while word >= limit:
        word = next(stream)
    return word % n
