"""The games and their wagers, with names, pays and default limits (the page draws its layouts from it)."""

from __future__ import annotations

from fastapi import APIRouter

from baccarat.server.playing import game_info, shapes

router = APIRouter(tags=["games"])


@router.get("/api/games", response_model=list[shapes.GameInfo])
def games() -> list[shapes.GameInfo]:
    """Every game's wagers with their names and pays (Lucky Draw once per DrawWin pay table)."""
    return game_info.games_json()
