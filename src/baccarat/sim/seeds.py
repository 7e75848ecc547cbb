"""numpy's ``SeedSequence`` state words, in plain Python: the same numbers without ``numpy.random``.

A run's chunk ``i`` starts its generator from ``SeedSequence(seed, spawn_key=(i,))``
(:func:`baccarat.sim.run.chunk_state`).  Importing ``numpy.random`` for it is a noticeable part of
every ``baccarat simulate``'s start (it loads every bit generator), serial time that keeps two
workers further from twice one.  This is the algorithm of numpy's
``numpy/random/bit_generator.pyx`` (O'Neill's seed_seq hashing, pool of four 32-bit words) for
non-negative integer entropy and spawn keys; ``tests/sim/test_simulation.py`` compares it with numpy's
own on many seeds and chunks.

>>> state_words(1, (0,), 2) == [int(w) for w in __import__("numpy").random.SeedSequence(1, spawn_key=(0,))
...                                .generate_state(2, __import__("numpy").uint64)]
True
"""

from __future__ import annotations

from collections.abc import Sequence

_MASK = 0xFFFFFFFF
_POOL = 4
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16


def _words(n: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first (0 is one word)."""
    if n < 0:
        raise ValueError("expected a non-negative integer")
    out = [n & _MASK]
    n >>= 32
    while n:
        out.append(n & _MASK)
        n >>= 32
    return out


def _pool(entropy: int, spawn_key: Sequence[int]) -> list[int]:
    run = _words(entropy)
    spawn = [word for key in spawn_key for word in _words(key)]
    if spawn and len(run) < _POOL:
        run += [0] * (_POOL - len(run))
    entropy_words = run + spawn
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value ^= hash_const
        hash_const = (hash_const * _MULT_A) & _MASK
        value = (value * hash_const) & _MASK
        return value ^ (value >> _XSHIFT)

    def mix(x: int, y: int) -> int:
        result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK
        return result ^ (result >> _XSHIFT)

    mixer = [hashmix(entropy_words[i] if i < len(entropy_words) else 0) for i in range(_POOL)]
    for source in range(_POOL):
        for target in range(_POOL):
            if source != target:
                mixer[target] = mix(mixer[target], hashmix(mixer[source]))
    for source in range(_POOL, len(entropy_words)):
        for target in range(_POOL):
            mixer[target] = mix(mixer[target], hashmix(entropy_words[source]))
    return mixer


def state_words(entropy: int, spawn_key: Sequence[int], words: int) -> list[int]:
    """``SeedSequence(entropy, spawn_key=spawn_key).generate_state(words, numpy.uint64)`` as ints."""
    pool = _pool(entropy, spawn_key)
    hash_const = _INIT_B
    halves = []
    for i in range(2 * words):
        value = pool[i % _POOL] ^ hash_const
        hash_const = (hash_const * _MULT_B) & _MASK
        value = (value * hash_const) & _MASK
        halves.append(value ^ (value >> _XSHIFT))
    return [halves[2 * i] | halves[2 * i + 1] << 32 for i in range(words)]
