"""Where a ``baccarat simulate`` process spends its wall time: a timeline of one run.

Runs ``baccarat simulate ez --json`` in a child process whose chunk function is wrapped to log when
each chunk starts and ends, and in which process; prints the phases: the interpreter's start,
numpy and the simulation's modules, the command until the run starts (Typer, parsing, the plan;
with the console script a plain run's workers are already dealing then), each worker's first and last
chunk, its busy time and its chunks, the tail (the last worker still dealing while the other has
nothing left), and after the last chunk: the summary, the output and the exit, as the parent
sees them.  The ``baccarat`` modules are imported as the benchmarks import them (see
``installed.py``: compiled to bytecode first unless ``--no-bytecode``).

    python benchmarks/simulate_timeline.py [--shoes 600000] [--workers 2] [--entry console|cli]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time

from installed import compile_package  # benchmarks/installed.py

CHILD = r"""
import os, sys, time
start = float(sys.argv[1])
def now(): return time.time() - start
def log(line): os.write(2, (line + "\n").encode())  # one write: the processes' lines never interleave
log(f"mark interpreter {now():.4f}")
entry = sys.argv.pop(2)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the command (and the console script's early start) set it
import baccarat.sim.run as run
log(f"mark numpy-and-the-simulation {now():.4f}")
dealt = run.run_chunk
def logged(plan, index):
    begun = now(); result = dealt(plan, index)
    log(f"chunk {os.getpid()} {index} {begun:.4f} {now():.4f}")
    return result
run.run_chunk = logged
local = run._local
def timed(plan, workers, chunk):
    log(f"mark run-starts {now():.4f}")
    yield from local(plan, workers, chunk)
    log(f"mark last-result-in {now():.4f}")
run._local = timed
sys.argv = ["baccarat", *sys.argv[2:]]
if entry == "console":  # the console script: a plain run's workers start before Typer (baccarat.cli.early_workers)
    from baccarat.cli.console import main
else:
    from baccarat.cli.app import main
main()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=600_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-bytecode", action="store_true")
    parser.add_argument("--entry", choices=("console", "cli"), default="console",
                        help="the console script (baccarat.cli.console.main, as installed) or baccarat.cli.app.main")
    args = parser.parse_args()
    if not args.no_bytecode:
        compile_package()
    start = time.time()
    done = subprocess.run([sys.executable, "-c", CHILD, repr(start), args.entry, "simulate", "ez",
                           "--shoes", str(args.shoes), "--seed", "3", "--workers", str(args.workers), "--json"],
                          capture_output=True, text=True, check=True)
    wall = time.time() - start
    marks, chunks = [], collections.defaultdict(list)
    for line in done.stderr.splitlines():
        kind, *rest = line.split()
        if kind == "mark":
            marks.append((rest[0], float(rest[1])))
        elif kind == "chunk":
            chunks[rest[0]].append((int(rest[1]), float(rest[2]), float(rest[3])))
    print(f"baccarat simulate ez --shoes {args.shoes:,} --workers {args.workers}: seconds since the launch "
          f"(load average {os.getloadavg()[0]:.2f})")
    for name, at in marks:
        print(f"  {name:<28} {at:.3f}")
    ends = []
    for pid, done_chunks in chunks.items():
        busy = sum(end - begun for _, begun, end in done_chunks)
        ends.append(done_chunks[-1][2])
        print(f"  process {pid}: {len(done_chunks)} chunks from {done_chunks[0][1]:.3f} to {done_chunks[-1][2]:.3f}, "
              f"busy {busy:.3f} s, {busy / len(done_chunks) * 1000:.1f} ms a chunk")
    if len(ends) > 1:
        print(f"  tail: the last worker dealt alone for {max(ends) - sorted(ends)[-2]:.3f} s")
    print(f"  process ended (as the launcher saw it) {wall:.3f}")


if __name__ == "__main__":
    main()
