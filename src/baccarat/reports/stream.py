"""The server's random stream itself, for tests of the generator (``baccarat certify --stream``).

A shoe is shuffled by a Fisher-Yates that reads 32-bit words from the HMAC-SHA256 stream of the shoe's
key (:mod:`baccarat.core.fair`, steps 3-5).  :func:`shoe_stream` gives those words exactly as the shuffle
reads them (every word read, the rejected ones too, big-endian as read), or the raw HMAC-SHA256 blocks
behind them (whole 32-byte blocks, so the last block's unread words too); :func:`server_stream` joins
the shoes one after another, keyed as :class:`baccarat.reports.dealing.ServerShuffle` keys them, so a
seeded stream is the stream of that certification's shoes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import BinaryIO

from baccarat.core.errors import ConfigurationError
from baccarat.core.fair import ALGORITHM, new_server_seed, shoe_key
from baccarat.core.shoe import DEFAULT_DECKS, check_decks
from baccarat.reports.dealing import _BLOCK_WORDS, CLIENT_SEEDS, derived_server_seed, shuffled


def shoe_stream(key: bytes, decks: int, *, raw: bool = False) -> bytes:
    """The words the shuffle of ``key`` reads (``raw``: the HMAC-SHA256 blocks they come from)."""
    _, words, used = shuffled(key, decks)
    kept = words[: -(-used // _BLOCK_WORDS) * _BLOCK_WORDS] if raw else words[:used]
    return kept.astype(">u4").tobytes()


def server_stream(seed: int | None = None, decks: int = DEFAULT_DECKS, *, raw: bool = False,
                  first: int = 1) -> Iterator[bytes]:
    """The stream of shoes ``first``, ``first + 1``, ...: one ``bytes`` a shoe, without end.

    ``seed`` None: each shoe's server seed from the operating system's generator, as the server's.
    """
    check_decks(decks)
    number = first
    while True:
        server_seed = new_server_seed() if seed is None else derived_server_seed(seed, number)
        yield shoe_stream(shoe_key(ALGORITHM, server_seed, CLIENT_SEEDS), decks, raw=raw)
        number += 1


def stream_bytes(count: int, *, seed: int | None = None, decks: int = DEFAULT_DECKS, raw: bool = False) -> bytes:
    """The first ``count`` bytes of :func:`server_stream`."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ConfigurationError(f"bytes must be a positive integer, got {count!r}")
    parts: list[bytes] = []
    have = 0
    for part in server_stream(seed, decks, raw=raw):
        parts.append(part)
        have += len(part)
        if have >= count:
            break
    return b"".join(parts)[:count]


def write_stream(out: BinaryIO, count: int | None, *, seed: int | None = None, decks: int = DEFAULT_DECKS,
                 raw: bool = False) -> int:
    """Write ``count`` bytes of the stream to ``out`` (None: until the reader goes away); the bytes written."""
    written = 0
    for part in server_stream(seed, decks, raw=raw):
        if count is not None and written + len(part) >= count:
            part = part[: count - written]
        try:
            out.write(part)
        except (OSError, ValueError):  # the reader (dieharder, head) has what it wanted and closed the pipe
            return written
        written += len(part)
        if count is not None and written >= count:
            break
    with contextlib.suppress(OSError, ValueError):
        out.flush()
    return written
