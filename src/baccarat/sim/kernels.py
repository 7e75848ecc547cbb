"""Compiled kernels: shuffle, burn, cut card and deal whole shoes, many times over.

Everything the kernels know about the rules arrives as arrays built by
:mod:`baccarat.sim.tables` from the rules core (the tableau's charts, the burn
counts, the pay of every coup key); nothing here restates a rule.  The shoe
procedure mirrors :class:`baccarat.shoe.Shoe`: after the burn, a coup starts
only if the cards left can cover it; after a coup, the shoe ends if that coup
was the last one, and otherwise the next coup is the last when the cut card
has come out (a card behind it was dealt).

Random numbers: xoshiro256** (Blackman and Vigna), seeded per chunk from a
numpy ``SeedSequence``, with Lemire's unbiased bounded integers for the
Fisher-Yates shuffle.
"""

from __future__ import annotations

import numba
import numpy as np

_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)
#: The right-hand digit of a sum of two point values: a table look-up instead of a division.
_DIGIT = np.arange(20, dtype=np.int64) % 10


@numba.njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:  # pragma: no cover - compiled
    return (x << _U64(k)) | (x >> _U64(64 - k))


@numba.njit(cache=True)
def next_u64(state: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """xoshiro256**: the next 64 random bits; ``state`` is four uint64, not all zero."""
    result = _rotl(state[1] * _U64(5), 7) * _U64(9)
    t = state[1] << _U64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@numba.njit(cache=True)
def below(state: np.ndarray, n: int) -> int:  # pragma: no cover - compiled
    """A uniform integer in ``[0, n)`` (n < 2**32), without bias (Lemire's method)."""
    bound = _U64(n)
    product = (next_u64(state) >> _U64(32)) * bound
    low = product & _MASK32
    if low < bound:
        threshold = ((_MASK32 + _U64(1)) - bound) % bound
        while low < threshold:
            product = (next_u64(state) >> _U64(32)) * bound
            low = product & _MASK32
    return int(product >> _U64(32))


@numba.njit(cache=True)
def shuffle_in_place(cards: np.ndarray, state: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fisher-Yates."""
    for i in range(cards.shape[0] - 1, 0, -1):
        j = below(state, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@numba.njit(cache=True)
def punto_banco_coup(values: np.ndarray, pos: int, player_draws: np.ndarray, banker_draws: np.ndarray,
                     natural: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Deal one coup from card values starting at ``pos``: (coup key, next position).

    The key is ``((pt * 10 + bt) * 10 + fifth) * 10 + sixth`` with unused cards 0,
    as in :func:`baccarat.analysis.punto.coup_table`.
    """
    pt = _DIGIT[values[pos] + values[pos + 2]]
    bt = _DIGIT[values[pos + 1] + values[pos + 3]]
    pos += 4
    # Written without branches (0/1 arithmetic): which way a coup goes is random, and
    # mispredicted branches would cost more than the few extra operations.
    play = 1 - (natural[pt] | natural[bt])  # 1 when neither hand has a natural
    player_draw = play * player_draws[pt]
    next_card = values[pos]
    column = 10 + player_draw * (next_card - 10)  # the Player's third card, or 10 if the Player stood
    banker_draw = play * banker_draws[bt, column]
    banker_card = values[pos + player_draw]
    fifth = player_draw * next_card + (1 - player_draw) * banker_draw * banker_card
    sixth = player_draw * banker_draw * banker_card
    pos += player_draw + banker_draw
    return ((pt * 10 + bt) * 10 + fifth) * 10 + sixth, pos


@numba.njit(cache=True)
def punto_banco_shoe(values: np.ndarray, burn: np.ndarray, cut_card: int, player_draws: np.ndarray,
                     banker_draws: np.ndarray, natural: np.ndarray, keys: np.ndarray) -> int:  # pragma: no cover
    """Deal one shoe whose card values are ``values`` (already shuffled): burn, coups, cut card, last coup.

    Writes each coup's key to ``keys`` and returns the number of coups.
    """
    size = values.shape[0]
    cut_index = size - cut_card
    pos = 1 + burn[values[0]]
    last = False
    coups = 0
    while size - pos >= 6:  # a coup may need six cards and is never split
        key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
        keys[coups] = key
        coups += 1
        if last:
            break
        if pos > cut_index:  # the cut card is out: one more coup
            last = True
    return coups


@numba.njit(cache=True)
def punto_banco_chunk(shoes: int, state: np.ndarray, deck_values: np.ndarray, burn: np.ndarray, cut_card: int,
                      player_draws: np.ndarray, banker_draws: np.ndarray, natural: np.ndarray,
                      pays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Deal ``shoes`` full shoes; one unit on every wager of every coup.

    Punto banco needs only point values, so the shoe's values are shuffled
    directly.  ``pays[key, wager]`` keeps one coup's pays in one cache line.
    Returns the coup-key histogram and, per wager, the sums over shoes of
    (net, net squared, net x hands); row ``wagers`` holds (hands, hands squared, shoes).
    """
    wagers = pays.shape[1]
    histogram = np.zeros(10_000, dtype=np.int64)
    sums = np.zeros((wagers + 1, 3))
    values = deck_values.copy()
    keys = np.empty(values.shape[0] // 4 + 1, dtype=np.int64)
    net = np.zeros(wagers)
    for _ in range(shoes):
        shuffle_in_place(values, state)
        hands = punto_banco_shoe(values, burn, cut_card, player_draws, banker_draws, natural, keys)
        net[:] = 0.0
        for h in range(hands):
            key = keys[h]
            histogram[key] += 1
            for w in range(wagers):
                net[w] += pays[key, w]
        for w in range(wagers):
            sums[w, 0] += net[w]
            sums[w, 1] += net[w] * net[w]
            sums[w, 2] += net[w] * hands
        sums[wagers, 0] += hands
        sums[wagers, 1] += hands * hands
        sums[wagers, 2] += 1
    return histogram, sums


@numba.njit(cache=True)
def lucky_draw_chunk(shoes: int, state: np.ndarray, deck: np.ndarray, value_of: np.ndarray, burn: np.ndarray,
                     cut_card: int, dealer_draws: np.ndarray, draws: np.ndarray, stand_pay: np.ndarray,
                     draw_pay: np.ndarray, block_event: np.ndarray,
                     block_pay: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Deal ``shoes`` full Lucky Draw shoes, one seat heads-up, one unit of Enter and of Block Bonus.

    ``draws[s1, up, s2]`` is the seat's strategy.  Histogram bins: ``drew * 100 +
    seat total * 10 + dealer total`` for Enter, then ``200 + event`` for Block Bonus.
    Sums as in :func:`punto_banco_chunk`, wagers Enter (with the Draw) and Block Bonus.
    """
    histogram = np.zeros(200 + block_pay.shape[0], dtype=np.int64)
    sums = np.zeros((3, 3))
    cards = deck.copy()
    values = np.empty(cards.shape[0], dtype=np.int64)
    size = cards.shape[0]
    cut_index = size - cut_card
    for _ in range(shoes):
        shuffle_in_place(cards, state)
        for i in range(size):
            values[i] = value_of[cards[i]]
        pos = 1 + burn[values[0]]
        last = False
        hands = 0
        enter = 0.0
        block = 0.0
        while size - pos >= 6:  # three seat cards and three dealer cards at most
            s1, up, s2 = values[pos], values[pos + 1], values[pos + 2]
            event = block_event[cards[pos], cards[pos + 2], cards[pos + 1]]
            pos += 3
            seat = (s1 + s2) % 10
            drew = draws[s1, up, s2]
            if drew:
                seat = (seat + values[pos]) % 10
                pos += 1
            dealer = (up + values[pos]) % 10
            pos += 1
            if dealer_draws[dealer]:
                dealer = (dealer + values[pos]) % 10
                pos += 1
            if drew:
                enter += draw_pay[seat, dealer]
                histogram[100 + seat * 10 + dealer] += 1
            else:
                enter += stand_pay[seat, dealer]
                histogram[seat * 10 + dealer] += 1
            block += block_pay[event]
            histogram[200 + event] += 1
            hands += 1
            if last:
                break
            if pos > cut_index:
                last = True
        sums[0, 0] += enter
        sums[0, 1] += enter * enter
        sums[0, 2] += enter * hands
        sums[1, 0] += block
        sums[1, 1] += block * block
        sums[1, 2] += block * hands
        sums[2, 0] += hands
        sums[2, 1] += hands * hands
        sums[2, 2] += 1
    return histogram, sums
