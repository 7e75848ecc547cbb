"""Speed of the whole exact analysis: ``baccarat analyze`` for mini, ez and lucky-draw at 8 decks,
as three command-line runs including start-up (goal, issue 17: 0.6 s or less in all on a 2-core
machine).

Each game is run twice per repeat: *cold*, with an empty cache folder (everything computed from
scratch), and *warm*, with the report kept by the cold run (``baccarat.analysis.cache``: the digest
of the code in its key, so a warm run is never stale).  Both are given, as wall time and as the CPU
time (user + system) of the three processes: on a shared machine the CPU time is the steadier.
Cold, Python and numpy take about 0.1 s of each run before any analysis (the console script answers
these plain lines without Typer: ``baccarat.cli.analyze_text``); warm, numpy is not imported at all.

The runs use the package's bytecode compiled first, as an installed package has it
(``installed.py``; ``--no-bytecode`` to time them compiling their modules from source).

Baseline, in the same run: a plain enumeration of the 8-deck punto banco coups through the
engine's ``deal_coup`` (the independent check in ``tests/core/test_enumeration.py``), compared in-process
with the analyzer doing the same job (every mini-baccarat wager, caches cleared each time).

    python benchmarks/analyze_cli.py [--repeats 7] [--json out.json] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.core.test_enumeration

from installed import compile_package

GAMES = ("mini", "ez", "lucky-draw")


def _command() -> list[str]:
    found = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "baccarat.cli.app"]


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def time_cli(repeats: int) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, list[float]]]]:
    """Wall and CPU times of each game's run, cold then warm, ``repeats`` times (round robin, so noise
    hits all alike)."""
    times: dict[str, dict[str, list[float]]] = {kind: {game: [] for game in GAMES} for kind in ("cold", "warm")}
    cpu: dict[str, dict[str, list[float]]] = {kind: {game: [] for game in GAMES} for kind in ("cold", "warm")}
    command = _command()
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            environment = {**os.environ, "BACCARAT_CACHE_DIR": folder}
            for kind in ("cold", "warm"):
                for game in GAMES:
                    used, start = _children_cpu(), time.perf_counter()
                    subprocess.run([*command, "analyze", game, "--decks", "8"], check=True, stdout=subprocess.DEVNULL,
                                   env=environment)
                    times[kind][game].append(time.perf_counter() - start)
                    cpu[kind][game].append(_children_cpu() - used)
    return times, cpu


def time_in_process(repeats: int) -> tuple[list[float], list[float]]:
    """Every 8-deck mini-baccarat wager: (analyzer times, plain enumeration times), no start-up counted."""
    from tests.core import test_enumeration

    from baccarat.analysis.composition import Composition
    from baccarat.analysis.keys import coup_table
    from baccarat.analysis.punto import event_combinations
    from baccarat.core.registry import MINI

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
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="do not compile the package's bytecode first (see benchmarks/installed.py)")
    args = parser.parse_args()
    if not args.no_bytecode:
        compile_package()
    load = os.getloadavg()[0]
    cli, cpu = time_cli(args.repeats)
    ours, baseline = time_in_process(args.repeats)
    medians = {kind: {game: statistics.median(t) for game, t in runs.items()} for kind, runs in cli.items()}
    totals = {kind: [sum(run) for run in zip(*runs.values(), strict=True)] for kind, runs in cli.items()}
    cpu_totals = {kind: [sum(run) for run in zip(*runs.values(), strict=True)] for kind, runs in cpu.items()}
    mine, base = statistics.median(ours), statistics.median(baseline)
    print(f"baccarat analyze, 8 decks, {args.repeats} repeats, median [min-max] (load average {load:.2f} at the start)")
    for game in GAMES:
        print(f"  {game:<10}  cold {medians['cold'][game]:.3f} s   warm {medians['warm'][game]:.3f} s")
    for kind, runs in totals.items():
        used = cpu_totals[kind]
        print(f"all three, including start-up, {kind}: {statistics.median(runs):.3f} "
              f"[{min(runs):.3f}-{max(runs):.3f}] s (goal: 0.6 s or less); CPU time {statistics.median(used):.3f} "
              f"[{min(used):.3f}-{max(used):.3f}] s")
    print(f"in-process, every mini wager at 8 decks: analyzer {mine * 1000:.1f} ms, "
          f"plain enumeration {base * 1000:.1f} ms, ratio {base / mine:.1f}x")
    if args.json:
        args.json.write_text(json.dumps({"cli_medians_s": medians, "cli_totals_s": totals,
                                         "cli_cpu_totals_s": cpu_totals, "analyzer_s": mine,
                                         "baseline_s": base, "speedup": base / mine, "repeats": args.repeats,
                                         "load_average": load}, indent=2) + "\n")


if __name__ == "__main__":
    main()
