"""Hypothesis properties: money is conserved, the ledger balances, cards are accounted for,
replaying the events rebuilds the table, and the same seed and script give the same transcript."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.cli.script import RoundOrder
from baccarat.cli.session import Session
from baccarat.core.events import CardDealt, RoundEnded
from baccarat.core.ledger import balances, ledger, postings
from baccarat.core.registry import EZ, LUCKY_DRAW, LUCKY_DRAW_2, MINI
from baccarat.core.shoe import seeded_rng
from baccarat.core.table import Phase, Table

GAMES = [MINI, EZ, LUCKY_DRAW, LUCKY_DRAW_2]
AMOUNTS = st.sampled_from([0, -100, 99, 100, 250, 1000, 2500, 2501, 12_345, 50_000, 10**9])


@st.composite
def seat_orders(draw: st.DrawFn, game_index: int) -> dict[int, tuple[dict[str, int], str]]:
    """Bets (some invalid on purpose) and a Lucky Draw decision for a few seats."""
    game = GAMES[game_index]
    orders = {}
    for seat in draw(st.lists(st.integers(1, 7), max_size=4, unique=True)):
        codes = draw(st.lists(st.sampled_from(game.betting_codes), min_size=1, max_size=4, unique=True))
        orders[seat] = ({code: draw(AMOUNTS) for code in codes}, draw(st.sampled_from(["draw", "stand"])))
    return orders


@st.composite
def sessions(draw: st.DrawFn) -> tuple[int, int, list[dict[int, tuple[dict[str, int], str]]]]:
    game_index = draw(st.integers(0, len(GAMES) - 1))
    seed = draw(st.integers(0, 2**32))
    rounds = draw(st.lists(seat_orders(game_index), min_size=1, max_size=12))
    return game_index, seed, rounds


def run(game_index: int, seed: int, rounds: list[dict[int, tuple[dict[str, int], str]]]) -> Table:
    table = Table(GAMES[game_index], rng=seeded_rng(seed), decks=1, cut_card=14)
    for seat in range(1, 8):
        table.sit(seat, f"p{seat}", 20_000)
    for orders in rounds:
        table.open_betting()
        for seat, (bets, _) in orders.items():
            if table.can_place_bets(seat, bets):
                table.place_bets(seat, bets)
        table.close_betting()
        table.deal()
        while table.seat_to_act is not None:
            seat = table.seat_to_act
            action = orders[seat][1]
            table.decide(seat, action if table.can_decide(seat, action) else "stand")
        assert table.phase is Phase.IDLE
    return table


@given(sessions())
@pytest.mark.slow
def test_money_is_conserved_every_round(case: tuple[int, int, list[dict[int, tuple[dict[str, int], str]]]]) -> None:
    table = run(*case)
    assert sum(seat.balance for seat in table.seats.values()) + table.house == 7 * 20_000


@given(sessions())
@pytest.mark.slow
def test_every_rounds_ledger_postings_sum_to_zero_and_nothing_stays_in_play(
    case: tuple[int, int, list[dict[int, tuple[dict[str, int], str]]]]
) -> None:
    table = run(*case)
    by_round: dict[int, int] = {}
    for event in table.events:
        for posting in postings(event):
            by_round[posting.round_no] = by_round.get(posting.round_no, 0) + posting.amount
        if isinstance(event, RoundEnded):
            assert balances(ledger(table.events[: table.events.index(event) + 1])).get("in_play", 0) == 0
    assert set(by_round.values()) <= {0}
    totals = balances(ledger(table.events))
    assert totals.get("house", 0) == table.house
    assert all(totals[f"wallet:{s}"] == table.seats[s].balance for s in table.seats)


@given(sessions())
@pytest.mark.slow
def test_cards_dealt_plus_cards_left_equal_the_shoe(
    case: tuple[int, int, list[dict[int, tuple[dict[str, int], str]]]]
) -> None:
    table = run(*case)
    if table.shoe is not None:
        since_shuffle = 0
        for event in reversed(table.events):
            if type(event).__name__ == "ShoeStarted":
                break
            since_shuffle += isinstance(event, CardDealt)
        assert table.shoe.dealt == len(table.shoe.burned) + since_shuffle
        assert table.shoe.dealt + table.shoe.remaining == len(table.shoe.cards) == 52


@given(sessions())
@pytest.mark.slow
def test_replaying_the_events_rebuilds_the_table(
    case: tuple[int, int, list[dict[int, tuple[dict[str, int], str]]]]
) -> None:
    live = run(*case)
    replayed = Table.replay(GAMES[case[0]], live.events)
    assert replayed.snapshot() == live.snapshot()
    assert replayed.events == live.events


@given(st.sampled_from(["mini", "ez", "lucky-draw"]), st.integers(0, 10**6),
       st.lists(st.tuples(st.sampled_from(["player", "banker", "tie", "enter", "block_bonus", "panda_8"]),
                          st.integers(-5, 3000), st.sampled_from([None, "draw", "stand"])), max_size=15))
@pytest.mark.slow
def test_same_seed_and_script_give_the_same_transcript(
    game: str, seed: int, lines: list[tuple[str, int, str | None]]
) -> None:
    from baccarat.core.registry import get_game

    def play() -> dict[str, object]:
        session = Session(get_game(game), bankroll=100_000, seed=seed)
        for code, amount, decision in lines:
            bets = {code: amount}
            if code == "block_bonus":
                bets["enter"] = 500
            session.play(RoundOrder(bets, decision))  # type: ignore[arg-type]
        return session.transcript()

    first, second = play(), play()
    assert first == second
    rejected = [r for r in first["rounds"] if "rejected" in r]  # type: ignore[union-attr]
    assert all(set(r) >= {"rejected", "balance"} for r in rejected)
