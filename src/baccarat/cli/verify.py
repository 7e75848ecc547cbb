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
    key: Annotated[Path | None, typer.Option(help="The house's public key (PEM: public_key of GET "
                                                  "/api/fairness/key): an export must carry the house's signature "
                                                  "made with it.")] = None,
) -> None:
    """Check each shoe's revealed seed against its commitment, deal every round again from the seeds,
    and compare the cards, hands, results, payouts and balances with the file.

    With --key, a history export must also carry the house's signature made with that key (an unsigned or
    edited export is a mismatch).

    Exit code 0 when everything matches, 3 when something does not (each
    mismatch is named), 2 when the file is not a record or the key cannot be read.
    """
    from baccarat.verify import RecordError, signature, verify_document

    try:
        house = None if key is None else signature.read_key(key.read_bytes())
    except OSError as error:
        raise UsageProblem(f"cannot read {key}: {(error.strerror or str(error)).lower()}") from error
    except ValueError as error:
        raise UsageProblem(f"cannot check signatures with {key}: {error}") from error

    try:
        text = sys.stdin.read() if str(record) == "-" else record.read_text(encoding="utf-8")
        document = json.loads(text)
        report = verify_document(document)
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
    if report.kind == "export" and house is not None:
        unsigned = signature.problem(document, house)
        if unsigned:
            report.problems.insert(0, unsigned)
        else:
            print(f"signed by the house's key {signature.fingerprint(house)}")
    elif report.kind == "export":
        print("the house's signature: not checked (give --key, the house's public key: GET /api/fairness/key)")
    for line in report.pending:
        print(f"not yet: {line}")
    for problem in report.problems[:MAX_SHOWN]:
        print(f"MISMATCH {problem}")
    if len(report.problems) > MAX_SHOWN:  # past the first ones, the rest mostly follow from them
        print(f"... and {len(report.problems) - MAX_SHOWN} more mismatches")
    if not report.ok:
        raise typer.Exit(EXIT_MISMATCH)
