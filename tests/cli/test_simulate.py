"""``baccarat simulate`` of a game with struck cards: the strikes drawn with the shoes, the exact value beside."""

from __future__ import annotations

import json
from pathlib import Path

from baccarat.cli.app import main
from baccarat.core.registry import unregister

LIGHTNING = str(Path(__file__).parents[2] / "catalogue" / "lightning.toml")


def test_a_game_with_struck_cards_is_simulated_with_its_strikes_beside_the_exact_returns(capsys):
    try:
        assert main(["simulate", "lightning", "--rules", LIGHTNING, "--shoes", "60", "--seed", "5", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert set(doc["wagers"]) == {"player", "banker", "tie"}
        player = doc["wagers"]["player"]
        assert player["coups"] > 60 * 70 and player["fee"] == 0.2
        assert abs(player["mean"] - player["exact_mean"]) < 5 * player["standard_error"]
        assert f"{player['exact_return_to_player']:.4%}" == "98.7333%"
        assert main(["simulate", "lightning", "--rules", LIGHTNING, "--shoes", "5", "--workers", "2"]) == 2
        assert "simulated in one process" in capsys.readouterr().err
    finally:
        unregister("lightning")
