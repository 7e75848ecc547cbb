"""The catalogue of side bets (``catalogue/*.toml``): exact house edges pinned as fractions at 1, 6 and 8
decks, against closed forms and the published figures they reproduce, and an independent count."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from baccarat.analysis.analyze import analyze
from baccarat.analysis.composition import Composition, falling
from baccarat.analysis.punto import event_combinations
from baccarat.core.cards import RANKS, Card
from baccarat.core.coup import deal_coup
from baccarat.core.games import Game
from baccarat.core.rulesfile import read_rules

CATALOGUE = Path(__file__).resolve().parents[2] / "catalogue"


def game(code: str) -> Game:
    return read_rules(CATALOGUE / f"{code}.toml")


def edges(code: str, decks: int) -> dict[str, Fraction]:
    return {w.code: w.house_edge for w in analyze(game(code), Composition.full(decks)).wagers}


#: The exact house edges (regression pins; each is checked against a closed form or a published figure below).
PINNED = {
    "big-small": {
        1: {"big": "5147/113750", "small": "159/3185"},
        6: {"big": "451873/10377250", "small": "2187/41509"},
        8: {"big": "22999/529230", "small": "19571/370461"},
    },
    "pairs": {
        1: {"player_pair": "5/17", "banker_pair": "5/17", "either_pair": "6563/20825", "perfect_pair": "1"},
        6: {"player_pair": "35/311", "banker_pair": "35/311", "either_pair": "721753/4965115",
            "perfect_pair": "111700/993023"},
        8: {"player_pair": "43/415", "banker_pair": "43/415", "either_pair": "108091/788417",
            "perfect_pair": "111902/1689465"},
    },
    "super-6": {
        1: {"banker": "1057531/76344450", "super_6": "179344/587265"},
        6: {"banker": "716053792/49219825655", "super_6": "7042740825/23474070697"},
        8: {"banker": "284694798368/19524993263685", "super_6": "90046773893/300384511749"},
    },
    "tiger": {
        1: {"banker": "1057531/76344450", "tiger": "57249379/458066700", "big_tiger": "29981/183300"},
        6: {"banker": "716053792/49219825655", "tiger": "179041040663/1525814595305",
            "big_tiger": "33355425809/217973513615"},
        8: {"banker": "284694798368/19524993263685", "tiger": "253791785813/2169443695965",
            "big_tiger": "141819481097/929761583985"},
    },
}

#: Published house edges (percent, as printed; decks; source in the game's file and the README).
PUBLISHED = [
    ("pairs", "player_pair", 8, "10.361"),  # E. Jacobson
    ("pairs", "either_pair", 8, "13.71"),
    ("pairs", "perfect_pair", 8, "6.62"),  # Wizard of Odds, Perfect Pairs (version 2)
    ("super-6", "banker", 8, "1.4581"),  # E. Jacobson
    ("super-6", "super_6", 8, "29.98"),
    ("tiger", "banker", 8, "1.4581"),
    ("tiger", "tiger", 8, "11.70"),  # Wizard of Odds, Lucky 6 (liberal)
    ("tiger", "big_tiger", 8, "15.2533"),  # E. Jacobson
    ("big-small", "big", 8, "4.35"),
    ("big-small", "small", 8, "5.283"),  # Wizard of Odds, 4-5-6: return -0.05283 (8 decks)
    ("big-small", "small", 6, "5.2688"),  # Wizard of Odds, 4-5-6: return -0.052688 (6 decks)
    ("big-small", "big", 6, "4.354"),  # from the same table: P(5 or 6 cards) = 0.621075, 0.54 to 1
]


@pytest.mark.parametrize("code", sorted(PINNED))
@pytest.mark.parametrize("decks", [1, 6, 8])
def test_the_catalogue_s_edges_are_pinned_exactly(code: str, decks: int) -> None:
    found = edges(code, decks)
    assert {wager: str(found[wager]) for wager in PINNED[code][decks]} == PINNED[code][decks]


@pytest.mark.parametrize(("code", "wager", "decks", "percent"), PUBLISHED)
def test_the_catalogue_reproduces_published_house_edges(code: str, wager: str, decks: int, percent: str) -> None:
    # Within one unit of the published figure's last digit (published returns are rounded, and some
    # were computed from rounded probabilities).
    places = len(percent.split(".")[1])
    edge = Fraction(PINNED[code][decks][wager]) * 100
    assert abs(edge - Fraction(percent)) <= Fraction(1, 10**places), (code, wager, float(edge))


def _pair_closed_forms(decks: int) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """P(a hand's pair), P(both pairs), P(a hand's perfect pair), P(both perfect pairs), counted by hand."""
    n, per_rank = 52 * decks, 4 * decks
    four = falling(n, 4)
    pair = Fraction(per_rank - 1, n - 1)
    both = Fraction(13 * falling(per_rank, 4) + 13 * 12 * (per_rank * (per_rank - 1)) ** 2, four)
    perfect = Fraction(decks - 1, n - 1)
    both_perfect = Fraction(52 * falling(decks, 4) + 52 * 51 * (decks * (decks - 1)) ** 2, four)
    return pair, both, perfect, both_perfect


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_pair_wagers_match_closed_forms(decks: int) -> None:
    pair, both, perfect, both_perfect = _pair_closed_forms(decks)
    found = edges("pairs", decks)
    assert found["player_pair"] == found["banker_pair"] == 1 - 12 * pair
    assert found["either_pair"] == 1 - 6 * (2 * pair - both)
    one_perfect = 2 * perfect - 2 * both_perfect
    assert found["perfect_pair"] == 1 - 26 * one_perfect - 251 * both_perfect
    if decks == 8:
        assert pair == Fraction(31, 415)  # the figure: 7.47%


# A small shoe of real cards: every ordered six-card deal of it, dealt by the engine, counted by hand.
_SMALL = ("As", "Ah", "Kc", "Kd", "Qs", "5h", "4c", "9d")


@pytest.mark.slow
def test_wagers_on_ranks_match_a_full_enumeration_of_a_small_shoe() -> None:
    cards = [Card.parse(text) for text in _SMALL]
    pairs = game("pairs")
    rank_wagers = tuple(w for w in pairs.wagers if w.depends == "ranks")
    counted: dict[str, dict[str, int]] = {w.code: dict.fromkeys(w.paytable, 0) for w in pairs.wagers}
    for deal in itertools.permutations(cards, 6):
        coup = deal_coup(iter(deal).__next__)
        for wager in pairs.wagers:
            counted[wager.code][wager.event(coup)] += 1
    ranks = tuple(sum(1 for c in cards if c.rank == rank) for rank in RANKS)
    exact = event_combinations(pairs, Composition.by_rank(ranks), rank_wagers + pairs.wagers[:3])
    assert len(rank_wagers) == 3
    for wager in (*rank_wagers, *pairs.wagers[:3]):
        assert exact[wager.code] == counted[wager.code]
    assert sum(counted["player_pair"].values()) == falling(len(cards), 6)
    assert counted["player_pair"]["Player pair"] > 0 and counted["either_pair"]["A pair in either hand"] > 0


# --- published side bets on the cards themselves and on totals (issue 37, item 6) ---------------------------------

#: Published house edges (percent, as printed) of the catalogue's bets on the facts of the cards and on totals; each
#: file names its source.  (file, wager, decks, percent)
PUBLISHED_SIDE_BETS = [
    ("colour-match", "colour_match", 8, "13.7635"),  # E. Jacobson
    ("three-giving-eight", "three_giving_8", 8, "8.682"),  # Advanced Advantage Play (Wizard of Odds: 8.68%)
    ("three-giving-eight", "three_giving_8_180", 8, "17.77"),  # Wizard of Odds
    ("perfect-pairs-v1", "perfect_pairs", 8, "13.03"),  # Wizard of Odds
    ("perfect-pairs-v1", "perfect_pairs", 6, "17.07"),
    ("perfect-pairs-v1", "perfect_pairs_26", 8, "9.68"),
    ("perfect-pairs-v1", "perfect_pairs_26", 6, "13.88"),
    ("monkey", "monkey_6", 8, "23.14"),  # Wizard of Odds
    ("monkey", "monkey_6_tie", 8, "12.29"),
    ("monkey", "grand_monkey", 8, "19.86"),
    ("eights-and-nines", "eights_and_nines", 8, "7.372"),  # Advanced Advantage Play
    ("nine-over-seven", "nine_over_seven", 8, "8.103"),
    ("bad-beat", "bad_beat", 8, "8.459"),
    ("three-card-win", "player_3_card_win", 8, "5.69"),  # Wizard of Odds
    ("three-card-win", "banker_3_card_win", 8, "8.30"),
]
#: The same for bets whose exact count takes seconds (the first four cards known to the card, or every rank of six
#: cards): in the system tier.
PUBLISHED_SLOW = [
    ("majestic-match", "majestic_player", 8, "6.46"),  # Wizard of Odds
    ("majestic-match", "majestic_banker", 8, "6.46"),
    ("majestic-match", "majestic_player", 6, "6.67"),  # as blackjack's Royal Match, the same two cards
    ("majestic-match", "majestic_player", 1, "10.86"),
    ("lucky-match", "lucky_match", 8, "8.89"),  # Wizard of Odds
]
#: Published winning combinations (Wizard of Odds' tables, 8 decks, ordered six-card deals of 416 cards).
PUBLISHED_COUNTS = [
    ("three-giving-eight", "three_giving_8", "Banker 3 gives an 8", 22_708_577_366_016),
    ("monkey", "monkey_6", "Monkey 6", 295_533_789_192_192),
    ("monkey", "monkey_6_tie", "Monkey 6 on a tie", 29_035_119_366_144),
    ("monkey", "grand_monkey", "Six Monkeys", 667_474_778_880),
]
LUCKY_MATCH_COUNTS = {  # Wizard of Odds, Lucky Match, 8 decks
    "Five or six of a kind": 356_942_987_520, "Two threes of a kind": 616_417_689_600,
    "Four of a kind": 12_273_961_559_040, "Full house": 40_022_630_768_640,
    "Three of a kind": 207_858_985_697_280, "Two or three pairs": 385_294_498_430_976,
}


def _file(name: str) -> Game:
    return read_rules(CATALOGUE / f"{name}.toml")


def _edge(name: str, wager: str, decks: int) -> Fraction:
    chosen = _file(name)
    found = event_combinations(chosen, Composition.full(decks), (chosen.wager(wager),))[wager]
    pays = chosen.wager(wager).paytable
    return -sum((Fraction(n) * pays[event] for event, n in found.items()), Fraction(0)) / sum(found.values())


def _near(edge: Fraction, percent: str) -> bool:
    """Within one unit of the published figure's last digit."""
    return abs(edge * 100 - Fraction(percent)) <= Fraction(1, 10 ** len(percent.split(".")[1]))


@pytest.mark.parametrize(("name", "wager", "decks", "percent"), PUBLISHED_SIDE_BETS)
def test_the_catalogue_s_side_bets_reproduce_their_published_house_edges(name, wager, decks, percent):
    assert _near(_edge(name, wager, decks), percent), float(_edge(name, wager, decks))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "wager", "decks", "percent"), PUBLISHED_SLOW)
def test_the_catalogue_s_card_side_bets_reproduce_their_published_house_edges(name, wager, decks, percent):
    assert _near(_edge(name, wager, decks), percent), float(_edge(name, wager, decks))


@pytest.mark.parametrize(("name", "wager", "event", "count"), PUBLISHED_COUNTS)
def test_the_winning_deals_are_the_published_counts(name, wager, event, count):
    chosen = _file(name)
    assert event_combinations(chosen, Composition.full(8), (chosen.wager(wager),))[wager][event] == count


@pytest.mark.slow
def test_lucky_match_s_events_are_the_published_counts():
    chosen = _file("lucky-match")
    found = event_combinations(chosen, Composition.full(8), (chosen.wager("lucky_match"),))["lucky_match"]
    assert {event: found[event] for event in LUCKY_MATCH_COUNTS} == LUCKY_MATCH_COUNTS


def test_colour_match_is_its_closed_form_at_every_number_of_decks():
    for decks in (1, 2, 6, 8):
        reds = 26 * decks
        one_colour = Fraction(2 * falling(reds, 4), falling(2 * reds, 4))
        assert _edge("colour-match", "colour_match", decks) == 1 - 7 * one_colour
