"""A player's recall (:mod:`baccarat.server.playing.scoreboards`): the result in words from the player's side, and
the Lucky Draw seat each account plays in the core."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.core.errors import IllegalActionError
from baccarat.server.playing import scoreboards
from baccarat.server.storage.models import Bet

LUCKY_HANDS = {"seat:1": ["9h", "Kd"], "seat:2": ["3c", "Ac"], "seat:3": ["4d", "Ac"], "dealer": ["5h", "Jc"]}
NAMES = {"seat:1": "ann", "seat:2": "bob", "seat:3": "cy"}


@pytest.mark.parametrize(("result", "username", "words"), [
    ({"void": "the shoe was replaced"}, "ann", "Void: every stake refunded"),
    ({"winner": "banker", "player_total": 5, "banker_total": 7}, "ann", "Banker wins 7 : 5"),
    ({"winner": "player", "player_total": 8, "banker_total": 6}, "ann", "Player wins 8 : 6"),
    ({"winner": "tie", "player_total": 4, "banker_total": 4}, "ann", "Tie 4 : 4"),
    ({"hands": LUCKY_HANDS, "names": NAMES}, "ann", "You win 9 : 5"),
    ({"hands": LUCKY_HANDS, "names": NAMES}, "bob", "Dealer wins 5 : 4"),
    ({"hands": LUCKY_HANDS, "names": NAMES}, "cy", "Push 5 : 5"),
    # no words where the player's hand or the dealer's is not in the result: a refunded round, a watcher's recall
    ({"hands": LUCKY_HANDS, "names": NAMES}, "dora", None),
    ({"names": NAMES}, "ann", None),
    ({"hands": {"seat:1": ["9h", "Kd"]}, "names": NAMES}, "ann", None),
])
def test_a_result_is_told_from_the_player_s_side(result: Any, username: str, words: str | None):
    assert scoreboards._result_words(result, username) == words


def _bets(*account_and_seat: tuple[int, int]) -> list[Bet]:
    return [Bet(account_id=account, seat=seat) for account, seat in account_and_seat]


def test_each_account_plays_its_own_seat_or_the_lowest_free_one_and_never_more_than_the_seats():
    # the second account bet from the first's seat, the third from a seat the game has not: each gets the lowest free
    assert scoreboards.core_seats(_bets((10, 2), (11, 2), (12, 9), (10, 2)), 3) == {10: 2, 11: 1, 12: 3}
    with pytest.raises(IllegalActionError) as refused:
        scoreboards.core_seats(_bets((10, 1), (11, 2), (12, 1)), 2)
    assert (refused.value.code, refused.value.params) == ("round.seats_exceeded", {"seats": 2})
