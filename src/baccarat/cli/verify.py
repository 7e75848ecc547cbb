"""``baccarat verify``: recompute provably fair shoes, and every round played on them, from their seeds."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from baccarat.cli.common import UsageProblem, app

EXIT_MISMATCH = 3
#: Mismatch lines printed at most: a wrong seed makes every card of its shoe differ.
MAX_SHOWN = 40


@app.command()
def verify(
    record: Annotated[Path, typer.Argument(help="A 'baccarat play --json' transcript, your history exported from "
                                                "the table server (GET /api/history/export), a shoe record or a "
                                                "list of them ('-' for standard input).")],
) -> None:
    """Check each shoe's revealed seed against its commitment, deal every round again from the seeds,
    and compare the cards, hands, results, payouts and balances with the file.

    Exit code 0 when everything matches, 3 when something does not (each
    mismatch is named), 2 when the file is not a record.
    """
    from baccarat.verify import RecordError, verify_document

    try:
        text = sys.stdin.read() if str(record) == "-" else record.read_text(encoding="utf-8")
        report = verify_document(json.loads(text))
    except UnicodeDecodeError as error:  # (before OSError's words: it is a ValueError)
        raise UsageProblem(f"cannot verify {record}: it is not UTF-8 text (byte {error.start + 1} cannot be "
                           "read); give the file as baccarat play --json or the history export wrote it") from error
    except json.JSONDecodeError as error:
        raise UsageProblem(f"cannot verify {record}: it is not JSON ({error.msg.lower()} at line {error.lineno}, "
                           f"column {error.colno}); give the file as baccarat play --json or the history export "
                           "wrote it") from error
    except OSError as error:
        raise UsageProblem(f"cannot read {record}: {(error.strerror or str(error)).lower()}") from error
    except RecordError as error:
        raise UsageProblem(f"cannot verify {record}: {error}") from error
    for verdict in report.shoes:
        if verdict.ok and verdict.revealed:
            print(f"{verdict.name}: seed matches its commitment; {verdict.rounds} rounds, "
                  f"{verdict.cards} cards verified")
        elif verdict.ok and verdict.proven:
            print(f"{verdict.name}: in play; {verdict.rounds} rounds, {verdict.cards} cards proven now against its "
                  "Merkle root (its seed is checked against the root when the shoe ends)")
    if report.kind != "records":
        now = f" ({report.proven} of them proven now, their shoe still in play)" if report.proven else ""
        print(f"{report.rounds} of your rounds dealt again from their shoes{now}: cards, hands, results, payouts and "
              f"balances {'checked' if report.problems else 'verified'}")
    for line in report.pending:
        print(f"not yet: {line}")
    for problem in report.problems[:MAX_SHOWN]:
        print(f"MISMATCH {problem}")
    if len(report.problems) > MAX_SHOWN:  # past the first ones, the rest mostly follow from them
        print(f"... and {len(report.problems) - MAX_SHOWN} more mismatches")
    if not report.ok:
        raise typer.Exit(EXIT_MISMATCH)
