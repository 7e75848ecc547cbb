"""``baccarat verify``: recompute every card of provably fair shoes from their published records."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli import UsageProblem, app

EXIT_MISMATCH = 3


@app.command()
def verify(
    record: Annotated[Path, typer.Argument(help="A shoe record, a list of them, or a 'baccarat play --json' "
                                                "transcript ('-' for standard input).")],
) -> None:
    """Check each shoe's revealed seed against its commitment and every dealt card against the seed.

    Exit code 0 when everything matches, 3 when something does not (each
    mismatch is named), 2 when the file is not a shoe record.
    """
    from baccarat.verify import RecordError, shoe_records, verify_shoe

    try:
        text = sys.stdin.read() if str(record) == "-" else record.read_text(encoding="utf-8")
        verdicts = [verify_shoe(r) for r in shoe_records(json.loads(text))]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecordError) as error:
        raise UsageProblem(f"cannot verify {record}: {error}") from error
    for verdict in verdicts:
        if verdict.ok:
            print(f"shoe {verdict.shoe}: seed matches its commitment; {verdict.rounds} rounds, "
                  f"{verdict.cards} cards verified")
        for problem in verdict.problems:
            print(f"MISMATCH {problem}")
    if not all(v.ok for v in verdicts):
        raise typer.Exit(EXIT_MISMATCH)
