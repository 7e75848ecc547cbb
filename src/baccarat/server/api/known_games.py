"""The registry's games as request bodies take them: a game code is checked against
:func:`baccarat.core.registry.game_codes` (built-in games and those of ``serve --rules`` files), never
against a list restated here."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from baccarat.core.registry import game_codes
from baccarat.server.api.text import STORABLE


def known_game(value: object) -> object:
    """A registered game's code, or a refusal naming the games there are."""
    if not isinstance(value, str) or value not in game_codes():
        raise PydanticCustomError("game", "unknown game; the games are: {games}", {"games": ", ".join(game_codes())})
    return value


def _listed(schema: dict[str, Any]) -> None:
    """The games in ``/openapi.json``, as an ``enum`` of the codes registered when the schema is made (the
    first time it is asked for, after ``serve --rules`` has added its games)."""
    schema["enum"] = list(game_codes())


#: A game code in a request body (text that cannot be stored is refused as such first).
GameCode = Annotated[str, BeforeValidator(known_game), STORABLE, Field(json_schema_extra=_listed)]
