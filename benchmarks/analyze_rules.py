"""Speed of the exact analysis of a rules file with pair bets (goal, issue 16: at most 1 s at 8 decks).

Two figures, each the median of ``--repeats`` runs:

* *in process*: ``analyze(game, 8 decks)`` for ``catalogue/pairs.toml`` (Player, Banker, Tie, Player
  Pair, Banker Pair, Either Pair, Perfect Pair), from a fresh process's first call (the rank and
  suit tables computed; the coup table from its cache), and again warm;
* *command*: ``baccarat analyze pairs --rules catalogue/pairs.toml`` as a whole process, start-up
  included, with an empty cache folder (cold: everything computed) and with the report kept (warm).

    python benchmarks/analyze_rules.py [--repeats 5] [--json out.json]
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

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "catalogue" / "pairs.toml"
_IN_PROCESS = """
import time, json
t = time.perf_counter()
from baccarat.analysis.analyze import analyze
from baccarat.analysis.composition import Composition
from baccarat.core.rulesfile import read_rules
game = read_rules({rules!r})
imported = time.perf_counter()
analyze(game, Composition.full(8))
first = time.perf_counter()
analyze(game, Composition.full(8))
again = time.perf_counter()
print(json.dumps({{"import": imported - t, "first": first - imported, "warm": again - first}}))
"""


def _command() -> list[str]:
    found = shutil.which("baccarat", path=str(Path(sys.executable).parent))
    console = "import sys; from baccarat.cli.app import main; sys.exit(main())"
    return [found] if found else [sys.executable, "-c", console]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args()
    runs: dict[str, list[float]] = {"import": [], "first": [], "warm": [], "command_cold": [], "command_warm": []}
    for _ in range(options.repeats):
        with tempfile.TemporaryDirectory() as folder:
            environment = {**os.environ, "BACCARAT_CACHE_DIR": folder}
            done = subprocess.run([sys.executable, "-c", _IN_PROCESS.format(rules=str(RULES))], check=True,
                                  capture_output=True, text=True, env=environment)
            for key, value in json.loads(done.stdout).items():
                runs[key].append(value)
            for kind in ("command_cold", "command_warm"):
                start = time.perf_counter()
                subprocess.run([*_command(), "analyze", "pairs", "--rules", str(RULES), "--decks", "8"], check=True,
                               stdout=subprocess.DEVNULL, env=environment)
                runs[kind].append(time.perf_counter() - start)
    figures = {key: statistics.median(values) for key, values in runs.items()}
    print(f"pairs.toml at 8 decks, median of {options.repeats}:")
    print(f"  in process: first analysis {figures['first']:.3f} s (imports {figures['import']:.3f} s), "
          f"again {figures['warm']:.3f} s")
    print(f"  baccarat analyze (whole process): cold cache {figures['command_cold']:.3f} s, "
          f"warm cache {figures['command_warm']:.3f} s (goal: 1 s)")
    if options.json:
        options.json.write_text(json.dumps({"repeats": options.repeats, "median_seconds": figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
