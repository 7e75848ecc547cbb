"""The verifier's own reading of rules files (:mod:`baccarat.verify.definitions`) against the house's: the same
digest for every catalogue file, every fact the same on real coups, the same event and pay for every wager."""

from __future__ import annotations

import random
from dataclasses import asdict
from pathlib import Path

import pytest

from baccarat.core import cardfacts
from baccarat.core.cards import Card
from baccarat.core.coup import deal_coup
from baccarat.core.facts import FACTS, coup_facts
from baccarat.core.rulesfile import canonical, parse_rules
from baccarat.verify import definitions
from baccarat.verify.rules import DEFINED, WAGERS, Dealt

CATALOGUE = sorted((Path(__file__).parents[2] / "catalogue").glob("*.toml"))
RANKS, SUITS = "A23456789TJQK", "cdhs"


def _coups(n: int, seed: int = 37):
    """``n`` coups dealt from shuffled single decks, with their cards as the verifier writes them."""
    rng = random.Random(seed)
    deck = [Card.parse(r + s) for r in RANKS for s in SUITS]
    for _ in range(n):
        rng.shuffle(deck)
        coup = deal_coup(iter(deck).__next__)
        player = [str(c) for c in coup.player_cards]
        banker = [str(c) for c in coup.banker_cards]
        yield coup, {"player": player, "banker": banker}


def test_the_verifier_names_the_house_s_facts():
    assert set(definitions.FACT_NAMES) == set(FACTS) | set(cardfacts.CARD_FACTS)
    assert len(definitions.FACT_NAMES) == len(FACTS) + len(cardfacts.CARD_FACTS)


def test_every_fact_is_the_house_s_on_real_coups():
    names = list(cardfacts.CARD_FACTS)
    for coup, hands in _coups(800):  # each coup's 300-odd facts, twice
        assert definitions.facts(hands) == {**asdict(coup_facts(coup)), **cardfacts.facts_of_coup(coup, names)}, hands


@pytest.mark.parametrize("path", CATALOGUE, ids=[p.stem for p in CATALOGUE])
def test_a_catalogue_file_has_the_house_s_digest_and_each_wager_settles_as_the_house_does(path: Path):
    text = path.read_text(encoding="utf-8")
    assert definitions.digest(text) == canonical(text)[1]
    code, key = definitions.read(text)
    assert DEFINED[canonical(text)[1]] == key
    game = parse_rules(text)
    assert code == game.code
    if game.kind == "lucky_draw":
        assert key == f"lucky-draw/{game.paytable}"
        return
    assert set(WAGERS[key]) == {wager.code for wager in game.wagers}
    for coup, hands in _coups(600, seed=len(text)):
        dealt = Dealt([], hands)
        for wager in game.wagers:
            classify, pays = WAGERS[key][wager.code]
            event = classify(dealt, "")
            assert event == wager.classify(coup), (wager.code, hands)
            assert pays[event] == wager.paytable[event]


@pytest.mark.parametrize(("text", "why"), [
    ("[game\n", "not TOML"),
    ('[game]\ncode = "x"\nprocedure = "craps"\n', "procedure 'craps'"),
    ('[game]\ncode = "x"\nprocedure = "punto_banco"\n[[wagers]]\ncode = "w"\nevents = [{ event = "A", '
     'when = { moon = "full" }, pays = "1" }, { event = "B", pays = "lose" }]\n', "moon"),
    ('[game]\ncode = "x"\nprocedure = "punto_banco"\n[[wagers]]\ncode = "w"\nevents = [{ event = "A", '
     'pays = "lots" }]\n', "not net odds"),
    ('[game]\ncode = "x"\nprocedure = "punto_banco"\n[[wagers]]\ncode = "w"\nevents = [{ event = "A", '
     'when = { winner = "tie" }, pays = "8" }]\n', "the last event has a condition"),
])
def test_a_definition_the_verifier_cannot_read_says_why(text: str, why: str):
    with pytest.raises(definitions.DefinitionError, match=why):
        definitions.read(text)
