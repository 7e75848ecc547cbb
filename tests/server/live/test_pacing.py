"""A socket's commands paced before any database work (:mod:`baccarat.server.live.pacing`, issue 38's rerun of
item 11): the rate counted by when frames arrived, as a token bucket, and a squeezer's peels too soon after the
last one answered given that answer again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from baccarat.core.errors import IllegalActionError
from baccarat.server.live.pacing import BURST, MAX_RATE, PEEL_RATE, CommandRate, PeelPace

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _arrivals(per_second: float, seconds: float) -> list[datetime]:
    return [T0 + timedelta(seconds=n / per_second) for n in range(int(per_second * seconds))]


def test_80_a_second_sustained_is_too_many_and_50_never_is():
    """The flood: 80 frames a second on one socket (none was closed when the count was by reading); closed within
    about 100 / 30 s.  50 a second for a minute is never too many."""
    rate = CommandRate()
    answers = [rate.too_many(at) for at in _arrivals(80, 10)]
    first = answers.index(True)
    assert 3.0 < first / 80 < 4.0, first
    steady = CommandRate()
    assert not any(steady.too_many(at) for at in _arrivals(MAX_RATE, 60))


def test_a_burst_read_together_after_a_stall_is_not_a_flood():
    """37 frames a second sent for 2 s, read off the network in one go after the server was busy (all stamped at
    once): an honest pace, not closed (a one-second window on arrival stamps closed it).  Over the burst is."""
    rate = CommandRate()
    assert not any(rate.too_many(T0) for _ in range(74))
    assert not any(rate.too_many(at) for at in _arrivals(37, 10) if at > T0)
    burst = CommandRate()
    assert [burst.too_many(T0) for _ in range(BURST + 1)] == [False] * BURST + [True]


def _peel(card: object, lift: object, kind: str = "squeeze") -> dict[str, object]:
    return {"type": kind, "card": card, "lift": lift}


def test_a_peel_too_soon_after_the_last_answered_gets_that_answer():
    pace = PeelPace()
    assert pace.too_soon(7, 1, _peel(0, 0.2), T0) is None  # none answered yet: to the database
    pace.answered(7, 1, _peel(0, 0.2), T0, {"card": 0, "lift": 0.2})
    for after_ms in (0, 50, 99):
        assert pace.too_soon(7, 1, _peel(0, 0.5), T0 + timedelta(milliseconds=after_ms)) == {"card": 0, "lift": 0.2}
    assert pace.too_soon(7, 1, _peel(0, 0.5), T0 + timedelta(milliseconds=100)) is None  # its time: to the database
    # never paced: a full lift (it turns the card), a turn, the next card, another squeezer, another table, nonsense
    for frame, table, account in ((_peel(0, 1), 7, 1), (_peel(0, 1.0), 7, 1), ({"type": "turn", "card": 0}, 7, 1),
                                  (_peel(1, 0.3), 7, 1), (_peel(0, 0.3), 7, 2), (_peel(0, 0.3), 8, 1),
                                  (_peel(0, True), 7, 1), (_peel(0, "0.3"), 7, 1)):
        assert pace.too_soon(table, account, frame, T0 + timedelta(milliseconds=10)) is None, frame


def test_a_refused_peel_is_refused_again_for_the_same_time_without_the_database():
    """The flood's frames were mostly refused (the card not squeezable yet), each refusal a locked read."""
    pace = PeelPace()
    not_now = IllegalActionError.coded("squeeze.not_now")
    pace.answered(7, 1, _peel(2, 0.4), T0, not_now)
    assert pace.too_soon(7, 1, _peel(2, 0.6), T0 + timedelta(milliseconds=40)) is not_now
    assert pace.too_soon(7, 1, _peel(2, 0.6), T0 + timedelta(milliseconds=100)) is None
    pace.answered(7, 1, {"type": "turn", "card": 2}, T0, not_now)  # a turn's answer is not kept
    assert pace.too_soon(7, 1, _peel(2, 0.6), T0 + timedelta(milliseconds=40)) is not_now


def test_an_account_s_peels_over_their_rate_are_dropped_on_all_its_sockets_together():
    """The rerun's flood: one squeezer on eight sockets, 240 peel frames a second, each answered.  An account's
    peel frames at a table share one bucket of PEEL_RATE a second (whichever socket they come on): the frames over
    it are dropped before any other work; a full lift (a turn), a turn, another account and another table are not
    counted with them."""
    pace = PeelPace()
    frames = [pace.flooding(7, 1, _peel(0, 0.3), T0) for _ in range(PEEL_RATE + 5)]
    assert frames == [False] * PEEL_RATE + [True] * 5
    assert not pace.flooding(7, 1, _peel(0, 1.0), T0) and not pace.flooding(7, 1, {"type": "turn", "card": 0}, T0)
    assert not pace.flooding(7, 2, _peel(0, 0.3), T0) and not pace.flooding(8, 1, _peel(0, 0.3), T0)
    # eight sockets at 30 frames a second each for 2 s: PEEL_RATE a second get through, the rest are dropped
    flood = sorted(at for _ in range(8) for at in _arrivals(30, 2) if at > T0)
    passed = sum(not pace.flooding(7, 1, _peel(0, 0.4), at) for at in flood)
    assert 2 * PEEL_RATE - 2 <= passed <= 2 * PEEL_RATE + 2, passed
    # the page's pace (a frame every 0.15 s) is never dropped
    page = PeelPace()
    assert not any(page.flooding(7, 1, _peel(0, 0.5), T0 + timedelta(seconds=0.15 * n)) for n in range(100))


def test_a_socket_whose_peel_was_dropped_waits_longer_at_each_drop_until_the_account_is_quiet():
    """The second rerun: dropping the frames over the rate left a flood of eight sockets costing twice a squeeze
    (each frame still read and counted).  After a drop the socket waits before reading again, 0.05 s doubled at each
    drop of the account's (peels taken meanwhile do not reset it) up to 2 s; a second without a drop starts again."""
    pace = PeelPace()
    assert pace.backoff(7, 1) == 0  # nothing dropped
    for _ in range(PEEL_RATE):
        assert not pace.flooding(7, 1, _peel(0, 0.3), T0)
    waits = []
    for n in range(8):
        assert pace.flooding(7, 1, _peel(0, 0.3), T0 + timedelta(milliseconds=n))
        waits.append(pace.backoff(7, 1))
    assert waits == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0]
    assert pace.backoff(7, 2) == 0 and pace.backoff(8, 1) == 0  # another account, another table
    assert not pace.flooding(7, 1, _peel(0, 0.3), T0 + timedelta(seconds=0.5))  # a token: taken, the wait stays
    assert pace.backoff(7, 1) == 2.0
    later = T0 + timedelta(seconds=3)  # quiet since: the bucket full again, its next drop waits the least
    assert not any(pace.flooding(7, 1, _peel(0, 0.3), later) for _ in range(PEEL_RATE))
    assert pace.flooding(7, 1, _peel(0, 0.3), later) and pace.backoff(7, 1) == 0.05
