"""Throughput of the batch EV API: EZ Baccarat's five wagers for many shoe compositions
(goal, issue 17: at least 300,000 shoes per second on two threads of a 2-core machine).

Baseline, in the same run: the exact single-shoe analyzer (``event_combinations``, vectorised
numpy with exact integers) called once per shoe.

    python benchmarks/batch_ev.py [--shoes 200000] [--repeats 5] [--threads 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numba
import numpy as np

from baccarat.analysis.batch import BatchEvaluator
from baccarat.analysis.composition import LABEL_VALUES, Composition
from baccarat.analysis.punto import event_combinations
from baccarat.core.registry import EZ


def random_shoes(count: int, seed: int = 2026) -> np.ndarray:
    """Eight-deck shoes with a random part dealt (up to 300 cards), counts in A..9,T order."""
    rng = np.random.default_rng(seed)
    full = np.repeat(np.arange(10), 32)
    full = np.concatenate([full, np.zeros(96, dtype=int)])  # 128 ten-value cards in all
    shoes = np.empty((count, 10), dtype=np.int64)
    for i in range(count):
        left = rng.permutation(full)[rng.integers(0, 300):]
        by_value = np.bincount(left, minlength=10)
        shoes[i] = [by_value[v] for v in LABEL_VALUES]
    return shoes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="numba threads (default 2)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    load = os.getloadavg()[0]

    shoes = random_shoes(args.shoes)
    start = time.perf_counter()
    evaluator = BatchEvaluator(EZ)
    evaluator.expected_values(shoes[:1])  # compile (or load numba's cache)
    setup = time.perf_counter() - start
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        evaluator.expected_values(shoes)
        rates.append(len(shoes) / (time.perf_counter() - start))

    sample = shoes[:50]
    base_rates = []
    for _ in range(max(1, args.repeats // 2)):
        start = time.perf_counter()
        for row in sample:
            counts = [0] * 10
            for value, n in zip(LABEL_VALUES, row, strict=True):
                counts[value] = int(n)
            event_combinations(EZ, Composition(tuple(counts)))
        base_rates.append(len(sample) / (time.perf_counter() - start))

    rate, base = statistics.median(rates), statistics.median(base_rates)
    print(f"batch API, EZ (5 wagers), {len(shoes):,} shoes, {numba.get_num_threads()} threads: "
          f"median {rate:,.0f} [{min(rates):,.0f}-{max(rates):,.0f}] shoes/s over {args.repeats} runs "
          f"(goal: 300,000; load average {load:.2f} at the start)")
    print(f"set-up (coefficients, compile or cache load): {setup:.2f} s, once per process")
    print(f"baseline, exact analyzer one shoe at a time: median {base:,.0f} shoes/s")
    print(f"ratio: {rate / base:,.0f}x")
    if args.json:
        args.json.write_text(json.dumps({"batch_shoes_per_s": rate, "baseline_shoes_per_s": base,
                                         "ratio": rate / base, "threads": numba.get_num_threads(),
                                         "shoes": len(shoes), "setup_s": setup, "rates": rates,
                                         "load_average": load}, indent=2) + "\n")


if __name__ == "__main__":
    main()
