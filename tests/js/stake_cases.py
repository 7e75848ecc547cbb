"""The cases the page's stake rule is tested on (``tests/js/betting.test.js``), answered by the server's own.

Each case is a game's wagers as a table view sends them, the table's limits, the chips on the layout, new chips,
the player's own limits and the balance shown; its answer is what :func:`baccarat.core.stakes.check_stakes` says:
the stakes after, or the refusal's code and parameters.  The page's ``table/betting.js`` must give the same answer
to every case, so the two copies of the rule cannot drift::

    python tests/js/stake_cases.py           # write tests/js/cases/stakes.json again (after changing the rule)
    python tests/js/stake_cases.py --check   # exit 1 when the file is not what the rule answers now

``tests/server/test_stake_cases.py`` runs the check in the fast tier.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from baccarat.core.errors import BaccaratError
from baccarat.core.games import Game, TableLimits
from baccarat.core.registry import EZ, LUCKY_DRAW, MINI
from baccarat.core.rulesfile import read_rules
from baccarat.core.stakes import OwnLimit, check_stakes
from baccarat.server.playing.game_info import limits_json, wagers_json

ROOT = Path(__file__).resolve().parents[2]
PATH = Path(__file__).parent / "cases" / "stakes.json"
COMMAND = "python tests/js/stake_cases.py"

#: Amounts the cases draw from: the chips, odd cents, the edges of the limits, nonsense (the page sends only
#: whole positive amounts, but its rule must refuse the rest the same way).
AMOUNTS = (100, 500, 2_500, 10_000, 50_000, 99, 999, 250_000, 500_000, 1_000_000)
ODD = (0, -100, 10**14, 10**14 + 1, 12.5, 1)


def _games() -> list[tuple[Game, TableLimits]]:
    """The built-in games and a rules file with a fee (the catalogue's Lightning Baccarat), with their limits and
    a lower table's."""
    lightning = read_rules(ROOT / "catalogue" / "lightning.toml")  # not registered: no other test sees it
    games = [MINI, EZ, LUCKY_DRAW, lightning]
    low = [TableLimits(minimum=500, maximums={code: 20_000 for code in g.betting_codes}) for g in games]
    return [(g, g.limits) for g in games] + list(zip(games, low, strict=True))


def _answer(game: Game, limits: TableLimits, placed: dict[str, int], bets: dict[str, Any],
            own: list[OwnLimit], balance: int | None) -> dict[str, Any]:
    try:
        return {"stakes": check_stakes(game, limits, placed, bets, own_limits=own, balance=balance)}
    except BaccaratError as error:
        return {"refusal": {"code": error.code, "params": error.params}}


def _amount(rng: random.Random, limits: TableLimits) -> Any:
    """A stake: mostly chips and the limits' edges, now and then nonsense."""
    if rng.random() < 0.12:
        return rng.choice(ODD)
    return rng.choice((*AMOUNTS, limits.minimum, limits.minimum - 1, *limits.maximums.values()))


def cases(count: int = 1500) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The games (their wagers as the table view sends them, by name) and ``count`` cases drawn with a fixed seed,
    each answered by the server's rule."""
    rng = random.Random(20261129)
    games = _games()
    wagers = {game.code: _wagers(game) for game, _ in games}
    found = []
    for _ in range(count):
        game, limits = rng.choice(games)
        betting = list(game.betting_codes)
        placed = {code: _amount(rng, limits) for code in rng.sample(betting, rng.randint(0, 2))}
        placed = {code: amount for code, amount in placed.items() if isinstance(amount, int) and amount > 0}
        spots = betting + [w.code for w in game.wagers if w.placed != "betting"] * (rng.random() < 0.1) \
            + ["nonsense"] * (rng.random() < 0.04)
        bets = {code: _amount(rng, limits) for code in rng.sample(spots, min(len(spots), rng.randint(1, 3)))}
        if rng.random() < 0.02:
            bets = {}
        own = [OwnLimit(kind=rng.choice(("stake", "loss")), period=rng.choice(("day", "week")),
                        amount=rng.choice((5_000, 20_000, 100_000)), used=rng.choice((0, 4_000, 19_000, 20_000)))
               for _ in range(rng.choice((0, 0, 0, 1, 2)))]
        balance = rng.choice((None, 0, 1_000, 30_000, 200_000, 10**9))
        found.append({"game": game.code, "limits": limits_json(limits), "placed": placed, "bets": bets,
                      "own_limits": [vars(limit) for limit in own], "balance": balance,
                      "answer": _answer(game, limits, placed, bets, own, balance)})
    return wagers, found


def _wagers(game: Game) -> list[dict[str, Any]]:
    """A game's wagers as a table view sends them (a rules file's: what the stake rule reads of them)."""
    if game.code in ("mini", "ez", "lucky-draw"):
        return list(wagers_json(game.code, None, None))
    return _rules_wagers(game, game.limits)


def _rules_wagers(game: Game, limits: TableLimits) -> list[dict[str, Any]]:
    """A rules file's wagers as the page reads them (only what the stake rule needs: code, placed, requires,
    fee)."""
    return [{"code": w.code, "placed": w.placed, "requires": w.requires, "fee": str(w.fee) if w.fee else None,
             "maximum": limits.maximum(w.code)} for w in game.wagers]


def source() -> str:
    """The file's text."""
    games, found = cases()
    lines = ",\n".join(json.dumps(case) for case in found)  # a case a line (in the order the rule reads the spots)
    return (f'{{"generated_by": {json.dumps(COMMAND)},\n"games": {json.dumps(games, sort_keys=True)},\n'
            f'"cases": [\n{lines}\n]}}\n')


def main(argv: list[str]) -> int:
    """Write the file, or with ``--check`` say whether it is current; the exit status."""
    wanted = source()
    if argv == ["--check"]:
        if not PATH.exists() or PATH.read_text(encoding="utf-8") != wanted:
            print(f"{PATH} is out of date: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(wanted, encoding="utf-8")
    print(f"wrote {len(json.loads(wanted)['cases'])} cases to {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
