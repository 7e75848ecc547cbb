"""The registry's games as request bodies take them: a game code is checked against
:func:`baccarat.core.registry.game_codes` (built-in games and those of ``serve --rules`` files), never
against a list restated here."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from baccarat.core.registry import game_codes


def known_game(value: object) -> object:
    """A registered game's code, or a refusal naming the games there are."""
    if not isinstance(value, str) or value not in game_codes():
        raise PydanticCustomError("game", "unknown game; the games are: {games}", {"games": ", ".join(game_codes())})
    return value


#: A game code in a request body.
GameCode = Annotated[str, BeforeValidator(known_game)]
