"""Speed of the certification: ``baccarat certify`` at its default size, 100,000 shoes and 100 NIST sequences
(goal, issue 32: the shoes in at most 60 s on the project's 2-core machine).

It times the whole command as a user runs it (start-up, the worker processes, the shuffle of every
shoe by the server's HMAC-SHA256 Fisher-Yates, dealing, the battery, the stream and NIST SP 800-22 on it),
with a fixed seed so that every repeat deals the same shoes, and gives the wall time, the CPU time of the
processes (the steadier figure on a shared machine) and shoes per second.

    python benchmarks/certify.py [--shoes 100000] [--nist-sequences 100] [--workers 2] [--repeats 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(shoes: int, workers: int, nist: int) -> tuple[float, float, dict[str, object]]:
    """One run of the command: (wall seconds, CPU seconds, its JSON)."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-m", "baccarat.cli.console", "certify", "--shoes", str(shoes),
                           "--seed", "1", "--workers", str(workers), "--nist-sequences", str(nist), "--json"],
                          capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(done.stderr)
    return time.perf_counter() - start, _children_cpu() - cpu, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoes", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--nist-sequences", type=int, default=100, help="NIST sequences (the command's default)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    once(200, 1, 1)  # compile and cache the kernels once, outside the timings
    runs = [once(args.shoes, args.workers, args.nist_sequences) for _ in range(args.repeats)]
    walls = sorted(r[0] for r in runs)
    cpus = sorted(r[1] for r in runs)
    verdict = runs[0][2]["verdict"]
    wall = statistics.median(walls)
    print(f"baccarat certify --shoes {args.shoes:,} --nist-sequences {args.nist_sequences} --workers {args.workers}: "
          f"{wall:.1f} s "
          f"[{walls[0]:.1f}-{walls[-1]:.1f}] wall, {statistics.median(cpus):.1f} s CPU, "
          f"{args.shoes / wall:,.0f} shoes/s; verdict {verdict}")
    if args.json:
        args.json.write_text(json.dumps({
            "shoes": args.shoes, "nist_sequences": args.nist_sequences, "workers": args.workers, "cpu_count": os.cpu_count(), "wall_s": walls,
            "cpu_s": cpus, "shoes_per_s": args.shoes / wall, "verdict": verdict,
            "load_average": os.getloadavg()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
