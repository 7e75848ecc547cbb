"""Compiled kernels: shuffle, burn, cut card and deal whole shoes, many times over.

Everything the kernels know about the rules arrives as arrays built by
:mod:`baccarat.sim.outcome_tables` from the rules core (the tableau's charts, the burn
counts, the pay of every coup key); nothing here restates a rule.  The shoe
procedure mirrors :class:`baccarat.core.shoe.Shoe`: after the burn, a coup starts
only if the cards left can cover it; after a coup, the shoe ends if that coup
was the last one, and otherwise the next coup is the last when the cut card
has come out (a card behind it was dealt).

Random numbers: xoshiro256** (Blackman and Vigna), seeded per chunk from a
numpy ``SeedSequence``, with Lemire's unbiased bounded integers for the
Fisher-Yates shuffle.

These are plain numba functions; :mod:`baccarat.sim.compiled` compiles the
three chunk kernels ahead of time so that a run need not import numba, and
falls back to these very functions when it cannot.  Both deal the same shoes
to the bit.
"""

from __future__ import annotations

import numba
import numpy as np

_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)
#: The right-hand digit of a sum of two or three point values: a table look-up instead of a division.
_DIGIT = np.arange(30, dtype=np.int64) % 10

@numba.njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:  # pragma: no cover - compiled
    return (x << _U64(k)) | (x >> _U64(64 - k))


@numba.njit(cache=True, inline="always")
def _step(s0: np.uint64, s1: np.uint64, s2: np.uint64,
          s3: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """One xoshiro256** step on the four state words: (64 random bits, the new words)."""
    result = _rotl(s1 * _U64(5), 7) * _U64(9)
    t = s1 << _U64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@numba.njit(cache=True, inline="always")
def _below(n: int, s0: np.uint64, s1: np.uint64, s2: np.uint64,
           s3: np.uint64) -> tuple[int, np.uint64, np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """A uniform integer in ``[0, n)`` (n < 2**32), without bias (Lemire's method), and the new words."""
    bound = _U64(n)
    bits, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
    product = (bits >> _U64(32)) * bound
    low = product & _MASK32
    if low < bound:
        threshold = ((_MASK32 + _U64(1)) - bound) % bound
        while low < threshold:
            bits, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
            product = (bits >> _U64(32)) * bound
            low = product & _MASK32
    return int(product >> _U64(32)), s0, s1, s2, s3


@numba.njit(cache=True)
def next_u64(state: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """xoshiro256**: the next 64 random bits; ``state`` is four uint64, not all zero."""
    result, state[0], state[1], state[2], state[3] = _step(state[0], state[1], state[2], state[3])
    return result


@numba.njit(cache=True)
def below(state: np.ndarray, n: int) -> int:  # pragma: no cover - compiled
    """A uniform integer in ``[0, n)`` (n < 2**32), without bias (Lemire's method)."""
    j, state[0], state[1], state[2], state[3] = _below(n, state[0], state[1], state[2], state[3])
    return j


@numba.njit(cache=True)
def shuffle_in_place(cards: np.ndarray, state: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fisher-Yates, drawing exactly as :func:`below` would.

    The generator's four words stay in local variables for the whole shuffle: kept in the
    ``state`` array, they would be stored and loaded again at every draw (the compiler cannot
    prove that writing a card does not change them), which put a store-to-load delay on the
    generator's critical path and cost about a fifth of the shuffle.
    """
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(cards.shape[0] - 1, 0, -1):
        j, s0, s1, s2, s3 = _below(i + 1, s0, s1, s2, s3)
        cards[i], cards[j] = cards[j], cards[i]
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@numba.njit(cache=True)
def punto_banco_coup(values: np.ndarray, pos: int, player_draws: np.ndarray, banker_draws: np.ndarray,
                     natural: np.ndarray) -> tuple[int, int]:  # pragma: no cover - compiled
    """Deal one coup from card values starting at ``pos``: (coup key, next position).

    The key is ``((pt * 10 + bt) * 10 + fifth) * 10 + sixth`` with unused cards 0,
    as in :func:`baccarat.analysis.keys.coup_table`.
    """
    pt = _DIGIT[values[pos] + values[pos + 2]]
    bt = _DIGIT[values[pos + 1] + values[pos + 3]]
    pos += 4
    # Written without branches (0/1 arithmetic): which way a coup goes is random, so branches
    # would be mispredicted about once a coup; the arithmetic costs less.
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
                     banker_draws: np.ndarray, natural: np.ndarray, pays: np.ndarray, keys: np.ndarray,
                     histogram: np.ndarray, net: np.ndarray) -> int:  # pragma: no cover - compiled
    """Deal one shoe whose card values are ``values`` (already shuffled): burn, coups, cut card, last coup.

    Writes each coup's key to ``keys``, counts it in ``histogram``, sets ``net[w]`` to the
    shoe's net result on wager ``w`` (``pays[key, w]`` per coup, added in deal order) and
    returns the number of coups.
    """
    size = values.shape[0]
    cut_index = size - cut_card
    wagers = pays.shape[1]
    net[:] = 0.0
    pos = 1 + burn[values[0]]
    last = False
    coups = 0
    while size - pos >= 6:  # a coup may need six cards and is never split
        key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
        keys[coups] = key
        histogram[key] += 1
        for w in range(wagers):
            net[w] += pays[key, w]
        coups += 1
        if last:
            break
        if pos > cut_index:  # the cut card is out: one more coup
            last = True
    return coups


@numba.njit(cache=True)
def _add_shoe(sums: np.ndarray, net: np.ndarray, hands: int) -> None:  # pragma: no cover - compiled
    """Per wager row, add a shoe's net, net squared and net x hands; the last row: hands, hands squared, 1."""
    wagers = net.shape[0]
    for w in range(wagers):
        sums[w, 0] += net[w]
        sums[w, 1] += net[w] * net[w]
        sums[w, 2] += net[w] * hands
    sums[wagers, 0] += hands
    sums[wagers, 1] += hands * hands
    sums[wagers, 2] += 1


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
        hands = punto_banco_shoe(values, burn, cut_card, player_draws, banker_draws, natural, pays, keys,
                                 histogram, net)
        _add_shoe(sums, net, hands)
    return histogram, sums


@numba.njit(cache=True)
def punto_banco_cards_chunk(shoes: int, state: np.ndarray, deck: np.ndarray, value_of: np.ndarray,
                            rank_of: np.ndarray, suit_of: np.ndarray, pattern_index: np.ndarray, burn: np.ndarray,
                            cut_card: int, player_draws: np.ndarray, banker_draws: np.ndarray, natural: np.ndarray,
                            pays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """:func:`punto_banco_chunk` dealing real cards (rank and suit), for games with wagers on pairs.

    The first four cards of each coup give its pattern (:mod:`baccarat.core.facts`):
    ``pattern_index[player pair * 16 + banker pair * 8 + twin * 4 + player suited * 2 + banker suited]``;
    a coup is counted in histogram bin ``key * patterns + pattern`` and paid ``pays[bin, wager]``.
    The shoe procedure is :func:`punto_banco_shoe`'s, on the cards' point values.
    """
    wagers = pays.shape[1]
    patterns = pays.shape[0] // 10_000
    histogram = np.zeros(pays.shape[0], dtype=np.int64)
    sums = np.zeros((wagers + 1, 3))
    cards = deck.copy()
    size = cards.shape[0]
    values = np.empty(size, dtype=np.int32)
    cut_index = size - cut_card
    net = np.zeros(wagers)
    for _ in range(shoes):
        shuffle_in_place(cards, state)
        for i in range(size):
            values[i] = value_of[cards[i]]
        net[:] = 0.0
        pos = 1 + burn[values[0]]
        last = False
        hands = 0
        while size - pos >= 6:
            p1, b1, p2, b2 = cards[pos], cards[pos + 1], cards[pos + 2], cards[pos + 3]
            player_pair = 1 if rank_of[p1] == rank_of[p2] else 0
            banker_pair = 1 if rank_of[b1] == rank_of[b2] else 0
            twin = 1 if player_pair == 1 and banker_pair == 1 and rank_of[p1] == rank_of[b1] else 0
            player_suited = 1 if suit_of[p1] == suit_of[p2] else 0
            banker_suited = 1 if suit_of[b1] == suit_of[b2] else 0
            pattern = pattern_index[player_pair * 16 + banker_pair * 8 + twin * 4 + player_suited * 2 + banker_suited]
            key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
            cell = key * patterns + pattern
            histogram[cell] += 1
            for w in range(wagers):
                net[w] += pays[cell, w]
            hands += 1
            if last:
                break
            if pos > cut_index:
                last = True
        _add_shoe(sums, net, hands)
    return histogram, sums


@numba.njit(cache=True)
def punto_banco_deals_chunk(shoes: int, state: np.ndarray, deck: np.ndarray, value_of: np.ndarray, burn: np.ndarray,
                            cut_card: int, player_draws: np.ndarray, banker_draws: np.ndarray, natural: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Deal ``shoes`` shoes of real cards as :func:`punto_banco_cards_chunk` does, and give back every coup: its key,
    its cards by hand position (Player first, second, third, Banker first, second, third; card kinds, -1 where a
    third card was not dealt) and its shoe, with each shoe's number of coups.  For wagers on the cards themselves,
    whose events are computed from the cards outside the kernel."""
    size = deck.shape[0]
    most = shoes * (size // 4 + 1)
    keys = np.empty(most, dtype=np.int64)
    dealt = np.full((most, 6), -1, dtype=np.int64)
    shoe_of = np.empty(most, dtype=np.int64)
    hands = np.zeros(shoes, dtype=np.int64)
    cards = deck.copy()
    values = np.empty(size, dtype=np.int32)
    cut_index = size - cut_card
    n = 0
    for shoe in range(shoes):
        shuffle_in_place(cards, state)
        for i in range(size):
            values[i] = value_of[cards[i]]
        pos = 1 + burn[values[0]]
        last = False
        while size - pos >= 6:
            start = pos
            pt = _DIGIT[values[pos] + values[pos + 2]]
            play = 1 - (natural[pt] | natural[_DIGIT[values[pos + 1] + values[pos + 3]]])
            player_drew = play * player_draws[pt]
            key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
            dealt[n, 0], dealt[n, 1] = cards[start], cards[start + 2]
            dealt[n, 3], dealt[n, 4] = cards[start + 1], cards[start + 3]
            taken = pos - start
            if taken == 6:
                dealt[n, 2], dealt[n, 5] = cards[start + 4], cards[start + 5]
            elif taken == 5 and player_drew == 1:
                dealt[n, 2] = cards[start + 4]
            elif taken == 5:
                dealt[n, 5] = cards[start + 4]
            keys[n] = key
            shoe_of[n] = shoe
            hands[shoe] += 1
            n += 1
            if last:
                break
            if pos > cut_index:
                last = True
    return keys[:n], dealt[:n], shoe_of[:n], hands


@numba.njit(cache=True)
def lucky_draw_chunk(shoes: int, state: np.ndarray, deck: np.ndarray, value_of: np.ndarray, burn: np.ndarray,
                     cut_card: int, dealer_draws: np.ndarray, draws: np.ndarray, enter_pay: np.ndarray,
                     block_event: np.ndarray,
                     block_pay: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Deal ``shoes`` full Lucky Draw shoes, one seat heads-up, one unit of Enter and of Block Bonus.

    ``draws[s1, up, s2]`` (0/1) is the seat's strategy and ``dealer_draws[total]`` (0/1) the
    dealer's rule.  Histogram bins: ``drew * 100 + seat total * 10 + dealer total`` for Enter,
    then ``200 + event`` for Block Bonus; ``enter_pay`` is the Enter (and Draw) pay of each of
    the first 200 bins.  Sums as in :func:`punto_banco_chunk`, wagers Enter (with the Draw) and
    Block Bonus.  Like :func:`punto_banco_coup`, a round is dealt without branches.
    """
    histogram = np.zeros(200 + block_pay.shape[0], dtype=np.int64)
    sums = np.zeros((3, 3))
    cards = deck.copy()
    size = cards.shape[0]
    values = np.empty(size, dtype=np.int32)
    cut_index = size - cut_card
    net = np.zeros(2)
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
            drew = draws[s1, up, s2]
            seat = _DIGIT[s1 + s2 + drew * values[pos]]  # the Draw card counts only if the seat drew
            pos += drew
            dealer = _DIGIT[up + values[pos]]
            pos += 1
            third = dealer_draws[dealer]
            dealer = _DIGIT[dealer + third * values[pos]]
            pos += third
            outcome = drew * 100 + seat * 10 + dealer
            enter += enter_pay[outcome]
            histogram[outcome] += 1
            block += block_pay[event]
            histogram[200 + event] += 1
            hands += 1
            if last:
                break
            if pos > cut_index:
                last = True
        net[0] = enter
        net[1] = block
        _add_shoe(sums, net, hands)
    return histogram, sums


@numba.njit(cache=True)
def exact_ev(counts: np.ndarray, parent: np.ndarray, last: np.ndarray, earlier: np.ndarray,
             coefficients: np.ndarray, monomial: np.ndarray) -> float:  # pragma: no cover - compiled
    """The batch analyzer's polynomial for one wager and one composition (counts by point value)."""
    nodes, terms = parent.shape[0], coefficients.shape[0]
    first = nodes - terms
    size = counts.sum()
    monomial[0] = 1.0
    total = 0.0
    for t in range(1, nodes):
        value = monomial[parent[t]] * max(counts[last[t]] - earlier[t], 0)
        if t < first:
            monomial[t] = value
        else:
            total += coefficients[t - first] * value
    return float(total / (size * (size - 1.0) * (size - 2.0) * (size - 3.0) * (size - 4.0) * (size - 5.0)))


@numba.njit(cache=True)
def count_chunk(shoes: int, state: np.ndarray, deck: np.ndarray, value_of: np.ndarray, burn: np.ndarray,
                cut_card: int, player_draws: np.ndarray, banker_draws: np.ndarray, natural: np.ndarray,
                pay: np.ndarray, tags: np.ndarray, trigger: float, true_count: bool, initial: int,
                perfect: bool, parent: np.ndarray, last: np.ndarray, earlier: np.ndarray,
                coefficients: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """A counting study's chunk: sums of hands, bets, win, win squared... (see ``counting.summarize_count``)."""
    sums = np.zeros(8)
    cards = deck.copy()
    size = cards.shape[0]
    values = np.empty(size, dtype=np.int64)
    cut_index = size - cut_card
    left = np.zeros(10, dtype=np.int64)
    monomial = np.empty(parent.shape[0] - coefficients.shape[0])
    for _ in range(shoes):
        shuffle_in_place(cards, state)
        left[:] = 0
        for i in range(size):
            values[i] = value_of[cards[i]]
            left[values[i]] += 1
        pos = 1 + burn[values[0]]
        for i in range(pos):
            left[values[i]] -= 1
        running = initial + tags[values[0]]  # only the turned card is seen
        last_coup = False
        hands = 0
        bets = 0
        win = 0.0
        while size - pos >= 6:
            if perfect:
                bet = exact_ev(left, parent, last, earlier, coefficients, monomial) > 0.0
            elif true_count:
                bet = running / ((size - pos) / 52.0) >= trigger
            else:
                bet = running >= trigger
            start = pos
            key, pos = punto_banco_coup(values, pos, player_draws, banker_draws, natural)
            for i in range(start, pos):
                running += tags[values[i]]
                left[values[i]] -= 1
            hands += 1
            if bet:
                bets += 1
                win += pay[key]
            if last_coup:
                break
            if pos > cut_index:
                last_coup = True
        sums[0] += hands
        sums[1] += hands * hands
        sums[2] += bets
        sums[3] += win
        sums[4] += win * win
        sums[5] += 1
        sums[6] += win * bets
        sums[7] += bets * bets
    return sums
