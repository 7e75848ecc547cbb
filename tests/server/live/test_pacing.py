"""A socket's commands paced before any database work (:mod:`baccarat.server.live.pacing`, issue 38's rerun of
item 11): the rate counted by when frames arrived, and a squeezer's peels too soon after the last one taken
answered with it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from baccarat.server.live.pacing import MAX_RATE, CommandRate, PeelPace

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_the_rate_counts_arrivals_however_slowly_the_socket_reads_them():
    """80 frames that arrived within one second are too many, though the socket reads them over two seconds (as a
    socket does while each frame before them is carried out); 50 a second for ever are not."""
    rate = CommandRate()
    arrivals = [T0 + timedelta(seconds=n / 80) for n in range(80)]
    answers = [rate.too_many(at) for at in arrivals]
    assert answers.index(True) == MAX_RATE  # the 51st within the second
    steady = CommandRate()
    assert not any(steady.too_many(T0 + timedelta(seconds=n / MAX_RATE)) for n in range(5 * MAX_RATE))


def _peel(card: object, lift: object, kind: str = "squeeze") -> dict[str, object]:
    return {"type": kind, "card": card, "lift": lift}


def test_a_peel_too_soon_after_the_last_taken_is_answered_with_it():
    pace = PeelPace()
    assert pace.too_soon(7, 1, _peel(0, 0.2), T0) is None  # none taken yet: to the database
    pace.took(7, 1, T0, {"card": 0, "lift": 0.2})
    for after_ms in (0, 50, 99):
        assert pace.too_soon(7, 1, _peel(0, 0.5), T0 + timedelta(milliseconds=after_ms)) == {"card": 0, "lift": 0.2}
    assert pace.too_soon(7, 1, _peel(0, 0.5), T0 + timedelta(milliseconds=100)) is None  # its time: taken
    # never paced: a full lift (it turns the card), a turn, the next card, another squeezer, another table, nonsense
    for frame, table, account in ((_peel(0, 1), 7, 1), (_peel(0, 1.0), 7, 1), ({"type": "turn", "card": 0}, 7, 1),
                                  (_peel(1, 0.3), 7, 1), (_peel(0, 0.3), 7, 2), (_peel(0, 0.3), 8, 1),
                                  (_peel(0, True), 7, 1), (_peel(0, "0.3"), 7, 1)):
        assert pace.too_soon(table, account, frame, T0 + timedelta(milliseconds=10)) is None, frame
