"""``baccarat roads``: the scoreboards of a list of hands, as text grids or JSON."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from baccarat.cli.common import app, handle_errors


@app.command()
def roads(
    hands: Annotated[list[str], typer.Argument(
        help="Hands in order: B, P or T, each with optional flags b (Banker pair), p (Player pair), "
             "n (natural), 7 (Dragon 7), 8 (Panda 8); e.g. 'B P Tbp Bb Pp' (quoted or as separate words).")],
    as_json: Annotated[bool, typer.Option("--json", help="Write one JSON document to stdout.")] = False,
) -> None:
    """Bead Plate, Big Road, Big Eye Boy, Small Road, Cockroach Pig, the ask cells and statistics."""
    from baccarat.core.roads import parse_hands, render
    from baccarat.core.roads import roads as compute

    with handle_errors():
        board = compute(parse_hands(" ".join(hands)))
    print(json.dumps(board.to_json(), indent=2) if as_json else render(board))
