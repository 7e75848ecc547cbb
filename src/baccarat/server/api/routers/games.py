"""The games and their wagers, with names, pays and default limits (the page draws its layouts from it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from baccarat.server.api.deps import REFUSALS, look
from baccarat.server.playing import definitions, game_info, shapes

router = APIRouter(tags=["games"], responses=REFUSALS)


@router.get("/api/games", response_model=list[shapes.GameInfo])
def games() -> list[shapes.GameInfo]:
    """Every game's wagers with their names and pays (Lucky Draw once per DrawWin pay table)."""
    return game_info.games_json()


@router.get("/api/games/definition", response_model=definitions.Definition)
def game_definition(request: Request, digest: Annotated[str, Query(
        pattern="^[0-9a-f]{64}$", description="the SHA-256 (hex) a shoe record names as its definition")]
                    ) -> definitions.Definition:
    """The rules file of a game served from one (its shoe records name its digest): what the page's Verify reads
    the game's rules from, after checking the content against the digest."""
    return look(request, lambda s: definitions.definition(s, digest))
