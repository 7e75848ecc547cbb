"""The guard: for random real coups, every wager's event on the real coup is the event the analysis
and the simulation give it (through the coup key, and the card pattern for wagers on ranks and suits);
and a wager the analysis by point values cannot price is refused, never priced wrong."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.analysis import cards, punto
from baccarat.analysis.analyze import analyze
from baccarat.analysis.batch import BatchEvaluator
from baccarat.analysis.composition import Composition
from baccarat.analysis.keys import coup_table
from baccarat.analysis.patterns import PATTERNS, coup_events
from baccarat.analysis.punto import reads_values_only, unpriceable
from baccarat.core.cards import RANKS, SUITS, Card
from baccarat.core.coup import Coup, deal_coup
from baccarat.core.errors import ConfigurationError
from baccarat.core.facts import facts_from, pattern_of
from baccarat.core.games import LOSE, Game, TableLimits, Wager
from baccarat.core.registry import EZ, MINI, all_games, built_in, register, unregister
from baccarat.core.rulesfile import read_rules

from ..conftest import examples

CATALOGUE = Path(__file__).resolve().parents[2] / "catalogue"
GAMES = [MINI, EZ, *(read_rules(path) for path in sorted(CATALOGUE.glob("*.toml")) if "lucky" not in path.name)]
DECK = [Card(rank, suit) for rank in RANKS for suit in SUITS]
#: Each distinct wager once (the catalogue's files repeat the same Player, Banker and Tie): (game, wager).
DISTINCT = list({(w.declared or (g.code, w.code)): (g, w) for g in GAMES for w in g.wagers}.values())
#: Each declared wager's events by (coup of the coup table, pattern), as the simulation's tables have them.
EVENTS = {(g.code, w.code): coup_events(w.rule, list(w.paytable)) for g in GAMES for w in g.wagers if w.rule}


def _key(coup: Coup) -> int:
    """The coup key (player total, banker total, fifth, sixth) as the kernels compute it."""
    values = [card.value for _, card in coup.deal_order] + [0, 0]
    pt, bt = (values[0] + values[2]) % 10, (values[1] + values[3]) % 10
    return ((pt * 10 + bt) * 10 + values[4]) * 10 + values[5]


# Six cards from a two-deck shoe (so identical cards, hence perfect pairs, can occur), biased towards
# pairs: half the time the second card of a hand repeats its first card's rank.
@st.composite
def coups(draw: st.DrawFn) -> Coup:
    cards = [draw(st.sampled_from(DECK)) for _ in range(6)]
    for first, second in ((0, 2), (1, 3)):
        if draw(st.booleans()):
            cards[second] = Card(cards[first].rank, draw(st.sampled_from(SUITS)))
    return deal_coup(iter(cards).__next__)


@settings(max_examples=examples(300), deadline=None)
@given(coups())
def test_every_wager_s_event_on_a_real_coup_is_the_analysis_s_event(coup: Coup) -> None:
    table = coup_table()
    stands_for = table.coups[table.index.ravel()[_key(coup)]]  # what the analysis prices this coup as
    pattern = PATTERNS.index(pattern_of(coup))
    for game, wager in DISTINCT:
        if wager.depends == "cards":
            continue  # the next test, many coups at once
        events = list(wager.paytable)
        real = wager.event(coup)
        if wager.rule is not None:
            assert wager.rule(facts_from(stands_for, pattern_of(coup))) == real, (game.code, wager.code)
            assert events[EVENTS[(game.code, wager.code)][table.index.ravel()[_key(coup)], pattern]] == real
        else:
            assert wager.depends == "values"
            assert wager.event(stands_for) == real, (game.code, wager.code)


def test_every_wager_on_the_cards_has_on_real_coups_the_event_the_analysis_gives_it() -> None:
    """For the catalogue's wagers on the cards themselves: the analysis's event of a coup (the point-value facts of
    its key, the facts of its cards by the analysis's interpreter, :mod:`baccarat.analysis.cards`) against the
    table's (the one-coup interpreter), for 1,500 coups of two decks at once."""
    rng = random.Random(17)
    coups = [deal_coup(iter(rng.sample(DECK * 2, 6)).__next__) for _ in range(1500)]
    keys = np.array([_key(coup) for coup in coups], dtype=np.int64)
    held = cards.cards_of(coups)
    checked = 0
    for game in GAMES:
        for wager in game.wagers:
            if wager.depends != "cards":
                continue
            assert wager.declared is not None
            value_names, card_names = cards.read_facts(wager.declared)
            facts = {**cards.value_facts(value_names, keys), **cards.compute(held, card_names)}
            found = cards.events_of(wager.declared, facts, len(coups))
            names = [event for event, _ in wager.declared]
            assert [names[i] for i in found] == [wager.event(coup) for coup in coups], (game.code, wager.code)
            checked += 1
    assert checked >= 8  # Colour Match, 3 Giving 8 (two), Majestic Match (two), Lucky Match, Monkey 6, Grand Monkey...


def _player_pair_in_code() -> Wager[Any]:
    """The issue's Player Pair, written as code that reads ranks while saying it reads point values."""
    def classify(coup: Coup) -> str:
        first, second = coup.player_cards[:2]
        return "Pair" if first.rank == second.rank else "No pair"

    return Wager("player_pair", "Player Pair", classify, {"Pair": 11, "No pair": LOSE})


def _with_code_pair() -> Game:
    return Game("pair-in-code", "Pairs in code", "punto_banco", (*MINI.wagers[:3], _player_pair_in_code()),
                TableLimits(100, {"player": 1000, "banker": 1000, "tie": 1000, "player_pair": 1000}))


def test_a_wager_that_reads_ranks_in_code_is_refused_not_priced_wrong() -> None:
    game = _with_code_pair()
    why = unpriceable(game.wager("player_pair"))
    assert why is not None and "ranks or suits" in why
    result = analyze(game, Composition.full(8))
    assert [w.code for w in result.wagers] == ["player", "banker", "tie"]
    assert "player_pair" in result.skipped and "declare it" in result.skipped["player_pair"]
    assert BatchEvaluator(game).refused.keys() == {"player_pair"}
    register(game)
    try:
        from baccarat.sim.outcome_tables import punto_banco_tables

        with pytest.raises(ConfigurationError, match="Player Pair cannot be simulated"):
            punto_banco_tables.__wrapped__("pair-in-code")
    finally:
        unregister("pair-in-code")


BUILT_IN = [g for g in all_games() if built_in(g.code) and g.kind == "punto_banco"]


@pytest.mark.parametrize("game", BUILT_IN, ids=[g.code for g in BUILT_IN])
def test_every_built_in_wager_said_to_read_point_values_reads_them_only(game: Game) -> None:
    """The check the analysis no longer runs for the built-in games (issue 17): their wagers are the
    package's own code, so it is made here, once, and a built-in wager written as code that reads
    ranks or suits while it says it reads point values fails this test."""
    checked = [w for w in game.wagers if w.depends == "values" and w.rule is None]
    assert checked
    for wager in checked:
        assert reads_values_only(wager), f"{game.code}: {wager.code} reads ranks or suits; declare it on facts"


def test_a_built_in_game_s_wagers_are_not_checked_again_but_any_other_game_s_are(monkeypatch: Any) -> None:
    asked: list[str] = []

    def reads(wager: Wager[Any]) -> bool:
        asked.append(wager.code)
        return True

    monkeypatch.setattr(punto, "reads_values_only", reads)
    assert all(unpriceable(w, game=MINI) is None for w in MINI.wagers) and asked == []
    copy = Game("mini-copy", "A copy", "punto_banco", MINI.wagers, MINI.limits)  # not the registry's
    assert all(unpriceable(w, game=copy) is None for w in copy.wagers)
    assert asked == [w.code for w in MINI.wagers]
    asked.clear()
    assert unpriceable(_player_pair_in_code(), game=MINI) is None and asked == ["player_pair"]  # not MINI's


def test_the_same_wager_declared_on_facts_is_priced_exactly() -> None:
    pairs = read_rules(CATALOGUE / "pairs.toml")
    result = {w.code: w for w in analyze(pairs, Composition.full(8)).wagers}
    pair = result["player_pair"]
    assert str(pair.probability(pair.lines[0])) == "31/415"
    assert str(pair.house_edge) == "43/415"


def test_a_partly_dealt_shoe_by_value_skips_pair_wagers_with_the_reason() -> None:
    pairs = read_rules(CATALOGUE / "pairs.toml")
    shoe = Composition.parse("31,32,32,32,32,32,32,32,32,128")
    result = analyze(pairs, shoe)
    assert {w.code for w in result.wagers} == {"player", "banker", "tie"}
    assert "shoe by rank" in result.skipped["player_pair"]
    by_rank = Composition.parse("31,32,32,32,32,32,32,32,32,32,32,32,32")
    result = analyze(pairs, by_rank)
    assert "player_pair" in {w.code for w in result.wagers}
    assert "full decks" in result.skipped["perfect_pair"]


def test_the_simulation_deals_pairs_as_real_cards_count_them() -> None:
    """The card kernel's pattern bits agree with :func:`baccarat.core.facts.pattern_of` on real cards."""
    from baccarat.sim.outcome_tables import _punto_banco_arrays, card_kinds

    rank_of, suit_of = card_kinds()
    arrays = _punto_banco_arrays(read_rules(CATALOGUE / "pairs.toml"))
    bits = arrays["pattern_index"]
    rng = np.random.default_rng(5)
    for _ in range(300):
        kinds = rng.integers(0, 52, size=6)
        cards = [DECK[rank_of[k] * 4 + suit_of[k]] for k in kinds]
        coup = deal_coup(iter(cards).__next__)
        p1, b1, p2, b2 = kinds[:4]
        pp, bp = int(rank_of[p1] == rank_of[p2]), int(rank_of[b1] == rank_of[b2])
        twin = int(pp and bp and rank_of[p1] == rank_of[b1])
        suited = int(suit_of[p1] == suit_of[p2]) * 2 + int(suit_of[b1] == suit_of[b2])
        index = bits[pp * 16 + bp * 8 + twin * 4 + suited]
        assert PATTERNS[index] == pattern_of(coup)


@pytest.mark.parametrize("reads", [
    lambda coup: coup.player_cards[0].rank == coup.player_cards[1].rank == "A",  # a pair of Aces only
    lambda coup: coup.banker_cards[0].suit == coup.banker_cards[1].suit,  # a suited Banker hand
    lambda coup: coup.player_cards[0].rank == "K",  # a King, not any ten-value card
])
def test_other_wagers_that_read_cards_in_code_are_refused(reads: Any) -> None:
    wager = Wager("side", "Side", lambda coup: "Yes" if reads(coup) else "No", {"Yes": 10, "No": LOSE})
    assert unpriceable(wager) is not None


def test_the_card_kernel_compiled_ahead_of_time_deals_exactly_like_the_jit_and_the_value_kernel() -> None:
    """The kernel that deals real cards: the same shoes as numba's JIT to the bit, and (on the wagers on
    point values) the same results as the kernel that deals point values only."""
    from baccarat.sim import kernels
    from baccarat.sim.compiled import kernels as loaded
    from baccarat.sim.outcome_tables import _punto_banco_arrays, card_kinds, shoe_tables
    from baccarat.sim.run import chunk_state

    shoe = shoe_tables(6)
    rank_of, suit_of = card_kinds()
    cards = _punto_banco_arrays(read_rules(CATALOGUE / "pairs.toml"))
    pays = np.ascontiguousarray(cards["pays"].T)
    arguments = (shoe.deck, shoe.value_of, rank_of, suit_of, cards["pattern_index"], shoe.burn, 30,
                 cards["player_draws"], cards["banker_draws"], cards["natural"], pays)
    jit = kernels.punto_banco_cards_chunk(400, chunk_state(9, 4), *arguments)
    chosen = loaded()
    if chosen.ahead_of_time:
        ahead = chosen.punto_banco_cards_chunk(400, chunk_state(9, 4), *arguments)
        assert all(np.array_equal(a, b) for a, b in zip(ahead, jit, strict=True))
    histogram, sums = jit
    assert histogram.sum() == sums[-1, 0] and sums[-1, 2] == 400  # every hand counted, 400 shoes
    patterns = len(PATTERNS)
    by_key = histogram.reshape(10_000, patterns).sum(axis=1)
    # The value kernel shuffles the point values with the same draws: same coups, same key counts.
    values = kernels.punto_banco_chunk(400, chunk_state(9, 4), shoe.deck_values, shoe.burn, 30,
                                       cards["player_draws"], cards["banker_draws"], cards["natural"],
                                       np.ascontiguousarray(pays.reshape(10_000, patterns, -1)[:, 0, :3]))
    assert np.array_equal(values[0], by_key)
    assert np.allclose(values[1][:3], sums[:3])  # Player, Banker, Tie: the same sums
