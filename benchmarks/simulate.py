"""Simulation speed: EZ Baccarat with all five wagers, full 8-deck shoes with shuffle, burn and cut card.

Goals (issue 17, 2-core machine), each a ratio measured in the same run:

* one worker, whole ``baccarat simulate`` process, 600,000 shoes: at least 0.8x the hands per second
  of a plain C reference simulator (``benchmarks/reference_sim.c``: the same procedure on one core,
  compiled here with ``gcc -O2``; it deals exactly the same shoes, which is checked on every run);
* two workers: at least 1.8x one worker, whole process, at 600,000 shoes (the curve is also given
  at 100,000 and 2,000,000 shoes);
* start-up: ``baccarat simulate ez --shoes 1`` as a whole process, an upper bound of the time to the
  first dealt chunk (it also counts the summary and the exit), at most 0.3 s;
* the Lucky Draw kernel within 2x the punto banco kernel's hands per second (in-process).

The C program (alone, then two copies at once: the most two processes can get from this machine's
cores), one worker and two workers run back to back for every size and repeat (round robin,
so noise from other work on the machine hits them alike); medians and [min-max] are printed, with
the load average, and the ratio of one worker to C in CPU seconds as well, which moves less than
wall time when other programs share the machine.

It also prints the most two workers could gain if the whole start-up stayed serial: (S + D) / (S + D/2),
with S the start-up above and D the dealing time at the in-process rate (the fork, the tail and the
exit are left out).  The console script starts a plain run's workers at once and deals and prints a
plain punto banco run without Typer and the command modules (``baccarat.cli.early_workers``,
``baccarat.cli.simulate_text``); ``simulate_timeline.py`` shows when the workers' first chunk begins.

The ``baccarat`` processes run with the package's bytecode compiled first, as an installed package
has it (``installed.py``; ``--no-bytecode`` times them compiling their modules from source, as they
do where ``PYTHONDONTWRITEBYTECODE`` is set).  ``simulate_timeline.py`` shows where one process's
time goes (start-up, each worker's chunks, the tail, the exit).

    python benchmarks/simulate.py [--sizes 100000,600000,2000000] [--repeats 5] [--json out.json] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from installed import compile_package  # benchmarks/installed.py

from baccarat.sim.outcome_tables import punto_banco_tables, shoe_tables
from baccarat.sim.results import ratio_stats
from baccarat.sim.run import Plan, chunk_state

HERE = Path(__file__).resolve().parent
GOAL_C, GOAL_TWO, GOAL_START, GOAL_LUCKY = 0.8, 1.8, 0.3, 2.0


def _command() -> list[str]:
    found = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "baccarat.cli.app"]


def build_reference(folder: Path) -> Path:
    """Compile ``reference_sim.c`` with ``gcc -O2`` (nothing fetched: the source is in this folder)."""
    binary = folder / "reference_sim"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(HERE / "reference_sim.c")], check=True)
    return binary


def write_spec(plan: Plan, path: Path) -> None:
    """The C program's input: the shoe, the tableau, the pays and every chunk's xoshiro256** state."""
    shoe, tables = shoe_tables(plan.decks), punto_banco_tables(plan.game)

    def line(array: np.ndarray) -> str:
        return " ".join(str(int(x)) for x in np.ravel(array))

    rows = [f"{len(shoe.deck)} {plan.cut_card} {tables.pays_by_key.shape[1]} {plan.chunks}",
            line(shoe.value_of[shoe.deck]), line(shoe.burn), line(tables.player_draws), line(tables.banker_draws),
            line(tables.natural)]
    rows.extend(" ".join(repr(float(p)) for p in key) for key in tables.pays_by_key)
    rows.extend(f"{plan.chunk_shoes(i)} {line(chunk_state(plan.seed, i))}" for i in range(plan.chunks))
    path.write_text("\n".join(rows) + "\n")


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def time_reference(binary: Path, spec: Path) -> tuple[float, float, dict[str, object]]:
    """Wall and CPU seconds of the C program, and what it printed."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([str(binary), str(spec)], check=True, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    out: dict[str, object] = {"sums": []}
    for row in done.stdout.splitlines():
        name, *numbers = row.split()
        if name == "sums":
            out["sums"].append([float(x) for x in numbers])  # type: ignore[union-attr]
        else:
            out[name] = int(numbers[0])
    return seconds, cpu, out


def time_reference_pair(binary: Path, spec: Path) -> float:
    """Wall seconds of two copies of the C program at once: what two cores give to two independent processes."""
    start = time.perf_counter()
    copies = [subprocess.Popen([str(binary), str(spec)], stdout=subprocess.DEVNULL) for _ in range(2)]
    for copy in copies:
        if copy.wait():
            raise subprocess.CalledProcessError(copy.returncode, copy.args)
    return time.perf_counter() - start


def time_process(shoes: int, workers: int, seed: int) -> tuple[float, float, dict]:  # type: ignore[type-arg]
    """Wall and CPU seconds (all processes) of ``baccarat simulate ez``, and its JSON."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([*_command(), "simulate", "ez", "--shoes", str(shoes), "--seed", str(seed),
                           "--workers", str(workers), "--json"], check=True, capture_output=True, text=True)
    return time.perf_counter() - start, _children_cpu() - cpu, json.loads(done.stdout)


def check_same_shoes(reference: dict[str, object], doc: dict) -> None:  # type: ignore[type-arg]
    """The C program and ``baccarat simulate`` dealt the same shoes: equal hands, means and errors."""
    sums = np.array(reference["sums"])
    assert reference["hands"] == doc["hands"], (reference["hands"], doc["hands"])
    for row, wager in enumerate(doc["wagers"].values()):
        mean, error = ratio_stats(sums, row)
        assert (mean, error) == (wager["mean"], wager["std_error"]), (wager["name"], mean, wager["mean"])


def kernel_rates(shoes: int, repeats: int) -> dict[str, float]:
    """Hands per second of the punto banco (EZ) and Lucky Draw kernels in-process, median of ``repeats``."""
    from baccarat.core.registry import get_game
    from baccarat.sim.outcome_tables import strategy_draws
    from baccarat.sim.run import run

    plans = {"punto banco (ez)": Plan("ez", shoes, 7),
             "lucky draw": Plan("lucky-draw", shoes, 7, paytable=1,
                                draws=strategy_draws(get_game("lucky-draw"), 8, "composition").tobytes())}
    rates: dict[str, list[float]] = {name: [] for name in plans}
    for plan in plans.values():
        run(Plan(plan.game, 10, 0, paytable=plan.paytable, draws=plan.draws))  # load the kernel
    for _ in range(repeats):
        for name, plan in plans.items():
            start = time.perf_counter()
            _, sums = run(plan)
            rates[name].append(sums[-1, 0] / (time.perf_counter() - start))
    return {name: statistics.median(r) for name, r in rates.items()}


def start_bounds(start: float, rate: float, runs: dict[int, dict[str, list[float]]]) -> dict[int, float]:
    """For each size, the ratio of two workers to one if the start-up ``start`` is serial and dealing halves.

    The dealing time is the size's hands (from the one-worker runs) at the in-process ``rate``; the
    fork, the tail and the exit are left out.  (Two workers started early, before Typer, have a shorter
    serial start than one worker's, so they can beat it.)
    """
    bounds = {}
    for shoes, figures in runs.items():
        dealing = statistics.median(figures["hands"]) / rate
        bounds[shoes] = (start + dealing) / (start + dealing / 2)
    return bounds


def spread(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    """``median [min-max]``."""
    return (f"{statistics.median(values) / scale:.{digits}f} "
            f"[{min(values) / scale:.{digits}f}-{max(values) / scale:.{digits}f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,600000,2000000", help="shoes per run, comma-separated")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="do not compile the package's bytecode first (see benchmarks/installed.py)")
    args = parser.parse_args()
    if not args.no_bytecode:
        compile_package()
    sizes = [int(s) for s in args.sizes.split(",")]
    load = os.getloadavg()[0]
    folder = Path(tempfile.mkdtemp(prefix="baccarat-bench-"))
    binary = build_reference(folder)
    time_process(1, 1, 0)  # the kernels' first build (or numba's cache) and the cached tables, outside the timings

    keys = ("c", "one", "two", "c_ratio", "two_ratio", "c_ratio_cpu", "c_pair", "hands")
    runs: dict[int, dict[str, list[float]]] = {n: {key: [] for key in keys} for n in sizes}
    starts: list[float] = []
    for repeat in range(args.repeats):
        starts.append(time_process(1, 1, repeat)[0])
        for shoes in sizes:
            spec = folder / f"spec-{shoes}-{repeat}.txt"
            write_spec(Plan("ez", shoes, repeat), spec)
            c_seconds, c_cpu, reference = time_reference(binary, spec)
            pair_seconds = time_reference_pair(binary, spec)
            one_seconds, one_cpu, one = time_process(shoes, 1, repeat)
            two_seconds, _, two = time_process(shoes, 2, repeat)
            check_same_shoes(reference, one)
            check_same_shoes(reference, two)
            hands = one["hands"]
            figures = runs[shoes]
            figures["hands"].append(hands)
            figures["c"].append(hands / c_seconds)
            figures["one"].append(hands / one_seconds)
            figures["two"].append(hands / two_seconds)
            figures["c_ratio"].append(c_seconds / one_seconds)
            figures["two_ratio"].append(one_seconds / two_seconds)
            figures["c_ratio_cpu"].append(c_cpu / one_cpu)  # less sensitive to other programs than wall time
            figures["c_pair"].append(2 * c_seconds / pair_seconds)  # the machine's own limit for two processes
    kernels = kernel_rates(100_000, args.repeats)
    shutil.rmtree(folder)

    print(f"EZ, 5 wagers, 8 decks, whole processes, {args.repeats} repeats: median [min-max]; "
          f"the C reference dealt the same shoes in every run (checked); load average {load:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end")
    print(f"{'shoes':>10}  {'C, M hands/s':>20}  {'1 worker, M hands/s':>20}  {'2 workers, M hands/s':>20}  "
          f"{'1 worker / C':>18}  {'2 / 1 worker':>18}  {'1 worker / C, CPU':>18}  {'C: 2 copies / 1':>18}")
    for shoes, f in runs.items():
        print(f"{shoes:>10,}  {spread(f['c'], 1e6):>20}  {spread(f['one'], 1e6):>20}  {spread(f['two'], 1e6):>20}  "
              f"{spread(f['c_ratio']):>18}  {spread(f['two_ratio']):>18}  {spread(f['c_ratio_cpu']):>18}  "
              f"{spread(f['c_pair']):>18}")
    print(f"goals: 1 worker / C >= {GOAL_C} and 2 / 1 worker >= {GOAL_TWO} at 600,000 shoes; 'C: 2 copies / 1' is the "
          "throughput of two C processes at once over one, the most two workers could get on this machine")
    print(f"start-up (whole process, 1 shoe): {spread(starts, digits=3)} s (goal: at most {GOAL_START} s)")
    bounds = start_bounds(statistics.median(starts), kernels["punto banco (ez)"], runs)
    print("what two workers could gain if the whole start-up were serial, (S + D) / (S + D / 2) with S the "
          "start-up and D the dealing in-process: " + ", ".join(f"{n:,} shoes {b:.2f}" for n, b in bounds.items()))
    lucky, punto = kernels["lucky draw"], kernels["punto banco (ez)"]
    print(f"kernels in-process, 100,000 shoes: punto banco {punto / 1e6:.1f} M hands/s, Lucky Draw "
          f"{lucky / 1e6:.1f} M hands/s ({punto / lucky:.2f}x slower; goal: within {GOAL_LUCKY}x)")
    if args.json:
        args.json.write_text(json.dumps({
            "repeats": args.repeats, "load_average": [load, os.getloadavg()[0]],
            "sizes": {str(n): {key: {"median": statistics.median(v), "min": min(v), "max": max(v)}
                               for key, v in f.items()} for n, f in runs.items()},
            "startup_s": {"median": statistics.median(starts), "min": min(starts), "max": max(starts)},
            "kernel_hands_per_s": kernels, "two_worker_bound": {str(n): b for n, b in bounds.items()},
        }, indent=2) + "\n")


if __name__ == "__main__":
    main()
