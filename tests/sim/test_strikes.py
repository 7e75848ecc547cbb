"""Simulating struck cards (sim/strikes.py): whole shoes and drawn strikes agree with the exact returns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from baccarat.analysis.multipliers import multiplied_returns
from baccarat.core.errors import ConfigurationError
from baccarat.core.registry import unregister
from baccarat.core.rulesfile import load_rules
from baccarat.core.strikes import Multipliers
from baccarat.sim.strikes import simulate, struck_factors

LIGHTNING = Path(__file__).parents[2] / "catalogue" / "lightning.toml"


@pytest.fixture
def lightning() -> Iterator[str]:
    game = load_rules(LIGHTNING)
    yield game.code
    unregister(game.code)


def test_struck_factors_multiply_the_hand_s_struck_cards_as_often_as_the_tables_say() -> None:
    feature = Multipliers(("player",), ((10, 1),), ((2, 1),), cap=4)  # ten cards struck at 2x, at most 4x
    rng = np.random.default_rng(1)
    n = 20_000
    one = struck_factors(feature, np.array([[17, -1, -1]] * n), rng)
    assert set(one.tolist()) == {1, 2}
    p = 10 / 52  # the card is among the ten struck
    assert abs((one == 2).mean() - p) < 5 * (p * (1 - p) / n) ** 0.5
    assert struck_factors(feature, np.array([[-1, -1, -1]] * 100), rng).tolist() == [1] * 100
    held_thrice = struck_factors(feature, np.array([[3, 3, 3]] * 1000), rng)  # 8x, capped at 4x
    assert set(held_thrice.tolist()) == {1, 4}


def test_a_game_without_struck_cards_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="strikes no cards"):
        simulate("mini", 1)


@pytest.mark.slow
def test_ten_million_rounds_agree_with_the_exact_returns_within_3_standard_errors(lightning: str) -> None:
    exact = multiplied_returns(load_rules(LIGHTNING), 8)
    shoes = 123_000  # 81.3 coups a shoe: just over 10^7 rounds
    measured = simulate(lightning, shoes, seed=37)
    for code, found in measured.items():
        assert found.coups >= 10_000_000
        z = (found.mean - float(exact[code].expected_value)) / found.standard_error
        assert abs(z) < 3, (code, found.mean, float(exact[code].expected_value), found.standard_error)
        assert found.standard_error < {"player": 0.0007, "banker": 0.0006, "tie": 0.004}[code]  # the test can tell


def test_a_counting_study_of_a_multiplied_wager_is_refused(lightning: str) -> None:
    from baccarat.sim.counting import CountPlan

    with pytest.raises(ConfigurationError, match="multiplied by struck cards or charged a fee"):
        CountPlan(lightning, "player", (0,) * 10, 1.0, 10, 1)
