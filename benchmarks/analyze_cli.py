"""Speed of the whole exact analysis: ``baccarat analyze`` for mini, ez and lucky-draw at 8 decks,
as three command-line runs including start-up (goal: 1 s or less in total on a 2-core machine).

Baseline, in the same run: a plain enumeration of the 8-deck punto banco coups through the
engine's ``deal_coup`` (the independent check in ``tests/test_enumeration.py``), compared in-process
with the analyzer doing the same job (every mini-baccarat wager, caches cleared each time).

    python benchmarks/analyze_cli.py [--repeats 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.test_enumeration

GAMES = ("mini", "ez", "lucky-draw")


def _command() -> list[str]:
    found = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "baccarat.cli"]


def time_cli(repeats: int) -> dict[str, list[float]]:
    """Wall time of each game's run, ``repeats`` times (round robin, so noise hits all alike)."""
    times: dict[str, list[float]] = {game: [] for game in GAMES}
    command = _command()
    for _ in range(repeats):
        for game in GAMES:
            start = time.perf_counter()
            subprocess.run([*command, "analyze", game, "--decks", "8"], check=True, stdout=subprocess.DEVNULL)
            times[game].append(time.perf_counter() - start)
    return times


def time_in_process(repeats: int) -> tuple[list[float], list[float]]:
    """Every 8-deck mini-baccarat wager: (analyzer times, plain enumeration times), no start-up counted."""
    from tests import test_enumeration

    from baccarat.analysis.composition import Composition
    from baccarat.analysis.punto import coup_table, event_combinations
    from baccarat.presets import MINI

    ours, baseline = [], []
    for _ in range(repeats):
        coup_table.cache_clear()
        start = time.perf_counter()
        event_combinations(MINI, Composition.full(8))
        ours.append(time.perf_counter() - start)
        test_enumeration.shoe_coup_weights.cache_clear()
        start = time.perf_counter()
        test_enumeration.event_counts(MINI, 8)
        baseline.append(time.perf_counter() - start)
    return ours, baseline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    cli = time_cli(args.repeats)
    ours, baseline = time_in_process(args.repeats)
    medians = {game: statistics.median(t) for game, t in cli.items()}
    total = sum(medians.values())
    mine, base = statistics.median(ours), statistics.median(baseline)
    for game, median in medians.items():
        print(f"baccarat analyze {game:<10} median {median:.3f} s over {args.repeats} runs")
    print(f"all three, including start-up: {total:.3f} s (goal: 1 s or less)")
    print(f"in-process, every mini wager at 8 decks: analyzer {mine * 1000:.1f} ms, "
          f"plain enumeration {base * 1000:.1f} ms, ratio {base / mine:.1f}x")
    if args.json:
        args.json.write_text(json.dumps({"cli_medians_s": medians, "cli_total_s": total, "analyzer_s": mine,
                                         "baseline_s": base, "speedup": base / mine, "repeats": args.repeats},
                                        indent=2) + "\n")


if __name__ == "__main__":
    main()
