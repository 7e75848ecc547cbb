"""Simulation speed: EZ Baccarat with all five wagers, full 8-deck shoes with shuffle, burn and cut card.

Goals (2-core machine): at least 10 million hands per second with one worker, measured as the
whole ``baccarat simulate`` process for a few hundred thousand shoes, and at least 1.8x that with
two workers.  Baseline, in the same run: the pure-Python engine (``Shoe`` + ``deal_coup`` +
settlement of the five wagers) dealing shoes one coup at a time.  The simulated means are also
compared with the exact values (in standard errors).

    python benchmarks/simulate.py [--shoes 300000] [--repeats 3] [--json out.json]
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

from baccarat.coup import deal_coup
from baccarat.games import settle
from baccarat.presets import EZ
from baccarat.shoe import Shoe, seeded_rng


def _command() -> list[str]:
    found = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "baccarat.cli"]


def time_process(shoes: int, workers: int, seed: int) -> tuple[float, dict]:  # type: ignore[type-arg]
    start = time.perf_counter()
    done = subprocess.run([*_command(), "simulate", "ez", "--shoes", str(shoes), "--seed", str(seed),
                           "--workers", str(workers), "--json"], check=True, capture_output=True, text=True)
    return time.perf_counter() - start, json.loads(done.stdout)


def run_phase_rates(shoes: int, repeats: int) -> dict[int, float]:
    """Hands per second of the dealing itself (``run``), in-process, for 1 and 2 workers: median of ``repeats``."""
    from baccarat.sim.run import Plan, run

    rates: dict[int, list[float]] = {1: [], 2: []}
    run(Plan("ez", 10, 0))  # load the kernel
    for repeat in range(repeats):
        for workers in (1, 2):
            plan = Plan("ez", shoes, 100 + repeat)
            start = time.perf_counter()
            _, sums = run(plan, workers=workers)
            rates[workers].append(sums[-1, 0] / (time.perf_counter() - start))
    return {workers: statistics.median(r) for workers, r in rates.items()}


def baseline_rate(shoes: int) -> float:
    """Hands per second of the pure-Python engine dealing and settling whole shoes."""
    rng = seeded_rng(1)
    hands = 0
    start = time.perf_counter()
    for _ in range(shoes):
        shoe = Shoe.shuffled(decks=8, rng=rng)
        while not shoe.finished and shoe.can_start_coup(6):
            shoe.start_coup(6)
            coup = deal_coup(shoe.draw)
            shoe.end_coup()
            for wager in EZ.wagers:
                settle(wager, coup, 100)
            hands += 1
    return hands / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    time_process(2000, 1, 0)  # compile or load numba's cache once, outside the timings
    rates: dict[int, list[float]] = {1: [], 2: []}
    last: dict = {}  # type: ignore[type-arg]
    for repeat in range(args.repeats):
        for workers in (1, 2):
            seconds, doc = time_process(args.shoes, workers, repeat)
            rates[workers].append(doc["hands"] / seconds)
            last = doc
    base = baseline_rate(50)
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    phase = run_phase_rates(args.shoes, args.repeats)
    print(f"EZ, 5 wagers, {args.shoes:,} shoes per run, median of {args.repeats}:")
    print(f"  whole process, 1 worker : {one / 1e6:6.2f} million hands/s (goal 10)")
    print(f"  whole process, 2 workers: {two / 1e6:6.2f} million hands/s ({two / one:.2f}x one worker)")
    print(f"  dealing only (in-process run), 1 worker : {phase[1] / 1e6:6.2f} million hands/s")
    print(f"  dealing only (in-process run), 2 workers: {phase[2] / 1e6:6.2f} million hands/s "
          f"({phase[2] / phase[1]:.2f}x; goal 1.8x)")
    print(f"  baseline, pure-Python engine: {base:,.0f} hands/s; 1 worker is {one / base:,.0f}x faster")
    print("  simulated mean - exact, in standard errors (last run): " + ", ".join(
        f"{code} {(w['mean'] - w['exact']) / w['std_error']:+.2f}" for code, w in last["wagers"].items()))
    if args.json:
        args.json.write_text(json.dumps({"hands_per_s_1_worker": one, "hands_per_s_2_workers": two,
                                         "speedup_2_workers": two / one, "run_phase_hands_per_s": phase,
                                         "run_phase_speedup": phase[2] / phase[1], "baseline_hands_per_s": base,
                                         "shoes": args.shoes, "repeats": args.repeats}, indent=2) + "\n")


if __name__ == "__main__":
    main()
