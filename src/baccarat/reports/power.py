"""The battery's power: at what number of shoes it catches each defective shuffle (docs/certification.md).

``python -m baccarat.reports.power --write`` runs every defect of :mod:`baccarat.reports.defects`
through the battery at each of :data:`SIZES` and writes ``power.json`` beside this module; the
certification report prints that table, and the tests check it is the table of the battery and
defects as they are now (the tests' codes, the family size, the default size).  Holm's adjustment
in these runs is over the whole family of a certification (the shoe tests and the stream tests),
so a defect caught here is caught in a real run of the same size.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baccarat.reports.battery import ALPHA, SUB_SAMPLE_FLOOR
from baccarat.reports.certify import DEFAULT_SHOES, STREAM_FAMILY, certify
from baccarat.reports.defects import DEFECTS, Defect

#: The sizes measured, smallest first; the default size is the last.
SIZES = (1_000, 3_000, 10_000, 30_000, DEFAULT_SHOES)
#: Where the measured table lives (package data: the report reads it).
POWER_FILE = Path(__file__).with_name("power.json")
COMMAND = "python -m baccarat.reports.power --write"


@dataclass(frozen=True)
class Caught:
    """One defect at one size: whether the verdict failed, and which tests rejected it."""

    shoes: int
    caught: bool
    tests: tuple[str, ...]
    seconds: float


def measure(item: Defect, sizes: tuple[int, ...] = SIZES, *, seed: int = 1, workers: int | None = None
            ) -> list[Caught]:
    """Run ``item`` through the battery at every size (family: the shoe tests and the stream tests)."""
    out = []
    for shoes in sizes:
        started = time.perf_counter()
        result = certify(shoes, shuffler=item.make(seed), workers=workers)
        rejected = tuple(t.code for t in sorted(result.tests, key=lambda t: t.adjusted_p) if t.adjusted_p <= ALPHA)
        out.append(Caught(shoes, not result.passed, rejected, round(time.perf_counter() - started, 1)))
    return out


def caught_from(runs: list[Caught]) -> int | None:
    """The smallest size from which every larger size measured caught the defect too."""
    size = None
    for run in reversed(runs):
        if not run.caught:
            break
        size = run.shoes
    return size


def table(seed: int = 1, workers: int | None = None) -> dict[str, Any]:
    """Measure every defect; the JSON object written to :data:`POWER_FILE`."""
    rows = []
    for item in DEFECTS:
        runs = measure(item, seed=seed, workers=workers)
        rows.append({"code": item.code, "name": item.name, "caught_from": caught_from(runs),
                     "runs": [{"shoes": r.shoes, "caught": r.caught, "tests": list(r.tests), "seconds": r.seconds}
                              for r in runs]})
        print(f"{item.code}: caught from {caught_from(runs)}", file=sys.stderr, flush=True)
    codes = [t.code for t in certify(SUB_SAMPLE_FLOOR, seed=seed, workers=workers).tests]  # every shoe test
    return {"command": COMMAND, "seed": seed, "sizes": list(SIZES), "default_shoes": DEFAULT_SHOES,
            "family": len(codes) + STREAM_FAMILY, "tests": codes, "defects": rows,
            "measured": time.strftime("%Y-%m-%d", time.gmtime())}


def load() -> dict[str, Any]:
    """The measured table (``power.json``)."""
    return dict(json.loads(POWER_FILE.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    """``python -m baccarat.reports.power [--write] [--seed S] [--workers W]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {POWER_FILE.name} beside the module")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    result = table(args.seed, args.workers)
    text = json.dumps(result, indent=1) + "\n"
    if args.write:
        POWER_FILE.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
